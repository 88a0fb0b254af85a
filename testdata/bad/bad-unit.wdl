# File-type: text/wl-spec
5	nosuchapp	single	1	*:?	Poisson(1m)	-
