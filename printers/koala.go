package printers

import (
	"io"
	"strconv"

	"github.com/gmark/gmark/workload"
)

// koalaPrinter writes KOALA job description files: Globus RSL in the "+"
// multi-request form, always, even for one component, because KOALA's
// runners split every JDF into its components. The file is the rsl format's
// multi-request (see rslPrinter) with two KOALA relations added to every
// subrequest, so that each "&( … )" is complete on its own:
//
//	(koalaRequestType=fixed|nonfixed|semifixed|flexible)
//	(koalaInputFiles=("NAME" SIZE) ("NAME" SIZE) …)
//
// koalaRequestType is the job's request type (KOALA's name for GrenchMark's
// site type): ordered → fixed, unordered → nonfixed, semi-ordered →
// semifixed, flexible → flexible; a single-component job is fixed when its
// component names a site, else nonfixed. Every subrequest of a job carries
// the same value. A fixed component's cluster is its resourceManagerContact;
// a component without one is for the scheduler to place. For flexible jobs
// only the total of the counts binds the scheduler; the split given is the
// generator's suggestion.
//
// koalaInputFiles lists the job's input files by logical name (a quoted RSL
// string) and size in bytes (an integer), in the job's order. It appears only
// when the job has input files, and every component carries the whole list:
// each component reads whole files (KOALA's data model 2). Placement with the
// Close-to-Files policy and the file transfers before the start are driven by
// this list. Relation names in RSL ignore case and underscores, so a reader
// should compare them that way. The koala relations are for the scheduler:
// a runner strips them before it hands a component to GRAM, which rejects
// attributes it does not know.
//
// KOALA's JDF has no start deadline: a job that has one
// (workload.Job.Deadline) gets it in a comment before the request, which
// no reader takes. The koala target submits jobs as JSON, which carries it.
type koalaPrinter struct{}

func init() { Register(koalaPrinter{}) }

func (koalaPrinter) Name() string    { return "koala" }
func (koalaPrinter) Ext() string     { return "jdf" }
func (koalaPrinter) Composite() bool { return false }
func (koalaPrinter) Describe() string {
	return "KOALA JDF: RSL \"+\" multi-request with request type and input files"
}
func (koalaPrinter) Comment(text string) string { return string(appendRSLComment(nil, text)) }

func (koalaPrinter) Print(w io.Writer, j *workload.Job, cfg Config) error {
	return printWith(w, j, cfg, appendKoala)
}

func appendKoala(b []byte, j *workload.Job, cfg Config) ([]byte, error) {
	if err := checkUnitary("koala", j); err != nil {
		return b, err
	}
	if j.Deadline > 0 {
		b = appendRSLComment(b, deadlineNote(j))
	}
	return appendRSLMulti(b, j, cfg, true), nil
}

// deadlineNote says a job's start deadline in words, for the formats that
// cannot express it.
func deadlineNote(j *workload.Job) string {
	rel := j.Deadline - j.Submit
	return "gmark: start deadline " + string(workload.AppendSeconds(nil, j.Deadline)) + " s from the workload start (" +
		string(workload.AppendSeconds(nil, rel)) + " s after the submission); this format has no field for it"
}

func appendKoalaFiles(b []byte, files []workload.File) []byte {
	b = append(b, "(koalaInputFiles="...)
	for i, f := range files {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, '(')
		b = appendRSLString(b, f.Name)
		b = append(b, ' ')
		b = strconv.AppendInt(b, f.Size, 10)
		b = append(b, ')')
	}
	return append(b, ')')
}
