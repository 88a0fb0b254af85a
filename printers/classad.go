package printers

import (
	"io"
	"strconv"

	"github.com/gmark/gmark/workload"
)

// classadPrinter writes an HTCondor submit description, the ClassAd JDF of
// GrenchMark's Condor experiments.
//
// A job of one processor runs in the vanilla universe. Any other job (a
// component of several processors, or several components) runs in the
// parallel universe with machine_count = the job's total processors and one
// CPU per slot, all slots started together; each slot writes its own output,
// <id>.<node>.out. HTCondor cannot place the parts of one parallel job on
// different pools, so the components become one gang of slots.
//
// The program runs as "<Executable> app <name> <args…>", with arguments in
// HTCondor's new quoted syntax. The executable is not transferred: set
// Config.Executable to the path the execute machines have it at. The job's
// gmark id is in the job ad (+GmarkJobId) for condor_q and condor_history
// constraints, and in the environment. In the parallel universe HTCondor
// tells each node its place (_CONDOR_PROCNO, 0 to machine_count−1, and
// _CONDOR_NPROCS), which is the process's global rank: the components are
// one gang, numbered in order. The environment adds GMARK_SIZE =
// machine_count, so that the size holds whatever starts the program on a
// node. A wall time becomes a periodic_remove
// on the time spent running, in seconds, rounded up. When the components name
// exactly one site, requirements ask for machines advertising
// GmarkSite = "<site>" (a STARTD_ATTRS attribute the pool defines); when
// they name several, no single submit description can say so and a comment
// line tells why there are no requirements.
type classadPrinter struct{}

func init() { Register(classadPrinter{}) }

func (classadPrinter) Name() string    { return "classad" }
func (classadPrinter) Ext() string     { return "sub" }
func (classadPrinter) Composite() bool { return false }
func (classadPrinter) Describe() string {
	return "HTCondor submit description (vanilla, or parallel universe for multi-processor jobs)"
}
func (classadPrinter) Comment(text string) string { return "# " + text + "\n" }

func (classadPrinter) Print(w io.Writer, j *workload.Job, cfg Config) error {
	return printWith(w, j, cfg, func(b []byte, j *workload.Job, cfg Config) ([]byte, error) {
		return appendSubmitDescription(b, j, cfg, "")
	})
}

// appendSubmitDescription writes the submit description of a unitary job,
// each line starting with indent (DAGMan indents the ones it inlines).
func appendSubmitDescription(b []byte, j *workload.Job, cfg Config, indent string) ([]byte, error) {
	if err := checkUnitary("classad", j); err != nil {
		return b, err
	}
	procs := j.Processors()
	parallel := procs > 1 || len(j.Components) > 1
	site, note := batchSite(j)
	if note != "" {
		b = append(b, indent...)
		b = append(b, "# "...)
		b = append(b, note...)
		b = append(b, '\n')
	}
	b = appendSubmitKey(b, indent, "universe")
	if parallel {
		b = append(b, "parallel\n"...)
	} else {
		b = append(b, "vanilla\n"...)
	}
	b = appendSubmitKey(b, indent, "executable")
	b = appendCondorMacroSafe(b, cfg.Executable)
	b = appendSubmitKey(b, indent, "transfer_executable")
	b = append(b, "false"...)
	b = appendSubmitKey(b, indent, "arguments")
	b = append(b, '"')
	for i, w := range commandLine(j, cfg)[1:] {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendCondorArg(b, w)
	}
	b = append(b, '"')
	b = appendSubmitKey(b, indent, "initialdir")
	b = appendCondorMacroSafe(b, cfg.WorkDir)
	// In the parallel universe every slot writes its own output, told apart
	// by the node number condor_submit substitutes for $(Node).
	outSuffix, errSuffix := ".out", ".err"
	if parallel {
		outSuffix, errSuffix = ".$(Node).out", ".$(Node).err"
	}
	b = appendSubmitKey(b, indent, "output")
	b = appendCondorMacroSafe(b, j.ID)
	b = append(b, outSuffix...)
	b = appendSubmitKey(b, indent, "error")
	b = appendCondorMacroSafe(b, j.ID)
	b = append(b, errSuffix...)
	b = appendSubmitKey(b, indent, "log")
	b = appendCondorMacroSafe(b, logName(j.ID))
	if parallel {
		b = appendSubmitKey(b, indent, "machine_count")
		b = strconv.AppendInt(b, int64(procs), 10)
	}
	b = appendSubmitKey(b, indent, "request_cpus")
	b = append(b, '1')
	if site != "" {
		b = appendSubmitKey(b, indent, "requirements")
		b = append(b, "(TARGET.GmarkSite == "...)
		b = appendClassAdString(b, site)
		b = append(b, ')')
	}
	b = appendSubmitKey(b, indent, "environment")
	b = append(b, '"')
	b = appendCondorArg(b, JobIDEnv+"="+j.ID)
	if parallel {
		b = append(b, ' ')
		b = appendCondorArg(b, sizeEnv+"="+strconv.Itoa(procs))
	}
	b = append(b, '"')
	b = appendSubmitKey(b, indent, "+GmarkJobId")
	b = appendClassAdString(b, j.ID)
	if j.WallTime > 0 {
		b = appendSubmitKey(b, indent, "periodic_remove")
		b = append(b, "(JobStatus == 2) && (time() - EnteredCurrentStatus > "...)
		b = strconv.AppendInt(b, wallSeconds(j.WallTime), 10)
		b = append(b, ')')
	}
	b = append(b, '\n')
	b = append(b, indent...)
	b = append(b, "queue\n"...)
	return b, nil
}

// appendSubmitKey ends the previous line, if any, and starts "key = ".
func appendSubmitKey(b []byte, indent, key string) []byte {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	b = append(b, indent...)
	b = append(b, key...)
	return append(b, " = "...)
}
