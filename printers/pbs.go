package printers

import (
	"io"
	"path"
	"strconv"

	"github.com/gmark/gmark/workload"
)

// pbsPrinter writes a PBS batch script for qsub, in the dialect of PBS
// Professional and OpenPBS (resources as -l select chunks).
//
// The job is named gmark-<id> (characters PBS rejects become '_'), runs
// under /bin/sh, asks for one chunk of one CPU per processor
// (-l select=N:ncpus=1:mpiprocs=1, so the scheduler may spread them over
// nodes) and for its wall time (-l walltime=H:MM:SS, rounded up to the
// second). PBS starts a job in the home directory, so the script first
// changes to Config.WorkDir (relative to the submission directory,
// $PBS_O_WORKDIR, unless absolute); -o and -e name <id>.out and <id>.err in
// that directory. A job of more than one processor starts its program with
// "mpiexec -n N". As for SGE, the job asks for the queue named by its
// components' site when they name exactly one (-q SITE), names none
// otherwise, and exports GMARK_JOB_ID=<id> before it runs the program; ids,
// sites and directories that a "#PBS" line cannot carry are refused.
type pbsPrinter struct{}

func init() { Register(pbsPrinter{}) }

func (pbsPrinter) Name() string               { return "pbs" }
func (pbsPrinter) Ext() string                { return "pbs" }
func (pbsPrinter) Composite() bool            { return false }
func (pbsPrinter) Describe() string           { return "PBS Professional / OpenPBS batch script for qsub" }
func (pbsPrinter) Comment(text string) string { return "# " + text + "\n" }

func (pbsPrinter) Print(w io.Writer, j *workload.Job, cfg Config) error {
	return printWith(w, j, cfg, appendPBS)
}

func appendPBS(b []byte, j *workload.Job, cfg Config) ([]byte, error) {
	b, site, err := appendBatchHeader(b, "pbs", j, cfg)
	if err != nil {
		return b, err
	}
	b = appendDirective(b, "#PBS -N ", batchJobName(j.ID))
	b = append(b, "#PBS -S /bin/sh\n#PBS -l select="...)
	b = strconv.AppendInt(b, int64(j.Processors()), 10)
	b = append(b, ":ncpus=1:mpiprocs=1\n"...)
	if j.WallTime > 0 {
		b = append(b, "#PBS -l walltime="...)
		b = appendHMS(b, j.WallTime)
		b = append(b, '\n')
	}
	b = appendDirective(b, "#PBS -o ", workPath(cfg, stdoutName(j.ID)))
	b = appendDirective(b, "#PBS -e ", workPath(cfg, stderrName(j.ID)))
	if site != "" {
		b = appendDirective(b, "#PBS -q ", site)
	}
	b = append(b, "cd "...)
	switch {
	case path.IsAbs(cfg.WorkDir):
		b = appendShellWord(b, cfg.WorkDir)
	case cfg.WorkDir == ".":
		b = append(b, `"$PBS_O_WORKDIR"`...)
	default:
		b = append(b, `"$PBS_O_WORKDIR"/`...)
		b = appendShellWord(b, cfg.WorkDir)
	}
	b = append(b, " || exit 1\n"...)
	return appendBatchCommand(b, j, cfg, "pbs"), nil
}
