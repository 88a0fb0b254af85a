# File-type: text/wl-spec
5	smpi	single	1	*:?	Zero	ExternalFile=missing.xin
