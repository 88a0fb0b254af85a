# File-type: text/wl-spec
# File-version: 1.1
#
# A KOALA W50-like co-allocation workload (Mohamed's thesis, Section 5.1.2): the
# job mix of examples/koala-w30.wdl (200 jobs of 1, 2 or 4 components of 8 or 16
# processors, every component reading the same 2, 4 or 6 GB file, mean run time
# 192 s with components of 8 processors and 90 s with 16) arriving fast enough
# to offer about 50% of the five DAS-2 clusters (384 processors).
#  - Poisson arrivals: the mean job holds 3472 processor-seconds, so 50% of 384
#    processors is one job every 18.1 s. Each of the two units below makes half
#    the jobs, at half that rate. The thesis's last W50 job arrived about 3900 s
#    after the first; here about 3870 s on average over seeds 1-5 (3220-4255 s),
#    the W30 spans times 36.2/60.2: the two workloads draw the same arrivals.
# The system saturates: the placement queue grows and the run ends well after
# the last arrival (docs/validation.md).
#
# Expected run time: the arrivals span about 65 minutes and the last job ends
# some 75 minutes in; `gmark run examples/koala-w50.wdl --speedup 100` (the
# bundled scheduler on examples/das2.toml) takes about 46 s.
#
#ID	GeneratorType	NTimes	UnitType	SiteType	Total	SiteInfo	ArrivalTimeDistr	OtherInfo
1	unitary	100	swf	unordered	?	-	Poisson(36.2s)	NComponentsWithWeights=1;2;4,ComponentSizeWithWeights=8,RunTime=U(144s,240s),RunTimeInMinutes=15,InputFilesWithWeights=file-2g:2GB;file-4g:4GB;file-6g:6GB
2	unitary	100	swf	unordered	?	-	Poisson(36.2s)	NComponentsWithWeights=1;2;4,ComponentSizeWithWeights=16,RunTime=U(60s,120s),RunTimeInMinutes=15,InputFilesWithWeights=file-2g:2GB;file-4g:4GB;file-6g:6GB
