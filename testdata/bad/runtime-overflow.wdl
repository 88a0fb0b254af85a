# File-type: text/wl-spec
5	sser	single	1	*:?	Poisson(60s)	RunTime=Pow2(N(40,1))
