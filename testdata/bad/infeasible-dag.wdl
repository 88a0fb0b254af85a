# File-type: text/wl-spec
5	chain	single	1	*:?	Zero	N=10,L=3
