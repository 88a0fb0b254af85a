package sim

import (
	"reflect"
	"sort"
)

// Architecture is an inter-operation architecture (Table 8.1 of the
// thesis): how jobs that arrive at clusters find processors. The engine
// calls it; it acts through the Sim's exported methods (Start, Enqueue,
// Schedule, Bus, …), and reads its own settings, handed to its
// constructor (register), and the engine's through those methods.
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

// archSpec is a registered architecture: how to make it from a run's
// Config, the settings groups it reads beside the engine's, and how its
// defaults differ from the groups' own.
type archSpec struct {
	new      func(cfg *Config) (Architecture, error)
	reads    []reflect.Type
	defaults func(cfg *Config)
}

var archs = map[string]archSpec{}

// register adds an architecture under its name (in the files that define
// them). Its settings S are a struct of the settings groups it reads
// (embedded: struct{ MatchSettings; DMMSettings }): newArch makes it from
// them, filled from the run's Config, so that it reads no other group's
// settings, and the engine's only through the Sim's methods. defaults
// (nil: none) adjusts the groups' defaults for its runs, and the engine's
// where they differ for it.
func register[S any](name string, newArch func(set S) (Architecture, error), defaults func(set *S, engine *EngineSettings)) {
	t := reflect.TypeOf((*S)(nil)).Elem()
	var index []int // in Config, of each field of S
	spec := archSpec{}
	for i := 0; i < t.NumField(); i++ {
		at, ok := groupOfType(t.Field(i).Type)
		if !ok || t.Field(i).Type == reflect.TypeOf(EngineSettings{}) || t.Field(i).Type == reflect.TypeOf(DynamicsSettings{}) {
			panic("sim: architecture " + name + ": " + t.Field(i).Type.String() + " is not an architecture's settings group of Config")
		}
		index = append(index, at)
		spec.reads = append(spec.reads, t.Field(i).Type)
	}
	settings := func(cfg *Config) (*S, reflect.Value) {
		set := new(S)
		v, c := reflect.ValueOf(set).Elem(), reflect.ValueOf(cfg).Elem()
		for i, at := range index {
			v.Field(i).Set(c.Field(at))
		}
		return set, c
	}
	spec.new = func(cfg *Config) (Architecture, error) {
		set, _ := settings(cfg)
		return newArch(*set)
	}
	if defaults != nil {
		spec.defaults = func(cfg *Config) {
			set, c := settings(cfg)
			defaults(set, &cfg.EngineSettings)
			v := reflect.ValueOf(set).Elem()
			for i, at := range index {
				c.Field(at).Set(v.Field(i))
			}
		}
	}
	archs[name] = spec
}

// groupOfType is the index in Config of its settings group of type t.
func groupOfType(t reflect.Type) (int, bool) {
	for _, i := range groupIndex {
		if reflect.TypeOf(Config{}).Field(i).Type == t {
			return i, true
		}
	}
	return 0, false
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
