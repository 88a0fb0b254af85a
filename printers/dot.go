package printers

import (
	"io"

	"github.com/gmark/gmark/workload"
)

// dotPrinter writes a Graphviz digraph of a composite job, to look at its
// shape (GrenchMark wrote one beside every composite structure): one node per
// task, labelled with the task id and application name, and one edge per
// dependency. A unitary job is a graph of one node. The graph is named by
// the job id; in a --single-file stream the graphs follow one another, which
// dot renders one by one.
type dotPrinter struct{}

func init() { Register(dotPrinter{}) }

func (dotPrinter) Name() string               { return "dot" }
func (dotPrinter) Ext() string                { return "dot" }
func (dotPrinter) Composite() bool            { return true }
func (dotPrinter) Describe() string           { return "Graphviz digraph of the job's tasks and dependencies" }
func (dotPrinter) Comment(text string) string { return "// " + text + "\n" }

func (dotPrinter) Print(w io.Writer, j *workload.Job, cfg Config) error {
	return printWith(w, j, cfg, appendDOT)
}

func appendDOT(b []byte, j *workload.Job, _ Config) ([]byte, error) {
	b = append(b, "digraph "...)
	b = appendDOTString(b, j.ID)
	b = append(b, " {\n"...)
	nodes := []workload.Job{*j}
	if j.Kind == workload.Composite {
		nodes = j.Tasks
	}
	for i := range nodes {
		b = append(b, '\t')
		b = appendDOTString(b, nodes[i].ID)
		b = append(b, ` [label="`...)
		b = appendDOTEscaped(b, nodes[i].ID)
		b = append(b, `\n`...) // DOT's line break in a label
		b = appendDOTEscaped(b, nodes[i].App.Name)
		b = append(b, "\"];\n"...)
	}
	for _, d := range j.Deps {
		b = append(b, '\t')
		b = appendDOTString(b, d.From)
		b = append(b, " -> "...)
		b = appendDOTString(b, d.To)
		b = append(b, ";\n"...)
	}
	return append(b, "}\n"...), nil
}
