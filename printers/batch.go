package printers

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gmark/gmark/workload"
)

// Helpers shared by the SGE and PBS scripts, whose directive lines are split
// at blanks with no quoting to rely on.

// checkDirectiveWords refuses a job whose id, site or work directory could
// not be written as one word of a "#$" or "#PBS" line.
func checkDirectiveWords(format string, j *workload.Job, cfg Config, site string) error {
	words := [...]struct{ what, s string }{{"job id", j.ID}, {"site", site}, {"work directory", cfg.WorkDir}}
	for _, w := range words {
		if i := strings.IndexFunc(w.s, notDirectiveSafe); i >= 0 {
			return fmt.Errorf("job %s: %s %q has %q, which a %s directive cannot carry", j.ID, w.what, w.s, w.s[i], format)
		}
	}
	return nil
}

// notDirectiveSafe reports characters that a batch directive would split at
// or read specially (':' is host:path and ',' a list in -o and -e).
func notDirectiveSafe(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("_@%+./=-", r)
}

func appendDirective(b []byte, prefix, value string) []byte {
	b = append(b, prefix...)
	b = append(b, value...)
	return append(b, '\n')
}

// appendBatchCommand ends a SGE or PBS script: export the gmark job id,
// then replace the shell with the program. A job of more than one processor
// exports GMARK_SIZE and starts its processes so that each learns a distinct
// rank (appendBatchLaunch).
func appendBatchCommand(b []byte, j *workload.Job, cfg Config, format string) []byte {
	b = append(b, "export "+JobIDEnv+"="...)
	b = appendShellWord(b, j.ID)
	b = append(b, '\n')
	if n := j.Processors(); n > 1 {
		return appendBatchLaunch(b, j, cfg, format, n)
	}
	b = append(b, "exec "...)
	b = appendShellCommand(b, j, cfg)
	return append(b, '\n')
}

// appendBatchLaunch starts the n processes of a parallel SGE or PBS job,
// which the batch system starts as one script on the job's first host. It
// uses, in turn, the first of these that the execute host has:
//
//   - mpiexec -n n: an MPI launcher integrated with the batch system (Open
//     MPI, MPICH's Hydra and Intel MPI read $PE_HOSTFILE or $PBS_NODEFILE)
//     places the processes on the job's hosts and tells each its rank
//     (OMPI_COMM_WORLD_RANK, PMI_RANK);
//   - for PBS, pbsdsh -c n: PBS's own task starter puts one process on each
//     of the job's n virtual nodes (PBS_VNODENUM 0..n-1). Its tasks get the
//     job's first environment and start in the home directory, so a small
//     sh -c sets the directory, GMARK_JOB_ID and GMARK_SIZE again;
//   - else the script starts the n processes itself on this host, with
//     GMARK_LOCAL_RANK 0..n-1, waits for all and exits with the first
//     failure's status (0 when all succeed). A signal to the script is
//     passed on to them.
func appendBatchLaunch(b []byte, j *workload.Job, cfg Config, format string, n int) []byte {
	b = append(b, "export "+sizeEnv+"="...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, "\nif command -v mpiexec >/dev/null 2>&1; then\n\texec mpiexec -n "...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ' ')
	b = appendShellCommand(b, j, cfg)
	b = append(b, "\nfi\n"...)
	if format == "pbs" {
		b = append(b, "if command -v pbsdsh >/dev/null 2>&1; then\n\texec pbsdsh -c "...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ` -- /bin/sh -c 'cd "$1" || exit 1; export `+JobIDEnv+`="$2" `+sizeEnv+
			`="$3"; shift 3; exec "$@"' gmark-task "$PWD" "$`+JobIDEnv+`" "$`+sizeEnv+`" `...)
		b = appendShellCommand(b, j, cfg)
		b = append(b, "\nfi\n"...)
	} else {
		b = append(b, `if [ -r "$PE_HOSTFILE" ] && [ "$(grep -c . "$PE_HOSTFILE")" -gt 1 ]; then`+"\n\t"+
			`echo "gmark: no mpiexec: the job's `...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ` processes all run on $(hostname)" >&2`+"\nfi\n"...)
	}
	b = append(b, "# No launcher: start the processes here, "+localRankEnv+" 0 to "...)
	b = strconv.AppendInt(b, int64(n-1), 10)
	b = append(b, ".\npids=\ntrap 'kill $pids 2>/dev/null' HUP INT TERM\nr=0\nwhile [ \"$r\" -lt "...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, " ]; do\n\t"+localRankEnv+"=$r "...)
	b = appendShellCommand(b, j, cfg)
	b = append(b, " &\n\tpids=\"$pids $!\"\n\tr=$((r + 1))\ndone\nstatus=0\nfor pid in $pids; do\n"+
		"\twait \"$pid\" || { s=$?; [ \"$status\" -ne 0 ] || status=$s; }\ndone\nexit \"$status\"\n"...)
	return b
}

// appendBatchHeader checks a job for a batch script of format (unitary,
// and words its directives can carry) and appends the script's first
// lines: the shell, and a comment when the job's sites do not name one
// queue. It returns the queue, "" for none.
func appendBatchHeader(b []byte, format string, j *workload.Job, cfg Config) ([]byte, string, error) {
	if err := checkUnitary(format, j); err != nil {
		return b, "", err
	}
	site, note := batchSite(j)
	if err := checkDirectiveWords(format, j, cfg, site); err != nil {
		return b, "", err
	}
	b = append(b, "#!/bin/sh\n"...)
	if note != "" {
		b = append(b, "# "...)
		b = append(b, note...)
		b = append(b, '\n')
	}
	return b, site, nil
}
