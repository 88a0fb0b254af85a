# File-type: text/wl-spec
# File-version: 1.1
#
# Composite jobs: the workflow structures of Table 7.3 of Iosup's thesis, which
# GrenchMark used to stress-test grid workflow engines, plus a plain bag of tasks.
#   S-1 chain, S-2 forkjoin, S-3 hybrid; C-1 sameprob, C-2 samepred, C-3 layrprob, C-4 layrpred.
# N is the number of tasks and L the traversal height (the number of tasks on the
# longest path), both drawn per job from the given ranges. Arrivals are bursty: five
# workflows of each kind within a few minutes. Tasks are mostly "hello world" jobs,
# as in the thesis's overhead tests, with some sser; sser.Supersteps passes a key to
# the sser tasks only.
#
# Expected run time: about 7 minutes with `gmark run examples/composite.wdl` (the
# bundled scheduler on examples/das2.toml, --speedup 1): the bundled scheduler
# emulates each task for its application's run-time model (docs/apps.md), so a hello
# task takes about 5 ms and a chain of 50 is over in under a second. The run's length
# is its sser tasks, whose sizes are drawn at random: a fork/join with some takes up to
# a few minutes, and some of the bags of tasks' (unit 8) the model gives hours: they
# are killed at their 5-minute wall time, and 3 of the 40 jobs fail. At --speedup 10
# it takes about 40 s.
#
#ID	GeneratorType	NTimes	UnitType	SiteType	Total	SiteInfo	ArrivalTimeDistr	OtherInfo
1	composite	5	chain	single	1	*:?	Poisson(30s)	N=30-50,L=30-50,AppsWithWeights=hello
2	composite	5	forkjoin	single	1	*:?	Poisson(30s)	StartAt=5s,N=30-50,L=5-15,AppsWithWeights=hello/3;sser/1,sser.Supersteps=5
3	composite	5	hybrid	single	1	*:?	Poisson(30s)	StartAt=10s,N=30-50,L=3,AppsWithWeights=hello
4	composite	5	sameprob	single	1	*:?	Poisson(30s)	StartAt=15s,N=30-50,L=5-15,EdgeProb=0.1,AppsWithWeights=hello
5	composite	5	samepred	single	1	*:?	Poisson(30s)	StartAt=20s,N=30-50,L=5-15,MeanPred=2,AppsWithWeights=hello
6	composite	5	layrprob	single	1	*:?	Poisson(30s)	StartAt=25s,N=30-50,L=5-10,EdgeProb=0.3,AppsWithWeights=hello
7	composite	5	layrpred	single	1	*:?	Poisson(30s)	StartAt=30s,N=30-50,L=5-10,MeanPred=2,AppsWithWeights=hello
8	composite	5	bot	single	1	*:?	Poisson(30s)	StartAt=35s,N=30-50,AppsWithWeights=hello/1;sser/1,RunTimeInMinutes=5
