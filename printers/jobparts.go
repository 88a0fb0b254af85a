package printers

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/workload"
)

// The facts about a job that every format writes, computed one way so the
// formats agree with each other.

// JobIDEnv is the environment variable through which every job learns its
// gmark job id, whatever the format; the applications report under it.
const JobIDEnv = "GMARK_JOB_ID"

// The variables through which a job's processes learn their global rank
// and the job's size where the system that starts them does not say it all
// (apps/jobenv reads them): the job's processes, all components together;
// the global rank of a component's first process; a process's rank within
// its component, for scripts that start the processes themselves; and a
// process's component, where a job's components are jobs of their own
// (the requests of a CE, printed by PrintComponent).
const (
	sizeEnv      = "GMARK_SIZE"
	rankBaseEnv  = "GMARK_RANK_BASE"
	localRankEnv = "GMARK_LOCAL_RANK"
	componentEnv = "GMARK_COMPONENT"
)

// commandLine is what a job runs: cfg.Executable, then "app", the
// application name and the application's arguments.
func commandLine(j *workload.Job, cfg Config) []string {
	args := j.App.Args()
	words := make([]string, 0, 3+len(args))
	words = append(words, cfg.Executable, "app", j.App.Name)
	return append(words, args...)
}

// appendShellCommand appends the command line as shell words separated by
// spaces.
func appendShellCommand(b []byte, j *workload.Job, cfg Config) []byte {
	for i, w := range commandLine(j, cfg) {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendShellWord(b, w)
	}
	return b
}

// Output file names, relative to the job's working directory. Components of
// a co-allocated job that write separately get their index in the name.
func stdoutName(id string) string { return id + ".out" }
func stderrName(id string) string { return id + ".err" }
func logName(id string) string    { return id + ".log" }
func componentName(id string, i int) string {
	return id + "." + strconv.Itoa(i)
}

// workPath is a file name joined to the working directory, for formats whose
// output paths are not resolved against the job's working directory.
func workPath(cfg Config, name string) string { return path.Join(cfg.WorkDir, name) }

// isMPIApp tells the applications that are MPI programs (GrenchMark's smpi,
// named smpi1 in its WDL) and so need an MPI job type even on one processor.
func isMPIApp(name string) bool { return name == "smpi" || name == "smpi1" }

// wallMinutes is the wall time in whole minutes, rounded up, the unit of
// RSL's maxWallTime: a job is never given less time than it asked for.
func wallMinutes(d time.Duration) int64 {
	return int64((d + time.Minute - 1) / time.Minute)
}

// wallSeconds is the wall time in whole seconds, rounded up.
func wallSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

// appendHMS appends the wall time as H:MM:SS, rounded up to the second, the
// form SGE's h_rt, PBS's walltime and Slurm's --time all accept (hours may
// exceed 24).
func appendHMS(b []byte, d time.Duration) []byte {
	s := wallSeconds(d)
	b = strconv.AppendInt(b, s/3600, 10)
	b = append(b, ':', byte('0'+s/60%60/10), byte('0'+s/60%10), ':', byte('0'+s%60/10), byte('0'+s%10))
	return b
}

// namedSites lists the distinct sites the components of j name (those that
// are not workload.AnySite), in component order.
func namedSites(j *workload.Job) []string {
	var sites []string
	for _, c := range j.Components {
		if c.Site == workload.AnySite || c.Site == "" {
			continue
		}
		seen := false
		for _, s := range sites {
			if s == c.Site {
				seen = true
				break
			}
		}
		if !seen {
			sites = append(sites, c.Site)
		}
	}
	return sites
}

// batchSite is the one place a single batch script can send the whole job:
// the site its components name, if they name exactly one. A batch system runs
// one job on one cluster, so the components that name no site go there too,
// which satisfies both fixed and non-fixed components. When the components
// name several sites no single script can honour them; note then explains
// why the script names none, for a comment line.
func batchSite(j *workload.Job) (site, note string) {
	sites := namedSites(j)
	switch len(sites) {
	case 0:
		return "", ""
	case 1:
		return sites[0], ""
	}
	return "", fmt.Sprintf("gmark: the components ask for different sites (%s); one batch job runs on one cluster, so none is named here", strings.Join(sites, ", "))
}

// KOALA request types, as written in KOALA JDFs; see koalaRequestType.
const (
	KoalaFixed     = "fixed"
	KoalaNonFixed  = "nonfixed"
	KoalaSemiFixed = "semifixed"
	KoalaFlexible  = "flexible"
)

// koalaRequestType maps GrenchMark's site type to the KOALA request type. A
// single-component job is fixed when its component names a site; a job with
// no site type gets the type its components imply.
func koalaRequestType(j *workload.Job) string {
	switch j.SiteType {
	case workload.Ordered:
		return KoalaFixed
	case workload.Unordered:
		return KoalaNonFixed
	case workload.SemiOrdered:
		return KoalaSemiFixed
	case workload.Flexible:
		return KoalaFlexible
	}
	named := 0
	for _, c := range j.Components {
		if c.Site != workload.AnySite && c.Site != "" {
			named++
		}
	}
	switch named {
	case 0:
		return KoalaNonFixed
	case len(j.Components):
		return KoalaFixed
	}
	return KoalaSemiFixed
}
