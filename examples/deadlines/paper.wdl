# File-type: text/wl-spec
# File-version: 1.1
#
# Ballier, Caron, Epema and Mohamed, "Simulating Grid Schedulers with
# Deadlines and Co-Allocation" (INRIA RR-5815, 2006): the global
# (co-allocated) jobs of the paper's default setting, written with the
# paper's own size distribution. Where each parameter comes from (section
# numbers of the paper; docs/deadlines.md#the-papers-workload-in-the-wdl):
#  - components: N_c uniform on [2, C] with C = 4 clusters (§2.1, §3.1);
#  - component size, the same for every component of a job: the Realistic
#    Synthetic Distribution on [4, S] with S = 32 (the smallest cluster) and
#    q = 0.9 (§2.1, §3.1; Bucur and Epema, CCGrid 2003): P(s) ∝ q^s, three
#    times that for the powers of two; mean 10.44 as the paper says;
#  - run time exponential with mu_g = 0.005 /s, a mean of 200 s (§3.1);
#  - start deadline uniform on [1 s, 3599 s] after the submission (§3.2);
#  - Poisson arrivals at lambda_g = U_g · mu_g · N · C / (E[N_c] · E[S_g])
#    for the requested global load U_g = 20% (§3.1): 0.2 · 0.005 · 32 · 4 /
#    (3 · 10.4437) = 0.004085 /s, a mean gap of 244.8 s (for U_g = 40%,
#    the paper's high level: Poisson(122.4s)).
# Not in the paper: the number of jobs (300, about 20 hours of arrivals; it
# gives neither a run length nor a job count) and the seed. The local jobs
# are the grid's ([cluster.local] in examples/deadlines/grid.toml: RSD on
# [1, 32], q = 0.9, mean 100 s, 30%), not part of this workload.
#ID	GeneratorType	NTimes	UnitType	SiteType	Total	SiteInfo	ArrivalTimeDistr	OtherInfo
1	unitary	300	swf	unordered	?	-	Poisson(244.8s)	NComponentsWithWeights=2;3;4,ComponentSizeWithWeights=RSD(4,32,0.9),RunTime=Exp(0.005),Deadline=U(1s,3599s)
