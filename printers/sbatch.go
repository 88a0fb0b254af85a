package printers

import (
	"io"
	"strconv"
	"time"

	"github.com/gmark/gmark/workload"
)

// sbatchPrinter writes a Slurm batch script for sbatch.
//
// The job is named gmark-<id> and carries --comment=gmark:<id>, which the
// submitter uses to find it again in squeue and in the job completion log;
// the script exports GMARK_JOB_ID=<id> before it runs the program. --time is
// the wall time in minutes, or H:MM:SS when it is not a whole number of
// minutes (rounded up to the second). Output paths are relative to --chdir,
// which is Config.WorkDir. With Config.HoldUntil, the script waits for that
// file before it starts the program (a claimed component holding its
// processors).
//
// A job of one component, or whose components all name the same site, is a
// plain job with --ntasks = its total processors; it runs its program with
// exec on one processor and with srun otherwise. Any other co-allocated job
// is a heterogeneous job: one component per job component, separated by
// "#SBATCH hetjob" lines, each with its own --ntasks, and one
// "srun --het-group=0-N" that starts the program on all of them at once, in
// one MPI_COMM_WORLD (as DUROC did): srun numbers their tasks through the
// components (SLURM_PROCID, the global rank), and the script exports
// GMARK_SIZE = the total processors. (A plain job's srun says the size
// itself, SLURM_NTASKS, and a one-component script exports nothing more,
// so that what a submitter passes with sbatch --export stands.) Slurm runs
// a heterogeneous job on one cluster: --clusters, given in the first
// component, is inherited by the others. It names the site when the components name exactly one; when they
// name several, a "# gmark:" comment says so and no cluster is named, since
// no single Slurm job can span clusters (co-allocate across them with the
// koala target).
//
// A job with a start deadline (workload.Job.Deadline, R after its
// submission) gets --begin=now+R: it may not start before its deadline,
// as a co-allocated job of Ballier et al. starts at its deadline, not
// earlier. With a wall time it also gets --deadline=now+(R+T+S), T being
// the --time limit in seconds and S = SlurmDeadlineSlack: Slurm's
// --deadline bounds the end (it removes a job that cannot end by then,
// start > deadline − time), so a job that has not started S after R is
// removed, as the paper fails a job not started at its deadline. The
// slack is there because Slurm starts a job that became eligible at its
// --begin time only at its next scheduling pass: with none, a job that
// could start at its deadline is removed (on a test controller the pass
// came 26 s after the begin time). Without a wall time no end bound
// expresses the start deadline, and a "# gmark:" comment says so. R is
// rounded up to the second (now+ counts whole seconds), and a deadline
// that had passed at the submission is now (R = 0). The scripts the
// bundled core submits for the components it claims carry no deadline:
// the core enforces it itself.
type sbatchPrinter struct{}

func init() { Register(sbatchPrinter{}) }

func (sbatchPrinter) Name() string    { return "sbatch" }
func (sbatchPrinter) Ext() string     { return "sbatch" }
func (sbatchPrinter) Composite() bool { return false }
func (sbatchPrinter) Describe() string {
	return "Slurm batch script; co-allocated jobs as heterogeneous jobs"
}
func (sbatchPrinter) Comment(text string) string { return "# " + text + "\n" }

func (sbatchPrinter) Print(w io.Writer, j *workload.Job, cfg Config) error {
	return printWith(w, j, cfg, appendSbatch)
}

func appendSbatch(b []byte, j *workload.Job, cfg Config) ([]byte, error) {
	if err := checkUnitary("sbatch", j); err != nil {
		return b, err
	}
	site, note := batchSite(j)
	hetero := len(j.Components) > 1 && !(len(namedSites(j)) == 1 && allNamed(j))
	b = append(b, "#!/bin/sh\n"...)
	if note != "" {
		b = append(b, "# "...)
		b = append(b, note...)
		b = append(b, '\n')
	}
	b = appendSbatchOption(b, "job-name", "gmark-"+j.ID)
	b = appendSbatchOption(b, "comment", "gmark:"+j.ID)
	if j.WallTime > 0 {
		b = append(b, "#SBATCH --time="...)
		if j.WallTime%time.Minute == 0 {
			b = strconv.AppendInt(b, wallMinutes(j.WallTime), 10)
		} else {
			b = appendHMS(b, j.WallTime)
		}
		b = append(b, '\n')
	}
	if j.Deadline > 0 {
		b = appendSbatchDeadline(b, j)
	}
	b = appendSbatchOption(b, "chdir", cfg.WorkDir)
	b = appendSbatchOption(b, "output", slurmFilename(stdoutName(j.ID)))
	b = appendSbatchOption(b, "error", slurmFilename(stderrName(j.ID)))
	if site != "" {
		b = appendSbatchOption(b, "clusters", site)
	}
	if !hetero {
		b = append(b, "#SBATCH --ntasks="...)
		b = strconv.AppendInt(b, int64(j.Processors()), 10)
		b = append(b, '\n')
	} else {
		for i, c := range j.Components {
			if i > 0 {
				b = append(b, "#SBATCH hetjob\n"...)
			}
			b = append(b, "#SBATCH --ntasks="...)
			b = strconv.AppendInt(b, int64(c.Count), 10)
			b = append(b, '\n')
		}
	}
	b = append(b, "export "+JobIDEnv+"="...)
	b = appendShellWord(b, j.ID)
	b = append(b, '\n')
	if cfg.HoldUntil != "" {
		b = append(b, "# gmark: hold the claimed processors until every component has started\nwhile [ ! -e "...)
		b = appendShellWord(b, cfg.HoldUntil)
		b = append(b, " ]; do sleep 0.2; done\n"...)
	}
	if hetero {
		// srun numbers the tasks of a heterogeneous step across its
		// components (one SLURM_PROCID space, as one MPI_COMM_WORLD); the
		// job's size is said outright, whatever SLURM_NTASKS holds there.
		b = append(b, "export "+sizeEnv+"="...)
		b = strconv.AppendInt(b, int64(j.Processors()), 10)
		b = append(b, '\n')
	}
	switch {
	case hetero:
		b = append(b, "srun --het-group=0-"...)
		b = strconv.AppendInt(b, int64(len(j.Components)-1), 10)
		b = append(b, ' ')
	case j.Processors() > 1:
		b = append(b, "srun "...)
	default:
		b = append(b, "exec "...)
	}
	b = appendShellCommand(b, j, cfg)
	return append(b, '\n'), nil
}

// allNamed reports whether every component of j names a site.
func allNamed(j *workload.Job) bool {
	for _, c := range j.Components {
		if c.Site == workload.AnySite || c.Site == "" {
			return false
		}
	}
	return true
}

func appendSbatchOption(b []byte, option, value string) []byte {
	b = append(b, "#SBATCH --"...)
	b = append(b, option...)
	b = append(b, '=')
	b = appendSbatchValue(b, value)
	return append(b, '\n')
}

// SlurmDeadlineSlack is how late after its start deadline a job printed
// for sbatch may start: Slurm's default scheduling interval (sched_interval,
// 60 s), the longest a job eligible at its --begin time may wait for a
// scheduling pass.
const SlurmDeadlineSlack = time.Minute

// appendSbatchDeadline writes a job's start deadline as --begin and, with a
// wall time, --deadline (see sbatchPrinter).
func appendSbatchDeadline(b []byte, j *workload.Job) []byte {
	rel := wallSeconds(max(0, j.Deadline-j.Submit))
	b = append(b, "#SBATCH --begin=now+"...)
	b = strconv.AppendInt(b, rel, 10)
	b = append(b, '\n')
	if j.WallTime <= 0 {
		return append(b, "# gmark: the start deadline needs a wall time to become --deadline (Slurm's deadline bounds the end); only --begin is given\n"...)
	}
	limit := wallSeconds(j.WallTime)
	if j.WallTime%time.Minute == 0 {
		limit = 60 * wallMinutes(j.WallTime)
	}
	b = append(b, "#SBATCH --deadline=now+"...)
	b = strconv.AppendInt(b, rel+limit+int64(SlurmDeadlineSlack/time.Second), 10)
	return append(b, '\n')
}
