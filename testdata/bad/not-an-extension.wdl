# File-type: text/wl-spec
5	sser	single	1	*:?	Zero	ExternalFile=not-an-extension.wdl
