# File-type: text/wl-spec
# File-version: 1.1
?	composite	1	chain	single	1	-	Zero	N=100000000
