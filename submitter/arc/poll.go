package arc

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/arcrest"
	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/ce"
)

// State maps A-REX's REST state to gmark's; exit is the LRM's exit code
// when known (a FINISHED job with a non-zero code failed).
func State(rest string, exit *int) submitter.State {
	switch rest {
	case "RUNNING", "EXITINGLRMS", "EXECUTED", "FINISHING", "KILLING":
		return submitter.Running
	case "FINISHED":
		if exit != nil && *exit != 0 {
			return submitter.Failed
		}
		return submitter.Succeeded
	case "FAILED", "WIPED":
		return submitter.Failed
	case "KILLED":
		return submitter.Cancelled
	}
	return submitter.Queued
}

// maxOutput bounds the copy of a job's stdout or stderr.
const maxOutput = 64 << 20

// Poll asks the state of many jobs in one call; the jobs that run or
// ended and whose record the target has not read (or has read before
// they ended) are asked for it in a second call, and the ended ones'
// output is copied into the work directory.
func (b *backend) Poll(ctx context.Context, refs []ce.Ref) (map[string]ce.Status, error) {
	ids := make([]string, len(refs))
	names := make(map[string]string, len(refs))
	for i, r := range refs {
		ids[i], names[r.ID] = r.ID, r.Name
	}
	jobs, err := b.client.Status(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]ce.Status, len(jobs))
	var ask []string
	b.mu.Lock()
	if b.known == nil {
		b.known = map[string]*known{}
	}
	for i, j := range jobs {
		if j.Code == "404" || !j.OK() {
			continue // the CE does not know it
		}
		id := ids[i]
		st := State(j.State, nil)
		k := b.known[id]
		if st != submitter.Queued && (k == nil || st.Final() && (!State(k.info.State, k.info.ExitCode).Final() || k.awaitingExit())) {
			ask = append(ask, id)
		}
		out[id] = ce.Status{State: st, CEState: j.State}
	}
	b.mu.Unlock()
	if len(ask) > 0 {
		infos, err := b.client.Info(ctx, ask)
		if err != nil {
			return nil, err
		}
		b.mu.Lock()
		for i, j := range infos {
			if j.Info == nil {
				continue
			}
			// A-REX drops the LRM's id from the record of an ended job:
			// keep the one it gave while the job ran.
			n := &known{info: j.Info}
			if k := b.known[ask[i]]; k != nil {
				if j.Info.LocalID == "" {
					j.Info.LocalID = k.info.LocalID
				}
				n.noOutput, n.noExit = k.noOutput, k.noExit // the waits run from their first sight
			}
			b.known[ask[i]] = n
		}
		b.mu.Unlock()
	}
	for id, st := range out {
		b.mu.Lock()
		k := b.known[id]
		b.mu.Unlock()
		if k != nil {
			st = withInfo(st, k.info)
		}
		if st.State.Final() {
			if k == nil || !State(k.info.State, k.info.ExitCode).Final() {
				st = ce.Status{State: submitter.Running, CEState: st.CEState} // its record is not there yet
			} else if noExitCode(k.info) && b.awaitExit(k) {
				st = ce.Status{State: submitter.Running, CEState: st.CEState} // its exit code is not there yet
			} else if err := b.collect(ctx, id, outputName(names[id], k.info)); errors.Is(err, errNoOutput) && st.State == submitter.Succeeded && b.awaitOutput(k) {
				st = ce.Status{State: submitter.Running, CEState: st.CEState} // its output is not there yet
			} else if err != nil && !errors.Is(err, errNoOutput) {
				return nil, fmt.Errorf("copying the output of job %s: %w", id, err)
			} else {
				b.mu.Lock()
				b.ended[id] = true
				delete(b.known, id)
				b.mu.Unlock()
			}
		}
		out[id] = st
	}
	return out, nil
}

// withInfo adds a job's record to its status: the times, the exit code,
// the failure text, and the state as the record says it when it has
// ended (the record's is the one with the exit code).
func withInfo(st ce.Status, in *arcrest.Info) ce.Status {
	st.Submit, st.Start, st.Exit, st.Detail = in.Submission, in.Start, in.ExitCode, in
	st.End = in.LRMEnd
	if st.End.IsZero() {
		st.End = in.End
	}
	if rs := State(in.State, in.ExitCode); rs.Final() {
		st.State, st.CEState = rs, in.State
	}
	if st.State == submitter.Failed || st.State == submitter.Cancelled {
		st.Reason = strings.Join(in.Errors, "; ")
	}
	return st
}

// errNoOutput is collect's error for an ended job whose stdout or stderr
// the CE does not serve (404). Every request the xrsl printer writes keeps
// both (outputFiles), so a job that succeeded without them has them still
// to come: it is polled again for outputWait before it ends without them.
// A job that failed or was cancelled may have made none.
var errNoOutput = errors.New("the CE does not have the job's output (yet)")

// outputWait is how long an ended job's missing output is waited for.
const outputWait = 30 * time.Second

// awaitOutput says whether a job whose output is missing is to be polled
// again: until outputWait after its output was first found missing.
func (b *backend) awaitOutput(k *known) bool { return b.awaitFrom(&k.noOutput, outputWait) }

// awaitFrom says whether wait has not yet passed since *first, setting
// *first to now at its first call (a field of a known record).
func (b *backend) awaitFrom(first *time.Time, wait time.Duration) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if first.IsZero() {
		*first = time.Now()
	}
	return time.Since(*first) < wait
}

// exitWait is how long a FINISHED job's missing exit code is waited for.
const exitWait = 30 * time.Second

// noExitCode tells whether a record says the job finished without giving
// the LRM's exit code. Once, under load, A-REX served such a record of a
// job that had run to its end, and the job was recorded with no exit
// status where the Slurm target, on the same cluster, recorded 0: its
// record is asked for again, for exitWait, before it is taken as it is.
// A failed or killed job may have no exit code: it is not waited for.
func noExitCode(in *arcrest.Info) bool {
	return in.State == "FINISHED" && in.ExitCode == nil
}

// awaitExit says whether a FINISHED job whose exit code is missing is to
// be polled again: until exitWait after it was first found missing.
func (b *backend) awaitExit(k *known) bool { return b.awaitFrom(&k.noExit, exitWait) }

// awaitingExit says whether k's record is to be asked for again for its
// exit code (b.mu is held).
func (k *known) awaitingExit() bool {
	return noExitCode(k.info) && (k.noExit.IsZero() || time.Since(k.noExit) < exitWait)
}

// outputName is the name a part's output files carry: the part's own name,
// which its request gave them, or else the name the CE's record gives the
// job. The record alone is not enough: A-REX served an ended job's record
// without its name (under load, around a restart of the CE), and the job
// was recorded as succeeded with its output left on the CE.
func outputName(part string, in *arcrest.Info) string {
	if part != "" {
		return part
	}
	return in.Name
}

// collect copies an ended job's stdout and stderr (named after the job)
// into the work directory; a file the CE does not serve is errNoOutput,
// after the other file is copied.
func (b *backend) collect(ctx context.Context, id, name string) error {
	if name == "" || strings.ContainsAny(name, "/\x00") {
		return nil
	}
	var missing error
	for _, ext := range []string{".out", ".err"} {
		path := filepath.Join(b.dir, name+ext)
		var buf strings.Builder
		err := b.client.Get(ctx, id, name+ext, &buf, maxOutput)
		if he, ok := err.(*arcrest.HTTPError); ok && he.Status == 404 {
			missing = errNoOutput
			continue
		}
		if err != nil {
			return err
		}
		if err := outfile.WriteFile(path, []byte(buf.String())); err != nil {
			return err
		}
	}
	return missing
}

// lookupEvery is how long Lookup reuses the CE's job list: a resumed run
// looks up many jobs at once.
const lookupEvery = 2 * time.Second

// Lookup finds the CE's jobs by name: the list of the user's jobs, then
// their records (500 a call), the list reused for lookupEvery.
func (b *backend) Lookup(ctx context.Context, match func(string) bool) ([]ce.Found, error) {
	b.mu.Lock()
	snap, at := b.snap, b.snapT
	b.mu.Unlock()
	if time.Since(at) > lookupEvery {
		ids, err := b.client.List(ctx)
		if err != nil {
			return nil, err
		}
		snap = nil
		for len(ids) > 0 {
			n := min(len(ids), 500)
			infos, err := b.client.Info(ctx, ids[:n])
			if err != nil {
				return nil, err
			}
			for i, j := range infos {
				if j.Info != nil && j.Info.Name != "" {
					snap = append(snap, ce.Found{Name: j.Info.Name, ID: ids[i], Status: ce.Status{State: State(j.Info.State, j.Info.ExitCode), CEState: j.Info.State}})
				}
			}
			ids = ids[n:]
		}
		b.mu.Lock()
		b.snap, b.snapT = snap, time.Now()
		b.mu.Unlock()
	}
	var out []ce.Found
	for _, f := range snap {
		if match(f.Name) {
			out = append(out, f)
		}
	}
	return out, nil
}
