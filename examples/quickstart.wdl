# File-type: text/wl-spec
# File-version: 1.1
#
# The quick start: about a minute of mixed work on the DAS-2 grid of
# examples/das2.toml, run by `gmark run examples/quickstart.wdl` on the bundled
# scheduler in this process.
#  1. single-site jobs of 1-8 processors;
#  2. co-allocated jobs: 2 or 3 components of 4 or 8 processors on any clusters,
#     each reading a 2 GB file (about 17 s to move it at 1 Gbit/s: the claimer
#     claims processors as the file arrives);
#  3. fixed co-allocated jobs naming their clusters;
#  4. composite jobs: small chains and fork/joins of short tasks.
# Jobs run the swf application, which holds its processors for the job's run
# time; the scheduler emulates them. Every arrival falls in the first 40 s.
#
# Expected run time: about 65 s at --speedup 1 (the default), the last jobs
# ending some 30 s after the last arrival.
#
#ID	GeneratorType	NTimes	UnitType	SiteType	Total	SiteInfo	ArrivalTimeDistr	OtherInfo
1	unitary	30	swf	single	?	*:?	Poisson(1.2s)	TotalCPUsWithWeights=1;2;4;8,RunTime=U(5s,20s),RunTimeInMinutes=5
2	unitary	12	swf	unordered	?	-	Poisson(2.5s)	StartAt=2s,NComponentsWithWeights=2;3,ComponentSizeWithWeights=4;8,RunTime=U(5s,15s),RunTimeInMinutes=5,InputFilesWithWeights=file-2g:2GB
3	unitary	6	swf	ordered	8	fs0:4,fs3:4	Poisson(5s)	StartAt=4s,RunTime=U(5s,10s),RunTimeInMinutes=5
4	composite	4	chain	single	1	*:?	Poisson(8s)	StartAt=3s,N=3-5,AppsWithWeights=swf,RunTime=U(2s,5s),RunTimeInMinutes=5
5	composite	4	forkjoin	single	2	*:?	Poisson(8s)	StartAt=6s,N=6-8,L=5,AppsWithWeights=swf,RunTime=U(2s,5s),RunTimeInMinutes=5
