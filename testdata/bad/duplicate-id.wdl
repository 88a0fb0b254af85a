# File-type: text/wl-spec
# File-version: 1.1
1	unitary	5	sser	single	1	*:?	Zero	-
1	unitary	5	hello	single	1	*:?	Zero	-
