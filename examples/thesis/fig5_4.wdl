# File-type: text/wl-spec
#Jobs	Type	SiteType	Total	SiteInfo	ArrivalTimeDistr	OtherInfo
25	sser	single	1	*:?	Poisson(120s)	StartAt=0s
25	sserio	single	1	*:?	Poisson(120s)	StartAt=60s
25	smpi1	single	1	*:?	Poisson(120s)	StartAt=30s,ExternalFile=smpi1.xin
25	smpi1	single	1	*:?	Poisson(120s)	StartAt=90s,ExternalFile=smpi2.xin
