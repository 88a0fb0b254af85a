package slurmarray

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/sim/experiment"
	"github.com/gmark/gmark/submitter/slurm"
	"github.com/gmark/gmark/submitter/target"
)

// coordinator is one Execute at work.
type coordinator struct {
	e        *experiment.Experiment
	ro       experiment.RunOptions
	o        Options
	cfg      slurm.Config
	exe      string
	clusters []*cluster
	byName   map[string]*cluster
	s        *experiment.Session
	sum      *experiment.Summary
	l        Layout

	runs     map[string][]*experiment.Run // the runs without a result, by digest (a definition planned twice is run once)
	order    []string                     // their digests, in the expansion's order
	tries    map[string]int               // array tasks made for each digest, by every execution
	failures map[string]int               // tasks of each digest that ended without a result, in this execution
	arrays   map[string]*array            // by name
	names    []string                     // the arrays of earlier executions, in order
	slots    map[taskKey]*slot            // the tasks in flight
	byDigest map[string]map[taskKey]bool  // the same, by digest
	queue    []string                     // digests to submit
	seq      int                          // the last array's sequence number
	rr       int                          // the next cluster, round robin

	firstFailure string
}

// array is one submitted (or, found in a manifest, maybe submitted) array.
type array struct {
	m         *Manifest
	c         *cluster // nil: a cluster the options no longer name
	jobID     int64
	confirmed bool // sbatch accepted it (its marker, or Slurm knows its name)
}

// slot is an array task in flight: one run's try.
type slot struct {
	a        *array
	task     int
	digest   string
	missing  int       // polls in a row that found it nowhere
	exitedAt time.Time // when it was first seen ended with exit 0 and no result file yet
}

// start reads what earlier executions left: the result files (merged
// first), then the manifests, whose tasks in flight are followed again.
func (c *coordinator) start(ctx context.Context) error {
	c.runs, c.tries, c.failures = map[string][]*experiment.Run{}, map[string]int{}, map[string]int{}
	c.arrays, c.slots, c.byDigest = map[string]*array{}, map[taskKey]*slot{}, map[string]map[taskKey]bool{}
	err := c.s.Pending(func(r *experiment.Run) bool {
		if _, ok := c.runs[r.Digest]; !ok {
			c.order = append(c.order, r.Digest)
		}
		c.runs[r.Digest] = append(c.runs[r.Digest], r)
		return true
	})
	if err != nil {
		return err
	}
	if err := c.loadArrays(); err != nil {
		return err
	}
	merged := c.sum.Ran
	if err := c.mergeResults(ctx); err != nil {
		return err
	}
	merged = c.sum.Ran - merged
	todo := 0
	for _, runs := range c.runs {
		todo += len(runs)
	}
	c.sum.AlreadyDone, c.sum.Ran = c.sum.Planned-todo, 0
	if c.ro.Started != nil {
		c.ro.Started(c.sum.Planned, c.sum.AlreadyDone, todo)
	}
	if merged > 0 {
		fmt.Fprintf(c.o.Log, "merged %d results that array tasks wrote since the last execution\n", merged)
	}
	c.followArrays()
	for _, d := range c.order {
		if _, pending := c.runs[d]; pending && len(c.byDigest[d]) == 0 {
			c.queue = append(c.queue, d)
		}
	}
	return nil
}

// loadArrays reads the manifests of earlier executions.
func (c *coordinator) loadArrays() error {
	names, seq, err := c.l.manifestNames()
	if err != nil {
		return err
	}
	c.seq = seq
	for _, name := range names {
		m, err := ReadManifest(c.l.manifestPath(name))
		if err != nil {
			fmt.Fprintf(c.o.Log, "ignoring array %s: %v\n", name, err)
			continue
		}
		a := &array{m: m, c: c.byName[m.Cluster]}
		if mk, ok := c.l.readMarker(name); ok {
			a.jobID, a.confirmed = mk.JobID, true
		}
		c.arrays[name] = a
		c.names = append(c.names, name)
		for _, t := range m.Tasks {
			c.tries[t.Digest]++
		}
	}
	return nil
}

// followArrays follows the tasks of earlier executions' arrays whose runs
// have no result yet.
func (c *coordinator) followArrays() {
	for _, name := range c.names {
		a := c.arrays[name]
		if a.c == nil {
			fmt.Fprintf(c.o.Log, "array %s went to cluster %s, which the options no longer name: its tasks are not followed\n", name, a.m.Cluster)
			continue
		}
		n := 0
		for i, t := range a.m.Tasks {
			if _, pending := c.runs[t.Digest]; pending {
				c.addSlot(&slot{a: a, task: i, digest: t.Digest})
				n++
			}
		}
		if n > 0 && a.confirmed {
			fmt.Fprintf(c.o.Log, "following array %s (job %d) on cluster %s: %d of its runs have no result yet\n", name, a.jobID, a.c.name, n)
		}
	}
}

func (c *coordinator) addSlot(s *slot) {
	k := taskKey{s.a.m.Name, s.task}
	c.slots[k] = s
	if c.byDigest[s.digest] == nil {
		c.byDigest[s.digest] = map[taskKey]bool{}
	}
	c.byDigest[s.digest][k] = true
}

func (c *coordinator) dropSlot(s *slot) {
	k := taskKey{s.a.m.Name, s.task}
	delete(c.slots, k)
	delete(c.byDigest[s.digest], k)
}

// loop submits what is queued, polls, merges and judges the tasks until
// every run has a result or has failed its tries.
func (c *coordinator) loop(ctx context.Context) error {
	for {
		if ctx.Err() != nil {
			c.interrupted()
			return nil
		}
		if err := c.submitQueue(ctx); err != nil {
			return err
		}
		if len(c.slots) == 0 && len(c.queue) == 0 {
			return nil
		}
		if !c.wait(ctx) {
			c.interrupted()
			return nil
		}
		views := c.pollClusters(ctx)
		if err := c.mergeResults(ctx); err != nil {
			return err
		}
		if err := c.judge(ctx, views); err != nil {
			return err
		}
	}
}

// interrupted says which arrays keep running without a coordinator.
func (c *coordinator) interrupted() {
	c.sum.Interrupted = true
	names := map[string]bool{}
	for k := range c.slots {
		names[k.name] = true
	}
	for name := range names {
		fmt.Fprintf(c.o.Log, "array %s keeps running: the same command again merges its results (scancel --name=%s stops it)\n", name, name)
	}
}

// pollClusters asks every cluster with tasks in flight what Slurm says of
// them. A cluster that does not answer has no view; one that has not
// answered for UnreachableAfter loses its tasks.
func (c *coordinator) pollClusters(ctx context.Context) map[*cluster]*view {
	busy := map[*cluster]bool{}
	for _, s := range c.slots {
		busy[s.a.c] = true
	}
	views := map[*cluster]*view{}
	for _, cl := range c.clusters {
		if !busy[cl] {
			continue
		}
		v, err := cl.poll(ctx)
		if err != nil {
			if cl.failingSince.IsZero() {
				cl.failingSince = time.Now()
				fmt.Fprintf(c.o.Log, "cluster %s: %v (asking again)\n", cl.name, err)
			}
			continue
		}
		cl.failingSince = time.Time{}
		cl.configure(ctx)
		if cl.needsJobComp(v, c.slots) {
			cl.readJobComp(v)
		}
		views[cl] = v
	}
	return views
}

// judge decides, for every task in flight, whether it is still on its way,
// or ended without a result (then it fails).
func (c *coordinator) judge(ctx context.Context, views map[*cluster]*view) error {
	for _, a := range c.arrays {
		v := views[a.c]
		if a.confirmed || v == nil {
			continue
		}
		if id, ok := v.arrays[a.m.Name]; ok {
			a.jobID, a.confirmed = id, true
			if err := c.l.writeMarker(a.m.Name, submitted{Cluster: a.c.name, JobID: id, SubmittedNS: time.Now().UnixNano()}); err != nil {
				return err
			}
			fmt.Fprintf(c.o.Log, "found array %s (job %d) on cluster %s\n", a.m.Name, id, a.c.name)
			continue
		}
		if !a.c.jcBehind {
			c.abandon(a)
		}
	}
	for k, s := range c.slots {
		v := views[s.a.c]
		if v == nil {
			if since := s.a.c.failingSince; !since.IsZero() && time.Since(since) > c.cfg.UnreachableAfter {
				reason := fmt.Sprintf("cluster %s has not answered squeue for %s", s.a.c.name, time.Since(since).Round(time.Second))
				if err := c.fail(ctx, s, store.SimTaskLost, slurmcli.Record{}, reason); err != nil {
					return err
				}
			}
			continue
		}
		rec, ok := s.a.c.task(v, k)
		if err := c.observe(ctx, s, rec, ok); err != nil {
			return err
		}
	}
	return nil
}

// abandon forgets an array found in a manifest without a marker that
// Slurm does not know: the coordinator was killed before sbatch, or
// sbatch failed. Its runs are submitted anew.
func (c *coordinator) abandon(a *array) {
	fmt.Fprintf(c.o.Log, "array %s was never submitted (Slurm does not know it): its runs go to a new array\n", a.m.Name)
	for i, t := range a.m.Tasks {
		c.tries[t.Digest]--
		if s := c.slots[taskKey{a.m.Name, i}]; s != nil {
			c.dropSlot(s)
			if _, pending := c.runs[t.Digest]; pending && len(c.byDigest[t.Digest]) == 0 {
				c.queue = append(c.queue, t.Digest)
			}
		}
	}
	delete(c.arrays, a.m.Name)
	_ = os.Rename(c.l.manifestPath(a.m.Name), c.l.manifestPath(a.m.Name)+".unsubmitted")
}

// observe judges one task by what Slurm says of it.
func (c *coordinator) observe(ctx context.Context, s *slot, rec slurmcli.Record, known bool) error {
	if !known {
		if s.a.c.jcBehind {
			return nil // the job completion log is not read to its end yet
		}
		if s.missing++; s.missing < lostPolls {
			return nil
		}
		return c.fail(ctx, s, store.SimTaskLost, rec, "neither squeue nor the job completion log knows it")
	}
	s.missing = 0
	switch rec.Class() {
	case "queued", "running":
		return nil
	case "succeeded":
		if s.exitedAt.IsZero() {
			s.exitedAt = time.Now()
		}
		if time.Since(s.exitedAt) < resultGrace {
			return nil
		}
		return c.fail(ctx, s, store.SimTaskFailed, rec, fmt.Sprintf("exited 0, but no result file appeared in %s within %s: do the nodes share it?", c.l.results(), resultGrace))
	case "cancelled":
		return c.fail(ctx, s, store.SimTaskCancelled, rec, c.reason(s, rec))
	default:
		return c.fail(ctx, s, store.SimTaskFailed, rec, c.reason(s, rec))
	}
}

// reason says why a task ended: Slurm's state, its exit status or
// signal, and the last line the task wrote.
func (c *coordinator) reason(s *slot, rec slurmcli.Record) string {
	msg := rec.State
	switch {
	case rec.Signal != 0:
		msg += fmt.Sprintf(", signal %d", rec.Signal)
	case rec.Exit != 0:
		msg += fmt.Sprintf(", exit status %d", rec.Exit)
	}
	if line := lastLine(c.l.LogPath(s.a.m.Name, s.task)); line != "" {
		msg += ": " + line
	}
	return msg
}

// lastLine is the last line of a task's log, shortened.
func lastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, 4096)
	if fi, err := f.Stat(); err == nil && fi.Size() > int64(len(b)) {
		_, _ = f.Seek(fi.Size()-int64(len(b)), 0)
	}
	n, _ := f.Read(b)
	lines := strings.Split(strings.TrimSpace(string(b[:n])), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	if len(line) > 300 {
		line = line[:300] + "…"
	}
	return line
}

// fail records a task that ended without a result, and submits its run
// again unless it has had its tries.
func (c *coordinator) fail(ctx context.Context, s *slot, state string, rec slurmcli.Record, reason string) error {
	c.dropSlot(s)
	t := s.a.m.Tasks[s.task]
	task := store.SimTask{InvocationID: c.s.Invocation(), ArrayName: s.a.m.Name, Task: s.task, Digest: s.digest, Try: t.Try, Cluster: s.a.m.Cluster,
		SlurmJobID: slurmJobID(s.a.jobID, s.task), State: state, Reason: reason, StartedNS: rec.Start * 1e9, EndedNS: rec.End * 1e9,
		RecordedNS: time.Now().UnixNano()}
	err := c.s.Store().Write(ctx, func(tx *store.Tx) error {
		inserted, err := tx.InsertSimTask(task)
		if err != nil || !inserted || rec.Start == 0 {
			return err
		}
		return tx.InsertSimAttempt(s.digest, c.s.Invocation(), rec.Start*1e9)
	})
	if err != nil {
		return err
	}
	runs := c.runs[s.digest]
	what := fmt.Sprintf("task %d of %s (job %s, %s, try %d): %s: %s", s.task, s.a.m.Name, task.SlurmJobID, runs[0], t.Try, state, reason)
	if len(c.byDigest[s.digest]) > 0 {
		fmt.Fprintf(c.o.Log, "%s; another task of the run is on its way\n", what)
		return nil
	}
	if c.failures[s.digest]++; c.failures[s.digest] <= c.o.Retries {
		fmt.Fprintf(c.o.Log, "%s; submitting it again (retry %d of %d)\n", what, c.failures[s.digest], c.o.Retries)
		c.queue = append(c.queue, s.digest)
		return nil
	}
	fmt.Fprintf(c.o.Log, "%s; giving up after %d tries in this execution\n", what, c.failures[s.digest])
	if c.firstFailure == "" {
		c.firstFailure = what
	}
	delete(c.runs, s.digest)
	for _, r := range runs {
		c.sum.Failed++
		if c.ro.Done != nil {
			c.ro.Done(r, fmt.Errorf("%s: its array task failed %d times (the last: %s: %s)", r, c.failures[s.digest], state, reason))
		}
	}
	return nil
}

func slurmJobID(arrayJob int64, task int) string {
	if arrayJob == 0 {
		return "?_" + strconv.Itoa(task)
	}
	return strconv.FormatInt(arrayJob, 10) + "_" + strconv.Itoa(task)
}

// submitQueue submits the queued runs: their tasks spread over the
// clusters in turn, one array per cluster (or more when a cluster takes
// fewer tasks per array).
func (c *coordinator) submitQueue(ctx context.Context) error {
	var todo []string
	seen := map[string]bool{}
	for _, d := range c.queue {
		if _, pending := c.runs[d]; pending && !seen[d] && len(c.byDigest[d]) == 0 {
			seen[d] = true
			todo = append(todo, d)
		}
	}
	c.queue = nil
	groups := make([][]string, len(c.clusters))
	for _, d := range todo {
		groups[c.rr%len(c.clusters)] = append(groups[c.rr%len(c.clusters)], d)
		c.rr++
	}
	for i, g := range groups {
		cl := c.clusters[i]
		cl.configure(ctx)
		for len(g) > 0 {
			n := min(len(g), cl.maxArray)
			if err := c.submitArray(ctx, cl, g[:n]); err != nil {
				return err
			}
			g = g[n:]
		}
	}
	return nil
}

// submitArray writes the manifest and the script of an array of these
// runs, submits it, and writes its marker.
func (c *coordinator) submitArray(ctx context.Context, cl *cluster, digests []string) error {
	c.seq++
	name := c.l.ArrayName(c.seq)
	m := &Manifest{Format: manifestFormat, Name: name, Cluster: cl.name, Experiment: c.e.Path, Source: c.e.Source, Scale: c.e.Scale,
		ExperimentDigest: c.sum.Digest, Results: c.l.results(), CreatedNS: time.Now().UnixNano()}
	if abs, err := filepath.Abs(c.e.Path); err == nil {
		m.Experiment = abs
	}
	for _, d := range digests {
		m.Tasks = append(m.Tasks, Task{Run: c.runs[d][0].Index, Digest: d, Try: c.tries[d] + 1})
	}
	if err := c.l.writeManifest(m); err != nil {
		return err
	}
	sh := c.l.scriptPath(name)
	if err := os.WriteFile(sh, []byte(script(c.exe, c.l.manifestPath(name), name)), 0o755); err != nil {
		return err
	}
	spec := fmt.Sprintf("0-%d", len(digests)-1)
	if c.o.ArrayLimit > 0 {
		spec += "%" + strconv.Itoa(c.o.ArrayLimit)
	}
	args := append([]string{"--parsable", "--array=" + spec, "--job-name=" + name, "--chdir=" + c.l.Dir,
		"--output=" + filepath.Join(c.l.logs(), name+"_%a.out")}, c.cfg.SbatchArgs...)
	id, err := cl.sbatch(ctx, append(args, sh)...)
	if err != nil && ctx.Err() == nil && !target.IsTransient(err) {
		_ = os.Rename(c.l.manifestPath(name), c.l.manifestPath(name)+".unsubmitted")
		return fmt.Errorf("cluster %s refused the array: %w", cl.name, err)
	}
	a := &array{m: m, c: cl, jobID: id, confirmed: err == nil}
	c.arrays[name] = a
	for i, d := range digests {
		c.tries[d]++
		c.addSlot(&slot{a: a, task: i, digest: d})
	}
	if err != nil {
		// sbatch timed out, said "not now", or was interrupted: the array
		// may have gone in. The next poll looks for it by name, and submits
		// its runs again when Slurm does not know it (abandon).
		if cl.sbatchFailingSince.IsZero() {
			cl.sbatchFailingSince = time.Now()
		} else if time.Since(cl.sbatchFailingSince) > c.cfg.UnreachableAfter {
			return fmt.Errorf("cluster %s has not taken an array for %s: %w", cl.name, time.Since(cl.sbatchFailingSince).Round(time.Second), err)
		}
		if ctx.Err() == nil {
			fmt.Fprintf(c.o.Log, "cluster %s: %v (looking for array %s by its name)\n", cl.name, err, name)
		}
		return nil
	}
	cl.sbatchFailingSince = time.Time{}
	if err := c.l.writeMarker(name, submitted{Cluster: cl.name, JobID: id, SubmittedNS: time.Now().UnixNano()}); err != nil {
		return err
	}
	limit := "as many at once as Slurm starts"
	if c.o.ArrayLimit > 0 {
		limit = fmt.Sprintf("at most %d at once", c.o.ArrayLimit)
	}
	fmt.Fprintf(c.o.Log, "submitted array %s (job %d) to cluster %s: %d runs, %s\n", name, id, cl.name, len(digests), limit)
	return nil
}
