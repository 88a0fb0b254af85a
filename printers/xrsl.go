package printers

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gmark/gmark/workload"
)

// xrslPrinter writes NorduGrid xRSL, the job description of ARC compute
// elements (A-REX, through arcsub or its REST interface). A job with one
// component is one request:
//
//	&(jobname="gmark-1-0")
//	 (executable="gmark")
//	 (arguments="app" "sser" "--n" "5")
//	 (count=1)
//	 (wallTime="600 seconds")
//	 (stdout="1-0.out")
//	 (stderr="1-0.err")
//	 (outputFiles=("1-0.out" "")("1-0.err" ""))
//	 (environment=("GMARK_JOB_ID" "1-0"))
//
// A co-allocated job is a "+" of one request per component: an ARC CE
// runs each as a job of its own, named gmark-<id>.c<i>, writing
// <id>.<i>.out and <id>.<i>.err; it does not start them together (the
// arc target does, holding each until all have started). Every request
// has, in this order: jobname, executable, arguments, count, wallTime (in
// seconds, the unit written out: A-REX 6.17 reads a bare number as
// seconds, where xRSL's documentation says minutes), queue (Config.Queue), stdout, stderr, inputFiles (the
// staged inputs of sserio, --input1 and --input2, each "" for a file the
// client uploads), outputFiles (stdout and stderr, which A-REX otherwise
// deletes with the session directory's other files when the job ends)
// and environment: GMARK_JOB_ID, and for a job of P > 1 processors
// GMARK_SIZE = P and, in each request of a co-allocated job,
// GMARK_COMPONENT and GMARK_RANK_BASE (the sum of the earlier components'
// counts), then Config.Env. Sites are not written: the CE a request goes
// to is the client's choice (arcsub -C, the targets file). Jobs run in
// the session directory A-REX makes for each; Config.WorkDir is not used.
//
// Processes: A-REX starts a job's executable once, on the first of its
// count slots, as a batch system starts a script. A request of one
// process runs the program itself. A request of n > 1 processes runs
// /bin/sh with a script in its arguments that starts them: mpiexec -n n
// when the host has one, else the n processes on this host with
// GMARK_LOCAL_RANK 0 … n−1, waiting for each in turn (the exit status is
// 1 when one failed). With Config.HoldUntil the script first waits for
// that file (a claimed component holding its processors).
//
// Quoting: strings are in double quotes, an embedded one doubled. ARC's
// back ends (fork, Slurm, every one built on its submit_common.sh) write
// the job's command line into the job's shell script with each argument in
// double quotes, where the shell expands $, ` and \; a job whose words
// hold one of them is refused with an error rather than run with other
// arguments than it was given, and the launch scripts are written without
// them.
type xrslPrinter struct{}

func init() { Register(xrslPrinter{}) }

func (xrslPrinter) Name() string    { return "xrsl" }
func (xrslPrinter) Ext() string     { return "xrsl" }
func (xrslPrinter) Composite() bool { return false }
func (xrslPrinter) Describe() string {
	return "NorduGrid xRSL for ARC CEs; co-allocated jobs as a \"+\" of one request per component"
}
func (xrslPrinter) Comment(text string) string { return string(appendRSLComment(nil, text)) }

func (xrslPrinter) Print(w io.Writer, j *workload.Job, cfg Config) error {
	return printWith(w, j, cfg, appendXRSL)
}

// PrintComponent writes the request of component i alone, as its own job
// (ComponentPrinter).
func (xrslPrinter) PrintComponent(w io.Writer, j *workload.Job, i int, cfg Config) error {
	return printWith(w, j, cfg, func(b []byte, j *workload.Job, cfg Config) ([]byte, error) {
		if err := checkComponent("xrsl", j, i); err != nil {
			return b, err
		}
		if err := checkXRSLWords(j, cfg); err != nil {
			return b, err
		}
		b = appendXRSLRequest(b, j, cfg, i, len(j.Components) > 1)
		return append(b, '\n'), nil
	})
}

func appendXRSL(b []byte, j *workload.Job, cfg Config) ([]byte, error) {
	if err := checkUnitary("xrsl", j); err != nil {
		return b, err
	}
	if err := checkXRSLWords(j, cfg); err != nil {
		return b, err
	}
	if len(j.Components) == 1 {
		b = appendXRSLRequest(b, j, cfg, 0, false)
		return append(b, '\n'), nil
	}
	b = append(b, "+\n"...)
	for i := range j.Components {
		b = append(b, '(')
		b = appendXRSLRequest(b, j, cfg, i, true)
		b = append(b, ")\n"...)
	}
	return b, nil
}

// xrslUnsafe are the characters ARC's back ends let the job's shell
// expand in an argument.
const xrslUnsafe = "$`\\"

// checkXRSLWords refuses a job whose command line, hold file, queue or
// environment holds a character ARC's back ends would have the shell
// expand (the environment's values pass through echo, which reads
// backslashes).
func checkXRSLWords(j *workload.Job, cfg Config) error {
	words := commandLine(j, cfg)
	words = append(words, cfg.HoldUntil, cfg.Queue, cfg.Name)
	for _, kv := range cfg.Env {
		words = append(words, kv)
	}
	for _, w := range words {
		if i := strings.IndexAny(w, xrslUnsafe); i >= 0 {
			return fmt.Errorf("job %s: %q has %q, which ARC's back ends would have the job's shell expand (they put each argument in double quotes)", j.ID, w, w[i])
		}
	}
	return nil
}

// appendXRSLRequest writes the "&" request of component i (multi: one of
// several, each run as a job of its own), without a final newline.
func appendXRSLRequest(b []byte, j *workload.Job, cfg Config, i int, multi bool) []byte {
	const sep = "\n "
	c := j.Components[i]
	name, files := "gmark-"+j.ID, j.ID
	if multi {
		name, files = name+".c"+strconv.Itoa(i), componentName(j.ID, i)
	}
	if cfg.Name != "" {
		name, files = cfg.Name, cfg.Name
	}
	b = append(b, '&')
	b = appendRSLRelation(b, "jobname", name)
	b = append(b, sep...)
	command := commandLine(j, cfg)
	if c.Count > 1 || cfg.HoldUntil != "" {
		script := appendXRSLLaunch(nil, j, cfg, c.Count)
		command = append([]string{"/bin/sh", "-c", string(script), "gmark-job"}, command...)
	}
	b = appendRSLRelation(b, "executable", command[0])
	b = append(b, sep...)
	b = appendRSLStrings(b, "arguments", command[1:])
	b = append(b, sep...)
	b = appendRSLInt(b, "count", int64(c.Count))
	if j.WallTime > 0 {
		b = append(b, sep...)
		b = appendRSLRelation(b, "wallTime", strconv.FormatInt(wallSeconds(j.WallTime), 10)+" seconds")
	}
	if cfg.Queue != "" {
		b = append(b, sep...)
		b = appendRSLRelation(b, "queue", cfg.Queue)
	}
	out, errf := stdoutName(files), stderrName(files)
	b = append(b, sep...)
	b = appendRSLRelation(b, "stdout", out)
	b = append(b, sep...)
	b = appendRSLRelation(b, "stderr", errf)
	if inputs := StagedInputs(j); len(inputs) > 0 {
		b = append(b, sep...)
		b = append(b, "(inputFiles="...)
		for _, in := range inputs {
			b = appendRSLPair(b, in, "")
		}
		b = append(b, ')')
	}
	b = append(b, sep...)
	b = append(b, "(outputFiles="...)
	b = appendRSLPair(b, out, "")
	b = appendRSLPair(b, errf, "")
	b = append(b, ')')
	b = append(b, sep...)
	b = append(b, "(environment="...)
	b = appendRSLPair(b, JobIDEnv, j.ID)
	if p := j.Processors(); p > 1 {
		b = appendRSLPair(b, sizeEnv, strconv.Itoa(p))
		if multi {
			b = appendRSLPair(b, componentEnv, strconv.Itoa(i))
			b = appendRSLPair(b, rankBaseEnv, strconv.Itoa(rankBase(j, i)))
		}
	}
	for _, kv := range cfg.Env {
		k, v, _ := strings.Cut(kv, "=")
		b = appendRSLPair(b, k, v)
	}
	return append(b, ')')
}

// appendXRSLLaunch writes the script of a request that holds (HoldUntil)
// or starts n > 1 processes, with none of the characters ARC's back ends
// expand: the processes are started one by one, each a background job the
// script waits for by its job number, and the program's words follow the
// script as its positional parameters, which the script cannot name
// without a $; so each process's command is written out in full.
func appendXRSLLaunch(b []byte, j *workload.Job, cfg Config, n int) []byte {
	if cfg.HoldUntil != "" {
		b = append(b, "while [ ! -e "...)
		b = appendShellWord(b, cfg.HoldUntil)
		b = append(b, " ]; do sleep 0.2; done; "...)
	}
	if n <= 1 {
		b = append(b, "exec "...)
		return appendShellCommand(b, j, cfg)
	}
	b = append(b, "if command -v mpiexec >/dev/null 2>&1; then exec mpiexec -n "...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ' ')
	b = appendShellCommand(b, j, cfg)
	b = append(b, "; fi; "...)
	var jobs []byte
	for r := 0; r < n; r++ {
		b = append(b, localRankEnv+"="...)
		b = strconv.AppendInt(b, int64(r), 10)
		b = append(b, ' ')
		b = appendShellCommand(b, j, cfg)
		b = append(b, " & "...)
		if r > 0 {
			jobs = append(jobs, ' ')
		}
		jobs = append(jobs, '%')
		jobs = strconv.AppendInt(jobs, int64(r+1), 10)
	}
	b = append(b, "trap 'kill "...)
	b = append(b, jobs...)
	b = append(b, " 2>/dev/null' HUP INT TERM; "...)
	for r := 0; r < n; r++ {
		if r > 0 {
			b = append(b, " && "...)
		}
		b = append(b, "wait %"...)
		b = strconv.AppendInt(b, int64(r+1), 10)
	}
	b = append(b, " || { kill "...)
	b = append(b, jobs...)
	return append(b, " 2>/dev/null; exit 1; }"...)
}

// rankBase is the global rank of component i's first process: the
// processors of the components before it.
func rankBase(j *workload.Job, i int) int {
	base := 0
	for _, c := range j.Components[:i] {
		base += c.Count
	}
	return base
}

// appendRSLStrings writes (attr="w1" "w2" …).
func appendRSLStrings(b []byte, attr string, words []string) []byte {
	b = append(b, '(')
	b = append(b, attr...)
	b = append(b, '=')
	for i, w := range words {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendRSLString(b, w)
	}
	return append(b, ')')
}

// appendRSLPair writes ("a" "b"), one element of an xRSL list.
func appendRSLPair(b []byte, a, v string) []byte {
	b = append(b, '(')
	b = appendRSLString(b, a)
	b = append(b, ' ')
	b = appendRSLString(b, v)
	return append(b, ')')
}

// sserioInputDefault is sserio's --input1 and --input2 default, in KB.
const sserioInputDefault = 64

// StagedInputs are the input files job j's application reads from its
// working directory and stages there itself when they are missing:
// sserio's --input1 and --input2 (gmark-input<i>-<KB>KB.dat, 64 KB each by
// default, none for 0). A target that runs jobs in directories of their
// own (an ARC CE's session directories) stages them as the job's input
// files, so that every job reads the same file rather than making its own.
func StagedInputs(j *workload.Job) []string {
	if j.App.Name != "sserio" {
		return nil
	}
	kb := [2]int64{sserioInputDefault, sserioInputDefault}
	for _, p := range j.App.Params {
		for i := range kb {
			if p.Key == "input"+strconv.Itoa(i+1) {
				if n, err := strconv.ParseInt(p.Value, 10, 64); err == nil {
					kb[i] = n
				}
			}
		}
	}
	var out []string
	for i, n := range kb {
		if n > 0 {
			out = append(out, InputFileName(i+1, n))
		}
	}
	return out
}

// InputFileName is sserio's name of its staged input file i (1 or 2) of kb
// KB (apps.InputName).
func InputFileName(i int, kb int64) string {
	return "gmark-input" + strconv.Itoa(i) + "-" + strconv.FormatInt(kb, 10) + "KB.dat"
}
