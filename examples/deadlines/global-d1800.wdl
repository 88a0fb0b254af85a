# File-type: text/wl-spec
# File-version: 1.1
#
# Ballier et al.'s global jobs (RR-5815, 2006, §3.1) for the figure
# experiments of examples/deadlines/ (docs/deadlines.md): co-allocated jobs
# with a hard start deadline 1800 s after their submission (Figs. 5-6: the deadline fixed).
#  - 2, 3 or 4 components (the paper: N_c uniform on [2, 4]);
#  - component sizes from the paper's RSD[4,32] with q = 0.9, as a weighted
#    list of its 29 sizes (stats.RSDWeights(4, 32, 0.9): q^(s-1), powers of
#    two three times as likely; mean 10.4437, the paper's 10.44);
#  - run times exponential with a mean of 200 s (mu_g = 0.005);
#  - Poisson arrivals: the experiments scale the submit times so that the
#    offered global load is each level (U_g), so the mean gap here is only the
#    shape (the paper's 20% needs lambda_g = 0.004085/s, a gap of 244.8 s).
# 1,500 jobs: about 4 days of submissions at U_g = 20%.
#ID	GeneratorType	NTimes	UnitType	SiteType	Total	SiteInfo	ArrivalTimeDistr	OtherInfo
1	unitary	1500	swf	unordered	?	-	Poisson(245s)	NComponentsWithWeights=2;3;4,ComponentSizeWithWeights=4/1.9683;5/0.59049;6/0.531441;7/0.478297;8/1.2914;9/0.38742;10/0.348678;11/0.313811;12/0.28243;13/0.254187;14/0.228768;15/0.205891;16/0.555906;17/0.166772;18/0.150095;19/0.135085;20/0.121577;21/0.109419;22/0.0984771;23/0.0886294;24/0.0797664;25/0.0717898;26/0.0646108;27/0.0581497;28/0.0523348;29/0.0471013;30/0.0423912;31/0.038152;32/0.103011,RunTime=Exp(0.005),RunTimeInMinutes=600,Deadline=C(1800s)
