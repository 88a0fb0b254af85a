package sim

import (
	"reflect"
	"sort"
)

// Architecture is an inter-operation architecture (Table 8.1 of the
// thesis): how jobs that arrive at clusters find processors. The engine
// calls it; it acts through the Sim's exported methods (Start, Enqueue,
// Schedule, Bus, …).
type Architecture interface {
	Name() string
	// Init is called once before the first arrival: start cycles, take
	// the information service.
	Init(s *Sim) error
	// Fits tells whether a job can ever run under the architecture (a job
	// that cannot is rejected at arrival and counts as not finished).
	Fits(j *Job) bool
	// Arrive takes a new job at its home cluster.
	Arrive(j *Job)
	// Ended follows a job's successful end (its processors are idle).
	Ended(j *Job)
	// Killed follows the end of a run by a cluster failure or an expired
	// lease: the job must be queued again somewhere.
	Killed(j *Job)
	// Event is one of the architecture's own scheduled events.
	Event(code uint8, a int32, j *Job, n int64)
	// ClusterDown and ClusterUp follow a failure and a recovery (running
	// jobs were killed before ClusterDown).
	ClusterDown(c *Cluster)
	ClusterUp(c *Cluster)
	// InfoChanged follows a change of the information service's view of
	// cluster c (-1: of all clusters).
	InfoChanged(c int)
}

// archSpec is a registered architecture: how to make it, the settings
// groups it reads beside the engine's, and how its defaults differ from
// the groups' own.
type archSpec struct {
	new      func(cfg *Config) (Architecture, error)
	reads    []reflect.Type
	defaults func(cfg *Config)
}

var archs = map[string]archSpec{}

// register adds an architecture under its name (in the files that define
// them), with the settings groups it reads (pointers to zero values) and
// its own defaults of them (nil: the groups').
func register(name string, f func(cfg *Config) (Architecture, error), defaults func(cfg *Config), reads ...Settings) {
	spec := archSpec{new: f, defaults: defaults}
	for _, g := range reads {
		spec.reads = append(spec.reads, reflect.TypeOf(g).Elem())
	}
	archs[name] = spec
}

// ArchNames lists the architectures.
func ArchNames() []string {
	names := make([]string, 0, len(archs))
	for n := range archs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// hooks are empty hooks for architectures to embed.
type hooks struct{}

func (hooks) Event(uint8, int32, *Job, int64) {}
func (hooks) ClusterDown(*Cluster)            {}
func (hooks) ClusterUp(*Cluster)              {}
func (hooks) InfoChanged(int)                 {}
