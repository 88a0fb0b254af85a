package workload

import (
	"fmt"
	"math"
	"time"

	"github.com/gmark/gmark/internal/names"
)

// The ranges of the workload format: every job read from outside (a
// workload.jsonl line, a job posted to the bundled core) is checked against
// them by Validate before anything is allocated or scheduled for it.
// docs/workload.md lists them. They are the format's structural bounds; a
// grid and its scheduler may enforce tighter ones (a cluster's size, its
// max_runtime).
const (
	// MaxIDLen is the longest job or task id, in bytes. Ids are made of
	// ASCII letters, digits, '.', '_' and '-', and start with a letter or
	// digit: they name files and directories ("1-0", "1-0.3").
	MaxIDLen = names.MaxIDLen
	// MaxTime bounds every time of a job: the submit offset, the wall time
	// and the run time lie in [0, MaxTime] (100 years).
	MaxTime = 100 * 365 * 24 * time.Hour
	// MaxProcessors bounds a component's processor count and a job's total
	// (the int32 every resource manager and trace format stores them in).
	MaxProcessors = math.MaxInt32
	// MaxComponents is the most components of a co-allocated job.
	MaxComponents = 100_000
	// MaxTasks is the most tasks of a composite job, and MaxDeps the most
	// dependencies between them.
	MaxTasks = 100_000
	MaxDeps  = 1_000_000
	// MaxFiles is the most input files of a job, and MaxFileSize the
	// largest (1 PiB).
	MaxFiles    = 100_000
	MaxFileSize = 1 << 50
	// MaxParams is the most application parameters of a job.
	MaxParams = 1_000
	// MaxUnit bounds unit ids and job indexes, which lie in [0, MaxUnit].
	MaxUnit = math.MaxInt32
	// MaxLineBytes is the longest line of workload.jsonl.
	MaxLineBytes = 64 << 20
)

// JobIDError tells what is wrong with s as a job id, if anything (a job
// whose id it is fails Validate).
func JobIDError(s string) error { return checkName("job id", s) }

// ValidParamName tells whether s may name an application parameter (a
// job that has one that may not fails Validate).
func ValidParamName(s string) bool { return checkName("parameter name", s) == nil }

// checkName tells what is wrong with a job, task or parameter name, if
// anything: the rule of every id (names.CheckID).
func checkName(what, s string) error { return names.CheckID(what, s) }

// checkTime tells what is wrong with one of a job's times, if anything.
func checkTime(field string, d time.Duration) error {
	if d < 0 || d > MaxTime {
		return fmt.Errorf("%s %v out of range [0, %v]", field, d, MaxTime)
	}
	return nil
}
