# File-type: text/wl-spec
# File-version: 1.1
#
# The workload of examples/sim/workflows.toml: composite jobs whose DAGs and
# run times are three WfFormat instances (WfCommons' JSON, in wfformat/: a
# diamond of 4 tasks on 1-4 cores, a Nextflow pipeline of 3 serial tasks, a
# Pegasus run of 2 tasks), the diamond four times side by side in each job
# (16 tasks), among serial and small parallel jobs. `gmark sim run` brings
# it to each load level by scaling the submit times.
#
#ID	GeneratorType	NTimes	UnitType	SiteType	Total	SiteInfo	ArrivalTimeDistr	OtherInfo
1	composite	60	wf:wfformat/diamond-1.5.json	single	1	*:?	Poisson(60s)	TaskScale=4,RunTimeScale=10
2	composite	60	wf:wfformat/nextflow-1.5.json	single	1	*:?	Poisson(60s)	RunTimeScale=10
3	composite	60	wf:wfformat/pegasus-1.4.json	single	1	*:?	Poisson(60s)	RunTimeScale=20
4	unitary	600	swf	single	?	*:?	Poisson(6s)	TotalCPUsWithWeights=1;1;1;2;4;8,RunTime=U(60s,1200s),RunTimeInMinutes=30
