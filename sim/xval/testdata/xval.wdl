# File-type: text/wl-spec
# File-version: 1.1
#
# The cross-validation workload (docs/sim.md): 300 rigid, non-fixed jobs of
# one component of 1 to 16 processors (mean 6.6), run times U(60s,600s)
# (mean 330 s, about 2,170 processor-seconds of work per job), Poisson
# arrivals. testdata/grid.toml does 128 processors × speed = 160 units of
# work per second, so a mean gap of G seconds offers 2,170 / (160 G) of it:
# the test's WDLs set the gap (GAP below is replaced) for ~50% and ~90%.
#
#ID	GeneratorType	NTimes	UnitType	SiteType	Total	SiteInfo	ArrivalTimeDistr	OtherInfo
1	unitary	300	swf	unordered	?	-	Poisson(GAP)	NComponentsWithWeights=1,ComponentSizeWithWeights=1;2;4;8;16,RunTime=U(60s,600s),RunTimeInMinutes=30
