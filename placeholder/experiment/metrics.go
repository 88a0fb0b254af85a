package experiment

import (
	"fmt"
	"math"
	"sort"
)

// Result is one run's measures (times in seconds from the start).
type Result struct {
	Mode     string  `json:"mode"`
	Makespan float64 `json:"makespan"` // all jobs arrive at 0; the end of the last
	// Imbalance is the thesis's real-time load imbalance: "(time the last
	// system goes idle − time the first system goes idle) / makespan".
	Imbalance  float64      `json:"imbalance"`
	FirstIdle  float64      `json:"first_idle"`
	LastIdle   float64      `json:"last_idle"`
	Jobs       int          `json:"jobs"`
	Units      float64      `json:"units"`
	Throughput float64      `json:"throughput"` // units/s over the makespan
	Sites      []SiteResult `json:"sites"`
	Intervals  []Interval   `json:"intervals"`
	Hourly     Hourly       `json:"hourly"`
	Runs       []JobRun     `json:"job_runs"`
	// Faults is set when the spec injects faults: then Runs holds every
	// execution that completed (a duplicated job more than once), and the
	// jobs, units and busy times count them all.
	Faults *Faults `json:"faults,omitempty"`
}

// SiteResult is a site's share. IdleAt is when it went idle for good (its
// last job's end; 0 if it ran none); Busy is the placeholder-seconds spent
// running jobs; Idle the placeholder-seconds of the makespan not busy.
type SiteResult struct {
	Site   string  `json:"site"`
	Jobs   int     `json:"jobs"`
	Units  float64 `json:"units"`
	IdleAt float64 `json:"idle_at"`
	Busy   float64 `json:"busy"`
	Idle   float64 `json:"idle"`
}

// Interval is the work completed in [Start, End): the units of the jobs
// that ended in it, per site (in the sites' order) and in all, and the
// throughput (units/s).
type Interval struct {
	Start      float64   `json:"start"`
	End        float64   `json:"end"`
	Units      []float64 `json:"units"`
	Total      float64   `json:"total"`
	Throughput float64   `json:"throughput"`
}

// Hourly is the CISS-1 table (Table 5.6): jobs per row of the window,
// whole jobs counted in the row they end in (Complete), and jobs that
// cross the window's start counted for the fraction of their run inside it
// (Partial); After holds the fractions inside the window of the jobs still
// running at its end (the thesis's "> 24" row).
type Hourly struct {
	From  float64   `json:"from"`
	To    float64   `json:"to"`
	Hour  float64   `json:"hour"`
	Rows  []HourRow `json:"rows"`
	After HourRow   `json:"after"`
	Sum   float64   `json:"sum"` // rows + after: the job-equivalents done in the window
	// Sites is each site's share of the window (Table 5.5).
	Sites []WindowSite `json:"sites"`
}

// HourRow is one row: Row from 1 covers [From+(Row-1)·Hour, From+Row·Hour).
type HourRow struct {
	Row      int     `json:"row"`
	Complete int     `json:"complete"`
	Partial  float64 `json:"partial"`
	Total    float64 `json:"total"`
}

// MaxRows bounds the rows of the interval and hourly tables.
const MaxRows = 100000

func measure(sp *Spec, mode string, runs []JobRun) (*Result, error) {
	sort.SliceStable(runs, func(i, j int) bool {
		if runs[i].End != runs[j].End {
			return runs[i].End < runs[j].End
		}
		return runs[i].Job < runs[j].Job
	})
	r := &Result{Mode: mode, Runs: runs, Jobs: len(runs)}
	idx := map[string]int{}
	for i, st := range sp.Sites {
		idx[st.Name] = i
		r.Sites = append(r.Sites, SiteResult{Site: st.Name})
	}
	for _, jr := range runs {
		s := &r.Sites[idx[jr.Site]]
		s.Jobs++
		s.Units += jr.Units
		s.Busy += jr.End - jr.Start
		s.IdleAt = max(s.IdleAt, jr.End)
		r.Units += jr.Units
		r.Makespan = max(r.Makespan, jr.End)
	}
	r.FirstIdle = math.Inf(1)
	for i := range r.Sites {
		s := &r.Sites[i]
		// The watchdog's replacement of a placeholder whose report was
		// lost runs beside the successor that placeholder had submitted:
		// then the site was busier than its count, idle never.
		s.Idle = max(float64(sp.Sites[i].Placeholders)*r.Makespan-s.Busy, 0)
		r.FirstIdle = min(r.FirstIdle, s.IdleAt)
		r.LastIdle = max(r.LastIdle, s.IdleAt)
	}
	if r.Makespan > 0 {
		r.Imbalance = (r.LastIdle - r.FirstIdle) / r.Makespan
		r.Throughput = r.Units / r.Makespan
	}
	from, to := 0.0, r.Makespan
	if len(sp.Window) == 2 {
		from, to = sp.Window[0], sp.Window[1]
	}
	if r.Makespan/sp.Interval > MaxRows || (to-from)/sp.Hour > MaxRows {
		return nil, fmt.Errorf("makespan %.0f s: more than %d rows of %v s intervals or %v s hours", r.Makespan, MaxRows, sp.Interval, sp.Hour)
	}
	r.Intervals = intervals(sp, runs, idx, r.Makespan)
	r.Hourly = hourly(runs, from, to, sp.Hour)
	r.Hourly.Sites = windowSites(sp, runs, idx, from, to)
	return r, nil
}

// bin is the index of t's bin of width w from 0 in n bins (the last holds
// its end too).
func bin(t, from, w float64, n int) int {
	return min(max(int(math.Floor((t-from)/w)), 0), n-1)
}

func intervals(sp *Spec, runs []JobRun, idx map[string]int, makespan float64) []Interval {
	n := max(int(math.Ceil(makespan/sp.Interval)), 1)
	out := make([]Interval, n)
	for k := range out {
		out[k] = Interval{Start: float64(k) * sp.Interval, End: float64(k+1) * sp.Interval, Units: make([]float64, len(sp.Sites))}
	}
	for _, jr := range runs {
		k := bin(jr.End, 0, sp.Interval, n)
		out[k].Units[idx[jr.Site]] += jr.Units
		out[k].Total += jr.Units
	}
	for k := range out {
		out[k].Throughput = out[k].Total / sp.Interval
	}
	return out
}

func hourly(runs []JobRun, from, to, hour float64) Hourly {
	h := Hourly{From: from, To: to, Hour: hour}
	n := max(int(math.Ceil((to-from)/hour)), 1)
	h.Rows = make([]HourRow, n)
	for k := range h.Rows {
		h.Rows[k].Row = k + 1
	}
	for _, jr := range runs {
		d := jr.End - jr.Start
		switch {
		case jr.End <= from || jr.Start >= to:
			// outside the window
		case jr.End > to:
			h.After.Partial += (to - max(jr.Start, from)) / d
		case jr.Start >= from:
			h.Rows[bin(jr.End, from, hour, n)].Complete++
		default:
			h.Rows[bin(jr.End, from, hour, n)].Partial += (jr.End - from) / d
		}
	}
	for k := range h.Rows {
		h.Rows[k].Total = float64(h.Rows[k].Complete) + h.Rows[k].Partial
		h.Sum += h.Rows[k].Total
	}
	h.After.Total = h.After.Partial
	h.Sum += h.After.Total
	return h
}
