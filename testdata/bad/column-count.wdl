# File-type: text/wl-spec
5	sser	single	1	*:?
