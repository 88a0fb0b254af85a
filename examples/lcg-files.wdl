# File-type: text/wl-spec
#
# Worst-Fit against Close-to-Files on a real grid trace: the busiest three
# hours of the LHC Computing Grid trace replayed on the five DAS-2 clusters,
# every job reading one input file, as in the Close-to-Files experiments of
# Mohamed's thesis (Section 5.1.2): each job needs one file of 2, 4 or 6 GB,
# all three sizes equally likely. Where the files are is the grid's: in
# examples/das2.toml each file lives at one site (the thesis's "no
# replication" case), in examples/das2-replicated.toml at three.
#
# The trace: the Parallel Workloads Archive's LCG-2005-1 (188,041 jobs, also
# trace GWA-T-11 of the Grid Workloads Archive), saved beside this file as
# LCG.swf.gz (or give its path in File=). `gmark examples write DIR` writes
# the examples out, if this copy is the one built into gmark.
#
# The replay:
#  - the three-hour window with the 90th percentile of arrivals, submitted ten
#    times faster (SubmitScale=0.1: 18 minutes);
#  - only the jobs of at most 15 minutes (MaxRunTime=15m): the DAS-2 grid
#    kills a job at its 15-minute run-time limit (max_runtime), which would
#    kill more than half of the window's jobs;
#  - no Sites= or SiteMap=: the jobs are not pinned to the trace's sites, so
#    the placement policy chooses every job's cluster. (Pinned jobs leave a
#    policy nothing to choose: WF and CF would give the same results, and
#    'gmark run' and 'gmark report --compare' say so.)
#
# Run it (in simulated time, a few seconds each):
#   gmark generate examples/lcg-files.wdl -o lcg
#   gmark koala simulate --policy WF --db lcg.db --run-id wf lcg
#   gmark koala simulate --policy CF --db lcg.db --run-id cf lcg
#   gmark report --db lcg.db --compare policy --format text
# and again with --grid examples/das2-replicated.toml. With seed 1 (both
# commands' default) the 1,819 jobs all finish, and CF reads its files more
# quickly: mean file transfer time 28.3 s under WF and 17.2 s under CF
# without replication, 11.3 s and 3.1 s with it (koala simulate's summary);
# the mean wait is 325 s and 302 s, 258 s and 203 s. Or live, on the bundled
# scheduler, in about a minute a run: gmark run examples/lcg-files.wdl
# --policy WF --speedup 50 (and --policy CF), then gmark report --db
# gmark-runs/lcg-files/results.db --compare policy.
#
#Jobs	Type	SiteType	Total	SiteInfo	ArrivalTimeDistr	OtherInfo
1	wl:trace	single	1	*:?	-	File=LCG.swf.gz,AreaWidth=3h,AreaTarget=arrivals:p90,SubmitScale=0.1,MaxRunTime=15m,InputFilesWithWeights=file-2g:2GB;file-4g:4GB;file-6g:6GB
