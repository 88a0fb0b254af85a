package gwa

import (
	"encoding/json"
	"fmt"

	"github.com/gmark/gmark/workload"
)

// ReadReplayedWindow reads again the window a wl:trace unit replayed, with
// the selection its manifest recorded, the selection's scale aside (the
// original as recorded), and the jobs in flight at the window's start, into
// bins equal intervals of the window. The trace's identity (its digest) is
// the caller's to check.
func ReadReplayedWindow(tr *workload.TraceReplay, bins int) (*workload.TraceWindow, error) {
	var sel Selection
	if err := json.Unmarshal(tr.Selection, &sel); err != nil {
		return nil, fmt.Errorf("the recorded selection: %v", err)
	}
	scale := sel.Scale.Submit
	if scale == 0 {
		scale = 1
	}
	w := &workload.TraceWindow{SubmitScale: scale}
	if !sel.Scale.Identity() {
		w.Scaled = sel.Describe()
	}
	// The window's length in trace seconds: the replay period undone of
	// the submit scale.
	length := float64(tr.Period) / 1e9 / scale
	open := func() (Reader, error) {
		return Open(tr.Path, ReadOptions{Strict: tr.Strict, Format: Format(tr.Format), Name: tr.Path})
	}
	asRecorded := sel
	asRecorded.Scale = Scale{}
	r, opened, err := SelectOpened(open, asRecorded)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if opened.Origin != tr.Origin {
		return nil, fmt.Errorf("the recorded selection reads %s from %gs, the manifest says from %gs", tr.Path, opened.Origin, tr.Origin)
	}
	w.Busy, w.BinS, w.Processors = make([]float64, bins), length/float64(bins), r.Header().MaxProcs
	_, err = ForEach(r, func(rec *Record) error {
		w.Jobs++
		hasWait, hasRun := rec.WaitTime >= 0, rec.RunTime >= 0
		if hasWait {
			w.Wait = append(w.Wait, rec.WaitTime)
		}
		if hasRun {
			w.Run = append(w.Run, rec.RunTime)
		}
		if hasWait && hasRun {
			w.Response = append(w.Response, rec.WaitTime+rec.RunTime)
			start := rec.SubmitTime + rec.WaitTime // rebased: from the window's start
			workload.SpreadBusy(w.Busy, w.BinS, start, start+rec.RunTime, busyProcs(rec))
			w.Placed++
		} else {
			w.Unplaced++
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
	flying, unknown, err := InFlight(r2, sel.Filter, opened.Origin)
	if err != nil {
		return nil, err
	}
	w.InFlight, w.UnknownInFlight = len(flying), unknown
	for i := range flying {
		rec := &flying[i].Record
		if rec.RunTime < 0 {
			w.Unplaced++ // queued, its run time unknown
			continue
		}
		start := rec.SubmitTime + rec.WaitTime - opened.Origin
		workload.SpreadBusy(w.Busy, w.BinS, start, start+rec.RunTime, busyProcs(rec))
		w.Placed++
	}
	return w, nil
}

// busyProcs is a trace job's size, 1 when unknown (as the replay asks for).
func busyProcs(rec *Record) float64 { return max(1, rec.Procs()) }
