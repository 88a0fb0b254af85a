package metrics

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
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
// its targets' component-start records (record.ComponentStart: the
// scheduler's clock brought to the wall clock's pace), or in a run recorded
// before those, the Slurm target's parts (Slurm's start_time, whole
// seconds) or the bundled core's component_start events (its clock,
// divided by its time scale). A component started several times (a core
// restart) counts with its last start; a job retried as a composite task
// counts with its last attempt.
func (rd *RunData) loadComponentStarts(st *store.Store) error {
	l := componentLoad{starts: map[string]ComponentStarts{}, attempt: map[string]int{}, recorded: map[string]bool{}, scale: 1}
	if rd.Koala != nil && rd.Koala.TimeScale > 0 {
		l.scale = rd.Koala.TimeScale
	}
	if err := st.ScanComponentStarts(rd.ID, l.add); err != nil {
		return err
	}
	if len(l.starts) > 0 {
		rd.ComponentStarts = l.starts
		rd.ComponentStartsSource = l.source
		if l.source == "record" {
			rd.componentAttempts, rd.componentClock = l.attempt, l.clock
		}
	}
	return nil
}

// componentLoad gathers the component starts of a run.
type componentLoad struct {
	starts  map[string]ComponentStarts
	attempt map[string]int // the last attempt seen, by job id
	scale   float64        // the core's time scale (its older records)
	source  string
	clock   string // the records' Clock
	// recorded: the jobs with component-start records, which come first;
	// the older kinds of start of those jobs are not read (a run resumed
	// across versions has both kinds, for different jobs).
	recorded map[string]bool
}

// add takes one component start in.
func (l *componentLoad) add(c store.ComponentStart) error {
	id, comp := "", c.Component
	var at float64
	switch c.Source {
	case "record":
		var r record.ComponentStart
		if json.Unmarshal([]byte(c.Record), &r) != nil || r.Job == "" || r.StartNS <= 0 || !l.lastAttempt(r.Job, r.Attempt) {
			return nil
		}
		id, comp, at, l.clock = r.Job, r.Component, r.Seconds(), r.Clock
		l.recorded[id] = true
	case "slurm":
		if l.recorded[c.JobID] || !l.lastAttempt(c.JobID, c.Attempt) || c.UnixS <= 0 {
			return nil // recorded, an older attempt, or did not start
		}
		id, at = c.JobID, float64(c.UnixS)
	case "koala":
		parts := strings.Split(c.Key, "/")
		t, err := time.Parse(time.RFC3339Nano, c.CoreRFC)
		if len(parts) < 3 || err != nil {
			return nil
		}
		id = strings.Join(parts[1:len(parts)-1], "/")
		if l.recorded[id] {
			return nil
		}
		at = float64(t.UnixNano()) / 1e9 / l.scale
	default:
		return nil
	}
	s := l.starts[id]
	if s == nil {
		s = ComponentStarts{}
		l.starts[id] = s
	}
	if prev, ok := s[comp]; !ok || at > prev {
		s[comp] = at
	}
	if l.source != "record" { // a run with records is read as one
		l.source = c.Source
	}
	return nil
}

// lastAttempt tells whether attempt is the last one of job seen so far,
// forgetting the starts of the earlier ones.
func (l *componentLoad) lastAttempt(job string, attempt int) bool {
	if attempt < l.attempt[job] {
		return false
	}
	if attempt > l.attempt[job] {
		l.attempt[job] = attempt
		delete(l.starts, job)
	}
	return true
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
	if a, ok := rd.componentAttempts[j.ID]; ok && j.Attempts > 0 && a != j.Attempts {
		return overheads // the starts of an attempt before the job's last
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
	case "record":
		c.Source = rd.componentClock + ", from the targets' component-start annotations"
	case "slurm":
		c.Source = "Slurm's start_time of each component's Slurm job (whole seconds), from the Slurm target's final event of each job"
	case "koala":
		c.Source = "the bundled core's component_start events (koala-event annotations), on its clock divided by its time scale"
	}
	return c
}
