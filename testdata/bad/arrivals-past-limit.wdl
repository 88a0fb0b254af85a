# File-type: text/wl-spec
# Valid until generated: the second job would arrive past 100 years.
3	sser	single	1	*:?	C(36500d)	-
