# File-type: text/wl-spec
# File-version: 1.1
#
# A KOALA W30-like co-allocation workload (Mohamed's thesis, Section 5.1.2): 200
# jobs on the five DAS-2 clusters (fs0..fs4, 144+56+56+64+64 = 384 processors),
# offering about 30% of the system.
#  - 1, 2 or 4 components of equal size, 8 or 16 processors each (job size 8..64),
#    all (count, size) pairs equally likely;
#  - every component reads the same input file of 2, 4 or 6 GB (replicas live in
#    the grid description, e.g. examples/das2.toml);
#  - mean run time 192 s with components of 8 processors and 90 s with 16;
#  - Poisson arrivals: the mean job holds 3472 processor-seconds, so 30% of 384
#    processors is one job every 30.1 s. Each of the two units below makes half
#    the jobs, at half that rate.
# Jobs are non-fixed (the scheduler places every component). They run the swf
# application, which holds its processors for the job's run time, so the
# workload runs the same on real processes and on an emulating scheduler.
#
# Expected run time: the arrivals span about 100 minutes and the last job ends
# some 105 minutes in; `gmark run examples/koala-w30.wdl --speedup 100` (the
# bundled scheduler on examples/das2.toml) takes about 65 s.
#
#ID	GeneratorType	NTimes	UnitType	SiteType	Total	SiteInfo	ArrivalTimeDistr	OtherInfo
1	unitary	100	swf	unordered	?	-	Poisson(60.2s)	NComponentsWithWeights=1;2;4,ComponentSizeWithWeights=8,RunTime=U(144s,240s),RunTimeInMinutes=15,InputFilesWithWeights=file-2g:2GB;file-4g:4GB;file-6g:6GB
2	unitary	100	swf	unordered	?	-	Poisson(60.2s)	NComponentsWithWeights=1;2;4,ComponentSizeWithWeights=16,RunTime=U(60s,120s),RunTimeInMinutes=15,InputFilesWithWeights=file-2g:2GB;file-4g:4GB;file-6g:6GB
