package record

import "github.com/gmark/gmark/analyzer/store"

// State is what a job is doing, as a target reports it; a change of state
// is recorded as an event of that kind.
type State string

const (
	Queued    State = "queued"    // accepted, waiting for processors
	Running   State = "running"   // every component started
	Succeeded State = "succeeded" // ended with exit status 0
	Failed    State = "failed"    // ended otherwise, or was lost
	Cancelled State = "cancelled" // stopped by Cancel or by someone else
)

// Final reports whether the state is an outcome.
func (s State) Final() bool { return s == Succeeded || s == Failed || s == Cancelled }

// JobState is the state a job row records for a job that ended in s: its
// outcome, or never-started for a job that has none.
func (s State) JobState() string {
	switch s {
	case Succeeded:
		return store.Succeeded
	case Failed:
		return store.Failed
	case Cancelled:
		return store.Cancelled
	}
	return store.NeverStarted
}
