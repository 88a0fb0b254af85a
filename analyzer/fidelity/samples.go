package fidelity

import (
	"fmt"
	"strconv"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/workload"
)

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
			workload.SpreadBusy(rp.busy, rp.binS, s, s+float64(j.EndNS-j.StartNS)/1e9*fj, float64(j.Processors))
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

// utilization turns the busy processor-seconds of both sides into a
// fraction of each system's processors, or, when the run's system size is
// unknown, into busy processors.
func utilization(o *workload.TraceWindow, rp *replay, rd *metrics.RunData, bins int, windowS float64, notes *[]string) Utilization {
	u := Utilization{BinS: windowS / float64(bins), T: make([]float64, bins), Basis: "fraction",
		OriginalProcessors: o.Processors, ReplayedProcessors: rd.Processors, Original: make([]float64, bins), Replayed: make([]float64, bins)}
	for k := range u.T {
		u.T[k] = float64(k) * u.BinS
	}
	po, pr := float64(o.Processors), float64(rd.Processors)
	switch {
	case rd.Processors <= 0:
		u.Basis, po, pr = "processors", 1, 1
		*notes = append(*notes, "the run's system size is unknown (pass --processors N): the utilization is compared in busy processors")
	case o.Processors <= 0:
		u.OriginalProcessors, po = rd.Processors, pr
		*notes = append(*notes, "the trace does not give its system size (MaxProcs): the original's utilization is over the run's "+
			strconv.Itoa(rd.Processors)+" processors")
	}
	for k := range bins {
		u.Original[k] = o.Busy[k] / (o.BinS * po)
		u.Replayed[k] = rp.busy[k] / (rp.binS * pr)
	}
	if o.Placed == 0 && o.Unplaced > 0 {
		u.Original = nil
		*notes = append(*notes, "no trace job of the window gives both its wait and its run time: the original's utilization is unknown")
	}
	if !rp.placed {
		*notes = append(*notes, "the run recorded no scheduled submission: the replay's utilization cannot be placed in the window")
	}
	return u
}

// notes say what the comparison assumed and what it could not see.
func notes(rd *metrics.RunData, tr *workload.TraceReplay, o *workload.TraceWindow) []string {
	var n []string
	if o.Scaled != "" {
		n = append(n, "the selection scales the trace ("+o.Scaled+"): the replay departs from the original by design; the original is compared as recorded, its times placed on the replay's time axis")
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
	if o.InFlight > 0 && tr.Warm == 0 {
		n = append(n, fmt.Sprintf("%d trace jobs were in flight when the window opened: they count in the original's utilization, "+
			"but the replay started empty (WarmStart=true starts it with them)", o.InFlight))
	}
	if o.Unplaced > 0 {
		n = append(n, fmt.Sprintf("%d trace jobs of the window or in flight at its start lack a wait or run time: they are not in the original's utilization", o.Unplaced))
	}
	if o.UnknownInFlight > 0 {
		n = append(n, fmt.Sprintf("%d trace jobs submitted before the window lack a wait or run time: whether they were in flight is unknown, and they are not in the original's utilization", o.UnknownInFlight))
	}
	return n
}
