package printers

import (
	"io"
	"strconv"
	"strings"

	"github.com/gmark/gmark/workload"
)

// rslPrinter writes Globus GRAM RSL, the JDF of GrenchMark's Globus and KOALA
// experiments. A job with one component is a single request:
//
//	& (count=1)
//	  (jobType=single)
//	  (executable="gmark")
//	  (arguments="app" "sser" "--n" "5")
//	  …
//
// A co-allocated job is a DUROC multi-request, one "&" subrequest per
// component, each with its own count, label "subjob <i>",
// GLOBUS_DUROC_SUBJOB_INDEX and, when the component names a site, its
// resourceManagerContact:
//
//	+
//	( &(label="subjob 0")
//	   (count=4)
//	   …
//	)
//	( &(resourceManagerContact="fs2")
//	   (label="subjob 1")
//	   …
//	)
//
// Every request has, in this order: resourceManagerContact (if its site is
// named), label (subrequests only), count, jobType, executable, arguments,
// directory, stdout, stderr, maxWallTime (if the job has a wall time) and
// environment, which holds GMARK_JOB_ID (and, in a subrequest,
// GLOBUS_DUROC_SUBJOB_INDEX). Each relation sits on its own line;
// strings are always quoted ("…", an embedded quote doubled), numbers and
// keywords never, so the output reads back with any RSL parser. maxWallTime
// is in minutes, rounded up; jobType is mpi for MPI applications, multiple
// for other components of more than one processor, else single. stdout and stderr are
// relative to directory, which is Config.WorkDir; subrequests write
// <id>.<i>.out and <id>.<i>.err. Input files are not written: GRAM stages
// files by URL, and the job model knows only logical names (see koala).
//
// Ranks: the processes of a job of more than one processor share one rank
// space, 0 to P−1 through the components in order. GRAM's mpirun numbers
// the processes of each request from 0; the environment adds what it does
// not say: GMARK_SIZE, the job's P, and in a subrequest GMARK_RANK_BASE, the
// sum of the earlier components' counts, so that a process's rank is
// GMARK_RANK_BASE plus its rank within the request (apps/jobenv). These are
// written for MPI applications (jobType=mpi) and for jobs whose requests
// have count 1 each; the count copies of a jobType=multiple request are not
// told apart by GRAM and stay independent processes of rank 0 of 1.
type rslPrinter struct{}

func init() { Register(rslPrinter{}) }

func (rslPrinter) Name() string    { return "rsl" }
func (rslPrinter) Ext() string     { return "rsl" }
func (rslPrinter) Composite() bool { return false }
func (rslPrinter) Describe() string {
	return "Globus GRAM RSL; co-allocated jobs as a DUROC \"+\" multi-request"
}
func (rslPrinter) Comment(text string) string { return string(appendRSLComment(nil, text)) }

func (rslPrinter) Print(w io.Writer, j *workload.Job, cfg Config) error {
	return printWith(w, j, cfg, appendRSL)
}

func appendRSL(b []byte, j *workload.Job, cfg Config) ([]byte, error) {
	if err := checkUnitary("rsl", j); err != nil {
		return b, err
	}
	if len(j.Components) == 1 {
		return appendRSLSingle(b, j, cfg), nil
	}
	return appendRSLMulti(b, j, cfg, false), nil
}

// appendRSLSingle writes the plain "&" request of a one-component job.
func appendRSLSingle(b []byte, j *workload.Job, cfg Config) []byte {
	c := j.Components[0]
	const sep = "\n  "
	b = append(b, "& "...)
	if c.Site != workload.AnySite {
		b = appendRSLRelation(b, "resourceManagerContact", c.Site)
		b = append(b, sep...)
	}
	b = appendRSLInt(b, "count", int64(c.Count))
	b = append(b, sep...)
	b = appendRSLJobType(b, j, c)
	b = append(b, sep...)
	b = appendRSLProgram(b, j, cfg, commandLine(j, cfg), sep, stdoutName(j.ID), stderrName(j.ID))
	b = append(b, sep...)
	b = appendRSLJobEnv(b, j.ID)
	if rslRanked(j) && c.Count > 1 {
		b = appendRSLEnvInt(b, sizeEnv, int64(c.Count))
	}
	b = append(b, ")\n"...)
	return b
}

// appendRSLMulti writes the "+" multi-request: one subrequest per component.
// With koala set it adds the KOALA relations (see koalaPrinter).
func appendRSLMulti(b []byte, j *workload.Job, cfg Config, koala bool) []byte {
	const sep = "\n   "
	requestType := ""
	if koala {
		requestType = koalaRequestType(j)
	}
	command := commandLine(j, cfg)
	ranked := rslRanked(j) && j.Processors() > 1
	base := 0
	b = append(b, "+\n"...)
	for i, c := range j.Components {
		b = append(b, "( &"...)
		if c.Site != workload.AnySite {
			b = appendRSLRelation(b, "resourceManagerContact", c.Site)
			b = append(b, sep...)
		}
		b = append(b, `(label="subjob `...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `")`...)
		b = append(b, sep...)
		b = appendRSLInt(b, "count", int64(c.Count))
		b = append(b, sep...)
		b = appendRSLJobType(b, j, c)
		b = append(b, sep...)
		name := componentName(j.ID, i)
		b = appendRSLProgram(b, j, cfg, command, sep, stdoutName(name), stderrName(name))
		b = append(b, sep...)
		b = appendRSLJobEnv(b, j.ID)
		b = appendRSLEnvInt(b, "GLOBUS_DUROC_SUBJOB_INDEX", int64(i))
		if ranked {
			b = appendRSLEnvInt(b, sizeEnv, int64(j.Processors()))
			b = appendRSLEnvInt(b, rankBaseEnv, int64(base))
		}
		base += c.Count
		b = append(b, ')')
		if koala {
			b = append(b, sep...)
			b = append(b, "(koalaRequestType="...)
			b = append(b, requestType...)
			b = append(b, ')')
			if len(j.Files) > 0 {
				b = append(b, sep...)
				b = appendKoalaFiles(b, j.Files)
			}
		}
		b = append(b, "\n)\n"...)
	}
	return b
}

// appendRSLProgram writes the relations every request has, one per line:
// executable, arguments, directory, stdout, stderr and maxWallTime.
func appendRSLProgram(b []byte, j *workload.Job, cfg Config, command []string, sep, stdout, stderr string) []byte {
	b = appendRSLRelation(b, "executable", command[0])
	b = append(b, sep...)
	b = append(b, "(arguments="...)
	for i, w := range command[1:] {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendRSLString(b, w)
	}
	b = append(b, ')')
	b = append(b, sep...)
	b = appendRSLRelation(b, "directory", cfg.WorkDir)
	b = append(b, sep...)
	b = appendRSLRelation(b, "stdout", stdout)
	b = append(b, sep...)
	b = appendRSLRelation(b, "stderr", stderr)
	if j.WallTime > 0 {
		b = append(b, sep...)
		b = appendRSLInt(b, "maxWallTime", wallMinutes(j.WallTime))
	}
	return b
}

func appendRSLRelation(b []byte, attr, value string) []byte {
	b = append(b, '(')
	b = append(b, attr...)
	b = append(b, '=')
	b = appendRSLString(b, value)
	return append(b, ')')
}

func appendRSLInt(b []byte, attr string, n int64) []byte {
	b = append(b, '(')
	b = append(b, attr...)
	b = append(b, '=')
	b = strconv.AppendInt(b, n, 10)
	return append(b, ')')
}

// appendRSLJobType: GRAM starts count copies of a program with
// jobType=multiple, and one MPI program on count processors with
// jobType=mpi.
func appendRSLJobType(b []byte, j *workload.Job, c workload.Component) []byte {
	switch {
	case isMPIApp(j.App.Name):
		return append(b, "(jobType=mpi)"...)
	case c.Count > 1:
		return append(b, "(jobType=multiple)"...)
	}
	return append(b, "(jobType=single)"...)
}

// appendRSLJobEnv appends the start of an environment relation that gives
// the job its id, "(environment=(GMARK_JOB_ID id)"; the caller adds more
// pairs and closes it.
func appendRSLJobEnv(b []byte, id string) []byte {
	b = append(b, "(environment=("...)
	b = append(b, JobIDEnv...)
	b = append(b, ' ')
	b = appendRSLString(b, id)
	return append(b, ')')
}

// appendRSLEnvInt appends one more pair " (NAME n)" to an environment
// relation.
func appendRSLEnvInt(b []byte, name string, n int64) []byte {
	b = append(b, " ("...)
	b = append(b, name...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, n, 10)
	return append(b, ')')
}

// rslRanked reports whether GRAM gives every process of j a distinct rank
// within its request, so that the job's size and each component's first
// global rank can be written: jobType=mpi runs count processes under
// mpirun, which numbers them (PMI_RANK, OMPI_COMM_WORLD_RANK), and a
// request of count 1 has the one process, rank 0. jobType=multiple starts
// count copies that GRAM does not tell apart: such a job's processes stay
// each rank 0 of 1, as independent copies.
func rslRanked(j *workload.Job) bool {
	if isMPIApp(j.App.Name) {
		return true
	}
	for _, c := range j.Components {
		if c.Count > 1 {
			return false
		}
	}
	return true
}

// PrintComponent writes component i of j as a request of its own for a
// GRAM5 job manager, which co-allocates nothing (DUROC is gone): the
// subrequest without DUROC's label and resourceManagerContact, with
// GMARK_COMPONENT for GLOBUS_DUROC_SUBJOB_INDEX, named by Config.Name, in
// Config.Queue. Its jobType is single with the component's count: the job
// manager asks its LRM for count processors and starts /bin/sh once, with
// a script (in its arguments, the program's words after it) that holds
// until Config.HoldUntil exists, when set; runs the program, or for
// count > 1 starts count processes with GMARK_LOCAL_RANK 0 … count−1
// (mpiexec -n count where the host has one), as the batch scripts do, for
// GRAM's own ways of starting them (jobType=multiple, copies that no
// variable tells apart; jobType=mpi, the site's mpirun) do not give every
// process its rank; and says on standard error what a GRAM5 job manager
// does not report: "gmark-job v1 started=T" when it starts and
// "gmark-job v1 status=S ended=T" as its last line (T in Unix seconds, S
// the exit status, the first failed process's).
func (rslPrinter) PrintComponent(w io.Writer, j *workload.Job, i int, cfg Config) error {
	return printWith(w, j, cfg, func(b []byte, j *workload.Job, cfg Config) ([]byte, error) {
		if err := checkComponent("rsl", j, i); err != nil {
			return b, err
		}
		return appendRSLComponent(b, j, cfg, i), nil
	})
}

func appendRSLComponent(b []byte, j *workload.Job, cfg Config, i int) []byte {
	const sep = "\n  "
	c := j.Components[i]
	files := j.ID
	if len(j.Components) > 1 {
		files = componentName(j.ID, i)
	}
	if cfg.Name != "" {
		files = cfg.Name
	}
	command := append([]string{"/bin/sh", "-c", string(appendRSLLaunch(nil, cfg, c.Count)), "gmark-job"}, commandLine(j, cfg)...)
	b = append(b, "& "...)
	b = appendRSLInt(b, "count", int64(c.Count))
	b = append(b, sep...)
	b = append(b, "(jobType=single)"...)
	b = append(b, sep...)
	b = appendRSLProgram(b, j, cfg, command, sep, stdoutName(files), stderrName(files))
	if cfg.Queue != "" {
		b = append(b, sep...)
		b = appendRSLRelation(b, "queue", cfg.Queue)
	}
	b = append(b, sep...)
	b = appendRSLJobEnv(b, j.ID)
	b = appendRSLEnvInt(b, componentEnv, int64(i))
	if p := j.Processors(); p > 1 {
		b = appendRSLEnvInt(b, sizeEnv, int64(p))
		b = appendRSLEnvInt(b, rankBaseEnv, int64(rankBase(j, i)))
	}
	for _, kv := range cfg.Env {
		k, v, _ := strings.Cut(kv, "=")
		b = append(b, " ("...)
		b = append(b, k...)
		b = append(b, ' ')
		b = appendRSLString(b, v)
		b = append(b, ')')
	}
	return append(b, ")\n"...)
}

// appendRSLLaunch is the script of a component request (PrintComponent):
// report the start, hold, run the n processes, report their status.
func appendRSLLaunch(b []byte, cfg Config, n int) []byte {
	b = append(b, `echo "gmark-job v1 started=$(date +%s)" >&2; `...)
	if cfg.HoldUntil != "" {
		b = append(b, "while [ ! -e "...)
		b = appendShellWord(b, cfg.HoldUntil)
		b = append(b, " ]; do sleep 0.2; done; "...)
	}
	if n <= 1 {
		b = append(b, `"$@"; s=$?; `...)
	} else {
		count := strconv.Itoa(n)
		b = append(b, `if command -v mpiexec >/dev/null 2>&1; then mpiexec -n `+count+` "$@"; s=$?; else `+
			`pids=; trap 'kill $pids 2>/dev/null' HUP INT TERM; r=0; while [ "$r" -lt `+count+` ]; do `+
			localRankEnv+`=$r "$@" & pids="$pids $!"; r=$((r + 1)); done; s=0; `+
			`for p in $pids; do wait "$p" || { e=$?; [ "$s" -ne 0 ] || s=$e; }; done; fi; `...)
	}
	return append(b, `echo "gmark-job v1 status=$s ended=$(date +%s)" >&2; exit "$s"`...)
}
