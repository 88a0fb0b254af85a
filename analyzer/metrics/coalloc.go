package metrics

import (
	"slices"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/stats/sampstat"
)

// Coallocation is the co-allocation overhead of the run's co-allocated
// jobs: per job whose every component started, the time from its first
// component's start to its last one's, as the target's scheduler recorded
// them (docs/metrics.md).
type Coallocation struct {
	Jobs     int              `json:"jobs"`       // co-allocated jobs measured
	Overhead sampstat.Summary `json:"overhead_s"` // last component start − first, per job
	Source   string           `json:"source"`
}

// ComponentStarts are the start times of a job's components, seconds on
// the scheduler's clock brought to the wall clock's pace (origin
// arbitrary: only differences are read), by component index.
type ComponentStarts map[int]float64

// loadComponentStarts reads the components' start times the run recorded:
// the Slurm target's parts (Slurm's start_time, whole seconds), or the
// bundled core's component_start events (its clock, divided by its time
// scale). A component started several times (a core restart) counts with
// its last start; a Slurm job retried as a composite task counts with its
// last attempt.
func (rd *RunData) loadComponentStarts(st *store.Store) error {
	starts := map[string]ComponentStarts{}
	attempt := map[string]int{}
	scale := 1.0
	if rd.Koala != nil && rd.Koala.TimeScale > 0 {
		scale = rd.Koala.TimeScale
	}
	source := ""
	err := st.ScanComponentStarts(rd.ID, func(c store.ComponentStart) error {
		var id string
		var at float64
		switch c.Source {
		case "slurm":
			if c.Attempt < attempt[c.JobID] {
				return nil
			}
			if c.Attempt > attempt[c.JobID] {
				attempt[c.JobID] = c.Attempt
				delete(starts, c.JobID)
			}
			if c.UnixS <= 0 {
				return nil // did not start
			}
			id, at = c.JobID, float64(c.UnixS)
		case "koala":
			parts := strings.Split(c.Key, "/")
			t, err := time.Parse(time.RFC3339Nano, c.CoreRFC)
			if len(parts) < 3 || err != nil {
				return nil
			}
			id = strings.Join(parts[1:len(parts)-1], "/")
			at = float64(t.UnixNano()) / 1e9 / scale
		default:
			return nil
		}
		s := starts[id]
		if s == nil {
			s = ComponentStarts{}
			starts[id] = s
		}
		if prev, ok := s[c.Component]; !ok || at > prev {
			s[c.Component] = at
		}
		source = c.Source
		return nil
	})
	if err != nil {
		return err
	}
	if len(starts) > 0 {
		rd.ComponentStarts = starts
		rd.ComponentStartsSource = source
	}
	return nil
}

// coallocation computes the co-allocation overhead, durations scaled by f;
// nil when no co-allocated job has a recorded start for every component.
func coallocation(rd *RunData, f float64, opts Options) *Coallocation {
	var overheads []float64
	for i := range rd.Jobs {
		overheads = coallocOverhead(overheads, rd, &rd.Jobs[i], f, opts)
	}
	return coallocationOf(rd, overheads)
}

// coallocOverhead appends the co-allocation overhead of job j, when it
// has one, to overheads.
func coallocOverhead(overheads []float64, rd *RunData, j *Job, f float64, opts Options) []float64 {
	s := rd.ComponentStarts[j.ID]
	if j.Composite() || j.Components < 2 || len(s) != j.Components || opts.leftOut(j) {
		return overheads
	}
	times := make([]float64, 0, len(s))
	for _, t := range s {
		times = append(times, t)
	}
	return append(overheads, (slices.Max(times)-slices.Min(times))*f)
}

// coallocationOf summarizes the overheads.
func coallocationOf(rd *RunData, overheads []float64) *Coallocation {
	if len(overheads) == 0 {
		return nil
	}
	c := &Coallocation{Jobs: len(overheads), Overhead: sampstat.Summarize(overheads)}
	switch rd.ComponentStartsSource {
	case "slurm":
		c.Source = "Slurm's start_time of each component's Slurm job (whole seconds), from the Slurm target's final event of each job"
	case "koala":
		c.Source = "the bundled core's component_start events (koala-event annotations), on its clock divided by its time scale"
	}
	return c
}
