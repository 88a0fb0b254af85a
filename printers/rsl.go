package printers

import (
	"io"
	"strconv"

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
