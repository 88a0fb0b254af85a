package experiment

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/placeholder/metaqueue"
)

// Options run an experiment in scaled time (a spec with time_scale): the
// gmark binary the placeholders run, and where the run's server state,
// scripts and placeholder output go (default: a temporary directory,
// removed afterwards).
type Options struct {
	Gmark string
	Dir   string
	// Timeout bounds each way's run in wall time (default 24 h).
	Timeout time.Duration
}

// MaxScaledUnits bounds a job's units in scaled time, where the sites'
// arithmetic is the shell's 64-bit integers in micro-units.
const MaxScaledUnits = 1e6

// checkScaled refuses what scaled time does not emulate: service-time
// draws, queue waits and faults.
func (sp *Spec) checkScaled() error {
	if sp.TimeScale == 0 {
		return nil
	}
	if !(sp.TimeScale >= 1e-3) || sp.TimeScale > 1e4 {
		return failf("time_scale", -1, "time_scale %v must be from 0.001 to 10,000 experiment seconds per wall second", sp.TimeScale)
	}
	if sp.faulty() || sp.Watchdog != nil {
		return failf("time_scale", -1, "time_scale: faults and the watchdog are emulated in simulated time only (leave time_scale out)")
	}
	for i, u := range sp.Units {
		if u > MaxScaledUnits {
			return failf("units", -1, "units[%d] = %v: in scaled time a job is at most %v units", i, u, MaxScaledUnits)
		}
	}
	for i, st := range sp.Sites {
		switch {
		case st.Sigma > 0:
			return failf("sigma", i, "site %s: sigma: scaled time draws no service times (give only mean, or leave time_scale out)", st.Name)
		case st.QueueWait > 0 && st.Target.Kind != "" && st.Target.Kind != "zinf":
			return failf("queue_wait", i, "site %s: queue_wait: the queue of target %q waits as it does (leave queue_wait out)", st.Name, st.Target.Kind)
		case st.QueueWait > 0:
			return failf("queue_wait", i, "site %s: queue_wait: placeholders on this host start at once in scaled time", st.Name)
		case st.Rate < 1e-6:
			return failf("rate", i, "site %s: rate %v: in scaled time at least 1e-6 units/s", st.Name, st.Rate)
		}
	}
	return nil
}

// scaled runs one way of the experiment in scaled wall-clock time: a real
// metaqueue server on loopback, each site's placeholders real processes of
// `gmark placeholder agent` on this host (zero-infrastructure sites) or,
// for a site with a target, on that real system (Slurm batch jobs, the
// core's jobs: its queueing and start overheads are the system's), and
// each job a shell script that sleeps for its units at the site's rate
// and load, divided by the time scale. The times are the agents' own
// (the job's start and end as the placeholder measured them), scaled back,
// so the report includes every real overhead: process starts, HTTP calls,
// the server's commits, the resubmissions.
func scaled(sp *Spec, mode string, o Options) (*outcome, error) {
	if o.Gmark == "" {
		return nil, errors.New("scaled time needs the gmark binary the placeholders run")
	}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "gmark-experiment-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	dir = filepath.Join(dir, mode)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 24 * time.Hour
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, served, err := serveScaled(ctx, sp, dir, o.Gmark)
	if err != nil {
		return nil, err
	}
	out, err := runScaled(ctx, sp, mode, dir, c, timeout)
	_, _ = c.Stop(context.Background(), group, "", 0) // whatever is left
	cancel()
	if serr := <-served; err == nil && serr != nil && !errors.Is(serr, context.Canceled) {
		err = serr
	}
	return out, err
}

// serveScaled starts the metaqueue with the experiment's group of sites
// (Site.siteSpec) and returns a client (served gets Serve's end).
func serveScaled(ctx context.Context, sp *Spec, dir, gmark string) (*metaqueue.Client, chan error, error) {
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return nil, nil, err
	}
	token := hex.EncodeToString(tok)
	gs := metaqueue.GroupSpec{Name: group, Policy: metaqueue.FCFS}
	for _, st := range sp.Sites {
		gs.Sites = append(gs.Sites, st.siteSpec())
	}
	urlc := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- metaqueue.Serve(ctx, metaqueue.ServeOptions{
			Config: metaqueue.Config{State: filepath.Join(dir, "metaqueue.db"), Token: token, Gmark: gmark,
				Watchdog: metaqueue.DefaultWatchdog, Retries: 50, RetryWait: 100 * time.Millisecond},
			Addr: "127.0.0.1:0", Groups: []metaqueue.GroupSpec{gs},
			Serving: func(u string) { urlc <- u }})
	}()
	select {
	case u := <-urlc:
		return &metaqueue.Client{URL: u, Token: token, HTTP: &http.Client{Timeout: time.Minute}}, served, nil
	case err := <-served:
		return nil, nil, fmt.Errorf("the metaqueue did not start: %v", err)
	}
}

func runScaled(ctx context.Context, sp *Spec, mode, dir string, c *metaqueue.Client, timeout time.Duration) (*outcome, error) {
	script := filepath.Join(dir, "work.sh")
	epoch := time.Now()
	if err := os.WriteFile(script, []byte(workScript(sp, epoch)), 0o755); err != nil {
		return nil, err
	}
	jobs := make([]metaqueue.NewJob, len(sp.Units))
	k := 0
	for i, n := range sp.Split {
		for range n {
			jobs[k] = metaqueue.NewJob{Key: strconv.Itoa(k), Command: fmt.Sprintf("/bin/sh %s %d", shQuote(script), int64(math.Round(sp.Units[k]*1e6)))}
			if mode == Static {
				jobs[k].Site = sp.Sites[i].Name
			}
			k++
		}
	}
	for start := 0; start < len(jobs); start += 10000 {
		if _, err := c.AddJobs(ctx, group, jobs[start:min(start+10000, len(jobs))]); err != nil {
			return nil, err
		}
	}
	for _, st := range sp.Sites {
		if _, err := c.Start(ctx, group, st.Name, st.Placeholders); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(timeout)
	for {
		g, err := c.Group(ctx, group)
		if err != nil {
			return nil, err
		}
		if g.Remaining == 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d jobs left after %v of wall time", g.Remaining, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return collectScaled(ctx, sp, c, epoch)
}

// collectScaled reads every job's attempts: each that ran to its end is an
// execution, its times scaled back to the experiment's.
func collectScaled(ctx context.Context, sp *Spec, c *metaqueue.Client, epoch time.Time) (*outcome, error) {
	rep, err := c.Report(ctx, group)
	if err != nil {
		return nil, err
	}
	out := &outcome{report: rep}
	exp := func(t time.Time) float64 { return t.Sub(epoch).Seconds() * sp.TimeScale }
	var after int64
	for {
		js, err := c.Jobs(ctx, group, "", after, 10000)
		if err != nil {
			return nil, err
		}
		if len(js) == 0 {
			break
		}
		for _, j := range js {
			after = j.ID
			k, err := strconv.Atoi(j.Key)
			if err != nil || k < 0 || k >= len(sp.Units) {
				return nil, fmt.Errorf("the metaqueue holds job %d with key %q", j.ID, j.Key)
			}
			for _, a := range j.Attempts {
				if a.Ended.IsZero() || a.Started.IsZero() {
					continue
				}
				if a.Exit == nil || *a.Exit != 0 {
					return nil, fmt.Errorf("job %d at %s exited with %v (see the placeholder's output)", k, a.Site, a.Exit)
				}
				out.runs = append(out.runs, JobRun{Job: k, Site: a.Site, Units: sp.Units[k], Start: exp(a.Started), End: exp(a.Ended)})
			}
		}
	}
	return out, nil
}

// workScript is the job: sh work.sh MICROUNITS, at the site of
// $GMARK_PLACEHOLDER_SITE. It computes, in 64-bit integers, the
// experiment's time now (microseconds since the epoch, times the scale),
// when a job of that many micro-units started now ends at the site (its
// rate and its load intervals, as Site.finish), and sleeps for the wall
// time to then. With GMARK_EXPERIMENT_DRY set it prints "now end sleep"
// (experiment µs, experiment µs, wall µs) instead of sleeping.
func workScript(sp *Spec, epoch time.Time) string {
	var b strings.Builder
	smilli := int64(math.Round(sp.TimeScale * 1000))
	fmt.Fprintf(&b, "#!/bin/sh\n# gmark placeholder experiment %s: one job in scaled time (x%v)\nu=$1\n", sp.Name, sp.TimeScale)
	fmt.Fprintf(&b, "now=$(date +%%s%%N)\nt=$(( (now - %d) / 1000 * %d / 1000 ))\n", epoch.UnixNano(), smilli)
	b.WriteString("case \"$GMARK_PLACEHOLDER_SITE\" in\n")
	for _, st := range sp.Sites {
		fmt.Fprintf(&b, "%s) segs=%q ;;\n", shQuote(st.Name), segments(st))
	}
	b.WriteString("*) echo \"work.sh: unknown site $GMARK_PLACEHOLDER_SITE\" >&2; exit 2 ;;\nesac\n")
	b.WriteString(`f=$t
set -- $segs
while [ $# -ge 2 ]; do
  until=$1; r=$2; shift 2
  if [ "$until" -ge 0 ] && [ "$f" -ge "$until" ]; then continue; fi
  need=$(( u * 1000000 / r ))
  if [ "$until" -lt 0 ] || [ $(( f + need )) -le "$until" ]; then
    f=$(( f + need )); break
  fi
  u=$(( u - r * (until - f) / 1000000 )); f=$until
done
`)
	fmt.Fprintf(&b, "d=$(( (f - t) / %d * 1000 + (f - t) %% %d * 1000 / %d ))\n", smilli, smilli, smilli)
	b.WriteString(`if [ -n "$GMARK_EXPERIMENT_DRY" ]; then echo "$t $f $d"; exit 0; fi
[ "$d" -gt 0 ] && exec sleep "$((d / 1000000)).$(printf %06d $((d % 1000000)))"
exit 0
`)
	return b.String()
}

// segments is a site's rate over time as "until rate" pairs (experiment
// µs, micro-units/s), the last until -1 (for ever).
func segments(st Site) string {
	us := func(t float64) int64 { return int64(math.Round(t * 1e6)) }
	rate := func(r float64) int64 { return max(int64(math.Round(r*1e6)), 1) }
	var parts []string
	t := 0.0
	for _, l := range st.Load {
		if l.From > t {
			parts = append(parts, fmt.Sprint(us(l.From), " ", rate(st.Rate)))
		}
		parts = append(parts, fmt.Sprint(us(l.To), " ", rate(l.Rate)))
		t = l.To
	}
	parts = append(parts, fmt.Sprint(-1, " ", rate(st.Rate)))
	return strings.Join(parts, " ")
}

func shQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
