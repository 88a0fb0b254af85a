package fidelity

import (
	"fmt"
	"strconv"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/workload"
)

// original is what the trace says of the window, as recorded (unscaled).
type original struct {
	jobs            int
	wait, run, resp []float64
	busy            []float64 // processor-seconds per bin of the window, trace time
	binS            float64   // trace seconds
	procs           int       // the trace's MaxProcs; 0 unknown
	inFlight        int       // jobs in flight at the window's start
	unknownInFlight int       // jobs before the window that may have been in flight
	unplaced        int       // jobs of the window or in flight with no wait or run time
	placed          int       // jobs whose busy time is known
}

// readOriginal reads the window again with the recorded selection, its
// scale aside, and the jobs in flight at its start. length is the window's
// length in trace seconds.
func readOriginal(tr *workload.TraceReplay, sel gwa.Selection, length float64, bins int) (*original, error) {
	open := func() (gwa.Reader, error) {
		return gwa.Open(tr.Path, gwa.ReadOptions{Strict: tr.Strict, Format: gwa.Format(tr.Format), Name: tr.Path})
	}
	asRecorded := sel
	asRecorded.Scale = gwa.Scale{}
	r, opened, err := gwa.SelectOpened(open, asRecorded)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if opened.Origin != tr.Origin {
		return nil, fmt.Errorf("the recorded selection reads %s from %gs, the manifest says from %gs", tr.Path, opened.Origin, tr.Origin)
	}
	o := &original{busy: make([]float64, bins), binS: length / float64(bins), procs: r.Header().MaxProcs}
	_, err = gwa.ForEach(r, func(rec *gwa.Record) error {
		o.jobs++
		hasWait, hasRun := rec.WaitTime >= 0, rec.RunTime >= 0
		if hasWait {
			o.wait = append(o.wait, rec.WaitTime)
		}
		if hasRun {
			o.run = append(o.run, rec.RunTime)
		}
		if hasWait && hasRun {
			o.resp = append(o.resp, rec.WaitTime+rec.RunTime)
			start := rec.SubmitTime + rec.WaitTime // rebased: from the window's start
			spread(o.busy, o.binS, start, start+rec.RunTime, procs(rec))
			o.placed++
		} else {
			o.unplaced++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r2, err := open()
	if err != nil {
		return nil, err
	}
	defer r2.Close()
	flying, unknown, err := gwa.InFlight(r2, sel.Filter, opened.Origin)
	if err != nil {
		return nil, err
	}
	o.inFlight, o.unknownInFlight = len(flying), unknown
	for i := range flying {
		rec := &flying[i].Record
		if rec.RunTime < 0 {
			o.unplaced++ // queued, its run time unknown
			continue
		}
		start := rec.SubmitTime + rec.WaitTime - opened.Origin
		spread(o.busy, o.binS, start, start+rec.RunTime, procs(rec))
		o.placed++
	}
	return o, nil
}

// procs is a trace job's size, 1 when unknown (as the replay asks for).
func procs(rec *gwa.Record) float64 { return max(1, rec.Procs()) }

// replay is what the run recorded of the unit's jobs, in workload time.
type replay struct {
	jobs, warm      int
	wait, run, resp []float64
	busy            []float64 // processor-seconds per bin of the window, workload time
	binS            float64
	placed          bool // the run's time zero is known
}

// readReplay collects the unit's jobs' wait, run and response times (warm
// jobs aside unless opts.IncludeWarm) and the processors every job of the
// run held over the window, in workload time: instants on the schedule's
// clock (offsets × the speedup), durations on the jobs' (× the bundled
// core's time scale; jobs of other targets ran in real time, whatever the
// speedup). The window starts at the unit's StartAt after the run's time
// zero: a job's scheduled instant less its submit offset over the speedup.
func readReplay(rd *metrics.RunData, unit int, tr *workload.TraceReplay, places map[string]store.JobPlace, opts Options) *replay {
	f := rd.Speedup
	if f <= 0 {
		f = 1
	}
	fj := rd.JobScale
	if fj <= 0 {
		fj = 1
	}
	rp := &replay{busy: make([]float64, opts.Bins), binS: time2s(tr.Period) / float64(opts.Bins)}
	var zero int64
	for i := range rd.Jobs {
		j := &rd.Jobs[i]
		p, ok := places[j.ID]
		if !ok || j.Parent != "" || j.ScheduledNS == 0 {
			continue
		}
		if z := j.ScheduledNS - int64(float64(p.OffsetNS)/f); !rp.placed || z < zero {
			zero, rp.placed = z, true
		}
	}
	startNS := zero + int64(float64(tr.StartAt)/f)
	at := func(ns int64) float64 { return float64(ns-startNS) / 1e9 * f }
	for i := range rd.Jobs {
		j := &rd.Jobs[i]
		if rp.placed && !j.Composite() && j.Started() && j.EndNS > j.StartNS {
			s := at(j.StartNS)
			spread(rp.busy, rp.binS, s, s+float64(j.EndNS-j.StartNS)/1e9*fj, float64(j.Processors))
		}
		if p, ok := places[j.ID]; !ok || p.Unit != unit || j.Parent != "" {
			continue
		}
		if j.Warm {
			rp.warm++
			if !opts.IncludeWarm {
				continue
			}
		}
		rp.jobs++
		if w, ok := metrics.Wait(j); ok {
			rp.wait = append(rp.wait, w*fj)
		}
		if r, ok := metrics.RunTime(j); ok {
			resp, _ := metrics.Response(j)
			rp.run = append(rp.run, r*fj)
			rp.resp = append(rp.resp, resp*fj)
		}
	}
	return rp
}

// spread adds p processors busy over [s, e) to the bins of width w that
// cover [0, len(bins)·w), clipping what lies outside.
func spread(bins []float64, w, s, e, p float64) {
	n := len(bins)
	if !(w > 0) || n == 0 {
		return
	}
	s, e = max(s, 0), min(e, w*float64(n))
	if !(e > s) {
		return
	}
	first, last := int(s/w), min(int(e/w), n-1)
	for k := first; k <= last; k++ {
		lo, hi := max(s, float64(k)*w), min(e, float64(k+1)*w)
		if hi > lo {
			bins[k] += p * (hi - lo)
		}
	}
}

// utilization turns the busy processor-seconds of both sides into a
// fraction of each system's processors, or, when the run's system size is
// unknown, into busy processors.
func utilization(o *original, rp *replay, rd *metrics.RunData, bins int, windowS float64, notes *[]string) Utilization {
	u := Utilization{BinS: windowS / float64(bins), T: make([]float64, bins), Basis: "fraction",
		OriginalProcessors: o.procs, ReplayedProcessors: rd.Processors, Original: make([]float64, bins), Replayed: make([]float64, bins)}
	for k := range u.T {
		u.T[k] = float64(k) * u.BinS
	}
	po, pr := float64(o.procs), float64(rd.Processors)
	switch {
	case rd.Processors <= 0:
		u.Basis, po, pr = "processors", 1, 1
		*notes = append(*notes, "the run's system size is unknown (pass --processors N): the utilization is compared in busy processors")
	case o.procs <= 0:
		u.OriginalProcessors, po = rd.Processors, pr
		*notes = append(*notes, "the trace does not give its system size (MaxProcs): the original's utilization is over the run's "+
			strconv.Itoa(rd.Processors)+" processors")
	}
	for k := range bins {
		u.Original[k] = o.busy[k] / (o.binS * po)
		u.Replayed[k] = rp.busy[k] / (rp.binS * pr)
	}
	if o.placed == 0 && o.unplaced > 0 {
		u.Original = nil
		*notes = append(*notes, "no trace job of the window gives both its wait and its run time: the original's utilization is unknown")
	}
	if !rp.placed {
		*notes = append(*notes, "the run recorded no scheduled submission: the replay's utilization cannot be placed in the window")
	}
	return u
}

// notes say what the comparison assumed and what it could not see.
func notes(rd *metrics.RunData, tr *workload.TraceReplay, sel gwa.Selection, o *original) []string {
	var n []string
	if !sel.Scale.Identity() {
		n = append(n, "the selection scales the trace ("+sel.Describe()+"): the replay departs from the original by design; the original is compared as recorded, its times placed on the replay's time axis")
	}
	if tr.Replays > 1 {
		n = append(n, fmt.Sprintf("the window was replayed %d times: the replayed samples hold every replay, the utilization covers the first", tr.Replays))
	}
	switch {
	case rd.JobScale > 0 && rd.JobScale != 1:
		n = append(n, fmt.Sprintf("the bundled core emulated the jobs on a clock %g× the wall clock: their durations are compared in workload time (× %g)", rd.JobScale, rd.JobScale))
	case rd.Speedup != 1 && rd.Speedup > 0:
		n = append(n, fmt.Sprintf("the run was submitted with --speedup %g, which compresses the schedule only: the jobs ran in real time, and their durations are compared as measured (wall time)", rd.Speedup))
	}
	if o.inFlight > 0 && tr.Warm == 0 {
		n = append(n, fmt.Sprintf("%d trace jobs were in flight when the window opened: they count in the original's utilization, "+
			"but the replay started empty (WarmStart=true starts it with them)", o.inFlight))
	}
	if o.unplaced > 0 {
		n = append(n, fmt.Sprintf("%d trace jobs of the window or in flight at its start lack a wait or run time: they are not in the original's utilization", o.unplaced))
	}
	if o.unknownInFlight > 0 {
		n = append(n, fmt.Sprintf("%d trace jobs submitted before the window lack a wait or run time: whether they were in flight is unknown, and they are not in the original's utilization", o.unknownInFlight))
	}
	return n
}
