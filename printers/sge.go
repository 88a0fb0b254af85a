package printers

import (
	"io"
	"strconv"

	"github.com/gmark/gmark/workload"
)

// sgePrinter writes a Grid Engine (SGE) batch script for qsub, as
// GrenchMark's sge-jdf printer did for its SGE experiments.
//
// The job is named gmark-<id> (characters SGE rejects become '_'), runs
// under /bin/sh in Config.WorkDir (-cwd for ".", else -wd), writes
// <id>.out and <id>.err there, and asks for its wall time as h_rt
// (H:MM:SS, rounded up to the second). A job of more than one processor asks
// for that many slots of the parallel environment "mpi" (-pe mpi N; the PE
// is the site's, by convention named so) and starts its program with
// "mpiexec -n N". Components are not told apart: a batch job runs on one
// cluster, so the job asks for the queue named by its components' site when
// they name exactly one (-q SITE), and names no queue otherwise, with a
// "# gmark:" comment when they name several. The script exports
// GMARK_JOB_ID=<id> before it runs the program.
//
// SGE splits "#$" lines at blanks and gives ':' and ',' meanings in paths,
// so a job id, site or work directory with such characters is refused with
// an error rather than written wrong.
type sgePrinter struct{}

func init() { Register(sgePrinter{}) }

func (sgePrinter) Name() string               { return "sge" }
func (sgePrinter) Ext() string                { return "sge" }
func (sgePrinter) Composite() bool            { return false }
func (sgePrinter) Describe() string           { return "Grid Engine (SGE) batch script for qsub" }
func (sgePrinter) Comment(text string) string { return "# " + text + "\n" }

func (sgePrinter) Print(w io.Writer, j *workload.Job, cfg Config) error {
	return printWith(w, j, cfg, appendSGE)
}

func appendSGE(b []byte, j *workload.Job, cfg Config) ([]byte, error) {
	b, site, err := appendBatchHeader(b, "sge", j, cfg)
	if err != nil {
		return b, err
	}
	b = appendDirective(b, "#$ -N ", batchJobName(j.ID))
	b = append(b, "#$ -S /bin/sh\n"...)
	if cfg.WorkDir == "." {
		b = append(b, "#$ -cwd\n"...)
	} else {
		b = appendDirective(b, "#$ -wd ", cfg.WorkDir)
	}
	b = appendDirective(b, "#$ -o ", stdoutName(j.ID))
	b = appendDirective(b, "#$ -e ", stderrName(j.ID))
	if j.WallTime > 0 {
		b = append(b, "#$ -l h_rt="...)
		b = appendHMS(b, j.WallTime)
		b = append(b, '\n')
	}
	if n := j.Processors(); n > 1 {
		b = append(b, "#$ -pe mpi "...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, '\n')
	}
	if site != "" {
		b = appendDirective(b, "#$ -q ", site)
	}
	return appendBatchCommand(b, j, cfg, "sge"), nil
}
