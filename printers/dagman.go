package printers

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gmark/gmark/workload"
)

// dagmanPrinter writes an HTCondor DAGMan input file for a composite job: the
// workflow form GrenchMark's later versions printed for Condor. Each task is
// one node, its submit description inlined (HTCondor 10 or later) in the form
// the classad format writes for a unitary job:
//
//	SUBMIT-DESCRIPTION submit-<task> {
//	    universe = vanilla
//	    …
//	    queue
//	}
//	JOB <task> submit-<task>
//
// then one "PARENT <from> CHILD <to>" line per dependency, in the job's
// order, and, when Config.Retries is above 0, one "RETRY <task> N" line per
// node. A unitary job is a DAG of one node named by the job id. Node names
// are the task ids, so DAGMan's own DAGNodeName attribute tells a node's
// gmark id; they must not contain blanks, which DAGMan splits at.
//
// In a --single-file stream the DAGs of all jobs follow one another; as task
// ids are unique within a workload, the stream is itself a valid DAG file.
type dagmanPrinter struct{}

func init() { Register(dagmanPrinter{}) }

func (dagmanPrinter) Name() string    { return "dagman" }
func (dagmanPrinter) Ext() string     { return "dag" }
func (dagmanPrinter) Composite() bool { return true }
func (dagmanPrinter) Describe() string {
	return "HTCondor DAGMan workflow with inline submit descriptions"
}
func (dagmanPrinter) Comment(text string) string { return "# " + text + "\n" }

func (dagmanPrinter) Print(w io.Writer, j *workload.Job, cfg Config) error {
	return printWith(w, j, cfg, appendDAGMan)
}

func appendDAGMan(b []byte, j *workload.Job, cfg Config) ([]byte, error) {
	nodes := []workload.Job{*j}
	if j.Kind == workload.Composite {
		nodes = j.Tasks
	}
	var err error
	for i := range nodes {
		t := &nodes[i]
		if strings.ContainsAny(t.ID, " \t") || t.ID == "" {
			return b, fmt.Errorf("job %s: task id %q cannot be a DAGMan node name", j.ID, t.ID)
		}
		b = append(b, "SUBMIT-DESCRIPTION submit-"...)
		b = append(b, t.ID...)
		b = append(b, " {\n"...)
		if b, err = appendSubmitDescription(b, t, cfg, "    "); err != nil {
			return b, err
		}
		b = append(b, "}\nJOB "...)
		b = append(b, t.ID...)
		b = append(b, " submit-"...)
		b = append(b, t.ID...)
		b = append(b, '\n')
	}
	for _, d := range j.Deps {
		b = append(b, "PARENT "...)
		b = append(b, d.From...)
		b = append(b, " CHILD "...)
		b = append(b, d.To...)
		b = append(b, '\n')
	}
	if cfg.Retries > 0 {
		for i := range nodes {
			b = append(b, "RETRY "...)
			b = append(b, nodes[i].ID...)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(cfg.Retries), 10)
			b = append(b, '\n')
		}
	}
	return b, nil
}
