# File-type: text/wl-spec
# Fig. 5.4 of Iosup's thesis: GrenchMark's example workload, as printed (100
# jobs: sser, sserio and two smpi1 units whose co-allocation comes from Fig. 5.5,
# smpi1.xin, and from smpi2.xin). Arrivals span about 50 minutes.
# Run time on the embedded default (the bundled scheduler on examples/das2.toml):
#   gmark run examples/thesis/fig5_4.wdl --speedup 10    about 5.5 minutes
# The synthetic applications run for what their run-time model says (docs/apps.md):
# a few sser/sserio/smpi jobs draw parameters whose work outlasts the wall time
# their unit gives them (or the grid's 15-minute limit) and fail "killed after its
# run-time limit", as they would on a real cluster.
#Jobs	Type	SiteType	Total	SiteInfo	ArrivalTimeDistr	OtherInfo
25	sser	single	1	*:?	Poisson(120s)	StartAt=0s
25	sserio	single	1	*:?	Poisson(120s)	StartAt=60s
25	smpi1	single	1	*:?	Poisson(120s)	StartAt=30s,ExternalFile=smpi1.xin
25	smpi1	single	1	*:?	Poisson(120s)	StartAt=90s,ExternalFile=smpi2.xin
