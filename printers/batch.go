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

// appendBatchCommand ends a SGE or PBS script: export the gmark job id, then
// replace the shell with the program, through mpiexec when the job has more
// than one processor.
func appendBatchCommand(b []byte, j *workload.Job, cfg Config) []byte {
	b = append(b, "export "+JobIDEnv+"="...)
	b = appendShellWord(b, j.ID)
	b = append(b, "\nexec "...)
	if n := j.Processors(); n > 1 {
		b = append(b, "mpiexec -n "...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ' ')
	}
	b = appendShellCommand(b, j, cfg)
	return append(b, '\n')
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
