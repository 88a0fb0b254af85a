package gram

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/gmark/gmark/internal/gramcli"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/ce"
)

// State maps what globusrun -status prints to gmark's state (an ended
// job's outcome is its script's report, see Poll).
func State(gram string) submitter.State {
	switch gram {
	case "ACTIVE", "STAGE_OUT", "SUSPENDED":
		return submitter.Running
	case "DONE", "FAILED":
		return submitter.Failed // until the report says otherwise
	}
	return submitter.Queued // PENDING, UNSUBMITTED, STAGE_IN
}

// Poll asks each job's state (globusrun -status), Parallel at a time. A
// job that ran and ended is succeeded or failed by the exit status its
// script reported; one that ended without a report failed (GRAM's FAILED
// or DONE said for it). A job whose job manager did not answer is left
// out; when none answered the error is returned.
func (b *backend) Poll(ctx context.Context, refs []ce.Ref) (map[string]ce.Status, error) {
	out := make(map[string]ce.Status, len(refs))
	var mu sync.Mutex
	var lastErr error
	sem := make(chan struct{}, b.cfg.Parallel)
	var wg sync.WaitGroup
	for _, r := range refs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			st, err := b.status(ctx, r)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				lastErr = err
				return
			}
			out[r.ID] = st
		}()
	}
	wg.Wait()
	if len(out) == 0 && lastErr != nil {
		return nil, lastErr
	}
	return out, nil
}

// status is one job's state, with what its script reported.
func (b *backend) status(ctx context.Context, r ce.Ref) (ce.Status, error) {
	word, err := b.client.Status(ctx, r.ID)
	if err != nil {
		return ce.Status{}, err
	}
	st := ce.Status{State: State(word), CEState: word}
	rep := gramcli.ReadReport(filepath.Join(b.jobs, r.Name+".err"))
	st.Start = rep.Started
	if st.State == submitter.Queued && !rep.Started.IsZero() {
		// The LRM started the job between GRAM's look and ours.
		st.State = submitter.Running
	}
	if st.State.Final() {
		st.End, st.Exit = rep.Ended, rep.Status
		b.mu.Lock()
		cancelled := b.cancelled[r.ID]
		b.mu.Unlock()
		switch {
		case cancelled && (rep.Status == nil || *rep.Status != 0):
			st.State, st.Reason = submitter.Cancelled, "cancelled (GRAM: "+word+")"
		case rep.Status != nil && *rep.Status == 0:
			st.State = submitter.Succeeded
		case rep.Status != nil:
			st.Reason = "GRAM: " + word
		case rep.Started.IsZero():
			st.Reason = "GRAM: " + word + ", and the job never started"
		default:
			st.Reason = "GRAM: " + word + ", and the job did not say how it ended (killed?)"
		}
	}
	st.Detail = map[string]any{"gram": word, "contact": r.ID}
	return st, nil
}
