package generator

import (
	"sort"

	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// WorkloadSource produces the jobs of a wl: unit, in non-decreasing submit
// order, with submit times counted from the unit's StartAt.
type WorkloadSource interface {
	// Next fills j with the next job and reports whether there was one. The
	// source owns ID, Unit and Index (IDs must be unique in the workload:
	// "<unit>-<index>" is the convention).
	Next(j *workload.Job) (bool, error)
}

// WorkloadGenerator is a self-contained workload generator selected by the
// "wl:" prefix of a unit type: trace replay, workload models.
type WorkloadGenerator struct {
	Name string
	Doc  string
	// Prepare validates the unit and returns a function that starts a fresh
	// source (Generate may run more than once and must give the same jobs).
	Prepare func(u *wdl.Unit, seed uint64) (func() (WorkloadSource, error), wdl.ErrorList)
}

var workloadGenerators = map[string]*WorkloadGenerator{}

// RegisterWorkloadGenerator adds a wl: generator; a duplicate name panics.
func RegisterWorkloadGenerator(g *WorkloadGenerator) {
	if _, dup := workloadGenerators[g.Name]; dup {
		panic("generator: duplicate workload generator " + g.Name)
	}
	workloadGenerators[g.Name] = g
}

// WorkloadGeneratorNames lists the registered wl: generators, sorted.
func WorkloadGeneratorNames() []string {
	names := []string{}
	for n := range workloadGenerators {
		names = append(names, "wl:"+n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return []string{"none yet"}
	}
	return names
}
