# File-type: text/wl-spec
5	smpi	unordered	?	*:1	Poisson(60s)	NSites=10000000
