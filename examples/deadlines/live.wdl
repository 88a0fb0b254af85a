# File-type: text/wl-spec
# File-version: 1.1
#
# Ballier et al. (RR-5815, 2006) at reduced scale, for a live run beside a
# simulated one (docs/deadlines.md#a-live-run-beside-the-simulated-one):
# co-allocated ("global") jobs with a hard start deadline drawn per job,
# U(1 s, 3599 s) after their submission, on the grid of
# examples/deadlines/grid.toml (4 clusters x 32 processors, each with a local
# users' workload at 30%, Wait-10 under global priority).
#  - 2, 3 or 4 components of one size (4, 8 or 16 processors: a coarse stand-in
#    for the paper's RSD[4,32] sizes), on any clusters (Worst-Fit; components
#    may share one);
#  - run times exponential with a mean of 200 s;
#  - Poisson arrivals, a mean gap of 90 s: 20 jobs over about half an hour.
# Jobs run the swf application: the scheduler emulates them.
#
# Expected run time: about 1 h 40 min of workload time (the last deadline can
# fall an hour after the last arrival): a second or two with
# `gmark koala simulate`, about 95 s at `--speedup 60`.
#
#ID	GeneratorType	NTimes	UnitType	SiteType	Total	SiteInfo	ArrivalTimeDistr	OtherInfo
1	unitary	20	swf	unordered	?	-	Poisson(90s)	NComponentsWithWeights=2;3;4,ComponentSizeWithWeights=4;8;16,RunTime=Exp(0.005),RunTimeInMinutes=60,Deadline=U(1s,3599s)
