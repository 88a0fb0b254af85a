// Package ce is what the targets that reach clusters through grid
// middleware share: gmark submits each job, or each component of a
// co-allocated job, to a compute element (an ARC CE, submitter/arc; a GRAM5
// gatekeeper, submitter/gram), one CE per cluster as a grid has, and the
// CE passes it to its cluster's batch system. A Backend is one CE: it
// submits a part, polls many parts, cancels, and finds parts by name after
// a crash; this package plans where the parts go, tracks them, turns what
// the CEs say into the submitter's updates, and co-allocates.
//
// Co-allocation is claiming, as the Slurm target's (submitter/target,
// claim.go), since no CE co-allocates: every component of a job of
// several is a CE job of its own that, once its cluster has started it,
// holds its processors until a release file exists
// (printers.Config.HoldUntil); when every component
// has started the target creates the file and the application starts in
// all at once, its processes meeting through a rendezvous file
// (GMARK_RENDEZVOUS_FILE) in the work directory. A component not started
// ClaimRetry after another began holding is cancelled and claimed again,
// up to ClaimTries; then the job fails, naming it. The release and
// rendezvous files are in the work directory, which the CEs' worker nodes
// must see at the same path (docs/grid.md).
//
// Every CE job gmark submits is named
// gmark-<job id>[.c<component>[.t<try>]].a<attempt>-<run>, its idempotency
// key: after a crash Find and Track look the names up (Backend.Lookup)
// before anything is submitted again.
package ce

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
	"github.com/gmark/gmark/workload"
)

// Request is one part to submit: a whole job of one component, or one
// component of a co-allocated job at a claiming try.
type Request struct {
	Name      string        // the part's name, its idempotency key (and its files' names)
	Job       *workload.Job // the whole job (its wall time includes the hold budget when held)
	Component int           // the component; a job of one component has only 0
	// Hold is the release file the part waits for once started ("" none).
	Hold string
	// Env is added to the part's environment (NAME=value).
	Env []string
}

// Submitted is what a CE said when it took a part.
type Submitted struct {
	ID     string // the CE's id for the job
	Output string // what the CE answered, for the record
}

// Status is what a CE says of one of its jobs.
type Status struct {
	// State is queued, running, succeeded, failed or cancelled.
	State submitter.State
	// CEState is the CE's own word for it (ACCEPTED, INLRMS, ACTIVE, …).
	CEState string
	// Times, by the CE's clock, zero when unknown: accepted, started by
	// the LRM, ended.
	Submit, Start, End time.Time
	Exit               *int   // the job's exit status, when it ended and one is known
	Reason             string // why it failed or was cancelled
	// Detail is the CE's record of the job, for the event payload.
	Detail any
}

// Ref names a CE job: the CE's id and gmark's name for it.
type Ref struct{ ID, Name string }

// Found is a part a CE has, found by its name.
type Found struct {
	Name   string
	ID     string
	Status Status
}

// Backend is one compute element.
type Backend interface {
	// Submit submits one part. An error that may pass (the CE did not
	// answer) is marked target.Transient; the part may then exist, and
	// Lookup finds it.
	Submit(ctx context.Context, r *Request) (Submitted, error)
	// Poll asks about many jobs at once; the answer has an entry, by id,
	// for each job the CE knows. A job's final status comes only once
	// what it left is collected (its output files in the work directory).
	Poll(ctx context.Context, jobs []Ref) (map[string]Status, error)
	// Cancel asks the CE to end jobs.
	Cancel(ctx context.Context, ids []string) error
	// Lookup finds the CE's jobs whose names match.
	Lookup(ctx context.Context, match func(name string) bool) ([]Found, error)
}

// CE is one compute element of the target: a cluster, by its name.
type CE struct {
	Name    string
	Backend Backend
}

// Config makes a Target.
type Config struct {
	Kind string // the target's name: "arc", "gram"
	CEs  []CE
	// WorkDir holds the release and rendezvous files and the parts'
	// output; the CEs' worker nodes must see it at the same path.
	WorkDir          string
	Poll             time.Duration // how often each CE is polled
	UnreachableAfter time.Duration // how long a CE may fail to answer before its jobs are lost
	ClaimRetry       time.Duration
	ClaimTries       int
	// Wait, when set, waits for what an earlier submitter left submitting
	// a part of that name (target.Orphans); Find calls it first.
	Wait func(ctx context.Context, name string) error
}

// Directories of the work directory.
const (
	releaseDir    = "release"
	rendezvousDir = "rendezvous"
)

// Target submits to the CEs of one grid.
type Target struct {
	cfg    Config
	ces    []*ceState
	byName map[string]*ceState

	mu    sync.Mutex
	rep   submitter.Reporter
	jobs  map[string]*cjob   // tracked, by key
	memo  map[string][]*part // parts of submissions not yet complete, by key
	rr    int
	polls target.Pollers
	bg    sync.WaitGroup // cancellations and new claiming tries under way
}

type ceState struct {
	name string
	be   Backend
	// Owned by the CE's poller.
	reach target.Reach
}

// part is one CE job.
type part struct {
	ce        *ceState
	comp      int // -1: the whole job
	try       int
	id        string
	name      string
	submitted time.Time
	st        Status
	seen      bool      // the CE has answered about it
	missing   time.Time // since when the CE does not know it
	lost      string

	target.ClaimPart // claiming (claim.go)
}

func (p *part) final() bool { return p.lost != "" || (p.seen && p.st.State.Final()) }

type cjob struct {
	sub       submitter.Submission
	parts     []*part
	reported  submitter.State
	cancelled bool

	// The claiming of a job of several parts (claim.go); nil for a job
	// of one.
	claim *target.Claim
}

// New checks the configuration and makes the work directory's release
// and rendezvous directories (the latter writable by the CEs' mapped
// accounts, whose processes publish their rendezvous there).
func New(cfg Config) (*Target, error) {
	if len(cfg.CEs) == 0 {
		return nil, fmt.Errorf("%s: no CE", cfg.Kind)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 2 * time.Second
	}
	if cfg.UnreachableAfter <= 0 {
		cfg.UnreachableAfter = 2 * time.Minute
	}
	if cfg.ClaimRetry <= 0 {
		cfg.ClaimRetry = target.DefaultClaimRetry
	}
	if cfg.ClaimTries <= 0 {
		cfg.ClaimTries = target.DefaultClaimTries
	}
	if cfg.ClaimTries > target.MaxClaimTries {
		return nil, fmt.Errorf("%s: claim_tries %d is more than %d", cfg.Kind, cfg.ClaimTries, target.MaxClaimTries)
	}
	if cfg.WorkDir == "" {
		return nil, fmt.Errorf("%s: no work directory", cfg.Kind)
	}
	if err := os.MkdirAll(filepath.Join(cfg.WorkDir, releaseDir), 0o755); err != nil {
		return nil, fmt.Errorf("%s: %v", cfg.Kind, err)
	}
	rdv := filepath.Join(cfg.WorkDir, rendezvousDir)
	if err := os.MkdirAll(rdv, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %v", cfg.Kind, err)
	}
	if err := os.Chmod(rdv, 0o1777); err != nil {
		return nil, fmt.Errorf("%s: %v", cfg.Kind, err)
	}
	t := &Target{cfg: cfg, byName: map[string]*ceState{}, jobs: map[string]*cjob{}, memo: map[string][]*part{}}
	for _, c := range cfg.CEs {
		if c.Name == "" || strings.ContainsAny(c.Name, ":,") {
			return nil, fmt.Errorf("%s: CE name %q: a name without ':' or ','", cfg.Kind, c.Name)
		}
		if t.byName[c.Name] != nil {
			return nil, fmt.Errorf("%s: CE %s is named twice", cfg.Kind, c.Name)
		}
		s := &ceState{name: c.Name, be: c.Backend}
		t.ces = append(t.ces, s)
		t.byName[c.Name] = s
	}
	return t, nil
}

func (t *Target) Name() string { return t.cfg.Kind }

func (t *Target) Caps() submitter.Caps {
	return submitter.Caps{Find: true, Cancel: true, CoAllocates: true}
}

// Watch starts one poller per CE.
func (t *Target) Watch(ctx context.Context, r submitter.Reporter) error {
	t.mu.Lock()
	t.rep = r
	t.mu.Unlock()
	for _, c := range t.ces {
		t.polls.Go(ctx, t.cfg.Poll, func(ctx context.Context) { t.poll(ctx, c) })
	}
	return nil
}

// Close stops the pollers and waits for the cancellations and claiming
// tries under way.
func (t *Target) Close() error {
	t.polls.Close()
	t.bg.Wait()
	return nil
}

func (t *Target) names() string {
	var n []string
	for _, c := range t.ces {
		n = append(n, c.name)
	}
	return strings.Join(n, ", ")
}

// planned is where one part goes.
type planned struct {
	ce   *ceState
	comp int // -1: the whole job
}

// plan sends a job of one component whole, and each component of a job of
// several on its own: a component that names a site to that CE, the
// others to the CEs in turn.
func (t *Target) plan(j *workload.Job) ([]planned, error) {
	out := make([]planned, len(j.Components))
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, comp := range j.Components {
		c := t.byName[comp.Site]
		if comp.Site != workload.AnySite && comp.Site != "" && c == nil {
			return nil, fmt.Errorf("job %s asks for site %q, but the targets file names no such CE (CEs: %s)", j.ID, comp.Site, t.names())
		}
		if c == nil {
			c = t.ces[t.rr%len(t.ces)]
			t.rr++
		}
		out[i] = planned{ce: c, comp: i}
	}
	if len(out) == 1 {
		out[0].comp = -1
	}
	return out, nil
}

// Submit submits the parts of the job not yet submitted.
func (t *Target) Submit(ctx context.Context, s *submitter.Submission) (submitter.Receipt, error) {
	plan, err := t.plan(s.Job)
	if err != nil {
		return submitter.Receipt{}, err
	}
	t.mu.Lock()
	done := map[int]bool{}
	for _, p := range t.memo[s.Key] {
		done[p.comp] = true
	}
	t.mu.Unlock()
	var outputs []string
	for _, pl := range plan {
		if done[pl.comp] {
			continue
		}
		p, out, err := t.submitPart(ctx, pl, s, 1)
		if out != "" {
			outputs = append(outputs, out)
		}
		if err != nil {
			if !target.IsTransient(err) {
				t.giveUp(ctx, s)
			}
			return submitter.Receipt{Output: strings.Join(outputs, "\n")}, err
		}
		t.mu.Lock()
		t.memo[s.Key] = append(t.memo[s.Key], p)
		t.mu.Unlock()
	}
	t.mu.Lock()
	parts := t.memo[s.Key]
	delete(t.memo, s.Key)
	cj := t.newJob(s, parts)
	t.jobs[s.Key] = cj
	t.report(submitter.Update{Key: s.Key, State: submitter.Queued, Time: time.Now()})
	t.mu.Unlock()
	zero := 0
	return submitter.Receipt{TargetID: targetID(cj.parts), Output: strings.Join(outputs, "\n"), ExitStatus: &zero, Sites: sites(cj.parts)}, nil
}

// giveUp cancels the parts of s that were submitted: another failed.
func (t *Target) giveUp(ctx context.Context, s *submitter.Submission) {
	t.mu.Lock()
	parts := t.memo[s.Key]
	delete(t.memo, s.Key)
	t.mu.Unlock()
	for _, p := range parts {
		p.ce.be.Cancel(context.WithoutCancel(ctx), []string{p.id})
	}
}

// submitPart submits one part at claiming try try.
func (t *Target) submitPart(ctx context.Context, pl planned, s *submitter.Submission, try int) (*part, string, error) {
	name := partName(s, pl.comp, try)
	r := &Request{Name: name, Job: s.Job, Component: max(pl.comp, 0)}
	if pl.comp >= 0 {
		j := *s.Job
		if j.WallTime > 0 {
			j.WallTime += target.HoldBudget(t.cfg.ClaimTries, t.cfg.ClaimRetry)
		}
		r.Job, r.Hold = &j, t.releasePath(s)
		r.Env = []string{"GMARK_RENDEZVOUS_FILE=" + t.rendezvousPath(s)}
	}
	now := time.Now()
	got, err := pl.ce.be.Submit(ctx, r)
	if err != nil {
		if pl.comp >= 0 {
			err = fmt.Errorf("component %d on %s: %w", pl.comp, pl.ce.name, err)
		} else {
			err = fmt.Errorf("%s: %w", pl.ce.name, err)
		}
		return nil, got.Output, err
	}
	return &part{ce: pl.ce, comp: pl.comp, try: try, id: got.ID, name: name, submitted: now,
		st: Status{State: submitter.Queued}}, pl.ce.name + ": " + got.Output, nil
}

// Cancel asks the CEs to end every part of the job not ended.
func (t *Target) Cancel(ctx context.Context, s *submitter.Submission) error {
	t.mu.Lock()
	cj := t.jobs[s.Key]
	byCE := map[*ceState][]string{}
	if cj != nil {
		cj.cancelled = true
		for _, p := range cj.parts {
			if !p.final() {
				byCE[p.ce] = append(byCE[p.ce], p.id)
			}
		}
	}
	t.mu.Unlock()
	var errs []error
	for c, ids := range byCE {
		if err := c.be.Cancel(ctx, ids); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}

// Find looks for the parts of a submission by their names on every CE (the
// latest claiming try of each component; older tries not ended are
// cancelled). It reports found only when every part is there; the parts of
// a partial submission are remembered, so Submit sends only the missing
// ones.
func (t *Target) Find(ctx context.Context, s *submitter.Submission) (submitter.Receipt, bool, error) {
	if t.cfg.Wait != nil {
		for _, name := range t.partNames(s) {
			if err := t.cfg.Wait(ctx, name); err != nil {
				return submitter.Receipt{}, false, err
			}
		}
	}
	var found []*part
	for _, c := range t.ces {
		got, err := t.lookup(ctx, c, s)
		if err != nil {
			return submitter.Receipt{}, false, target.Transient(fmt.Errorf("%s: %w", c.name, err))
		}
		found = append(found, got...)
	}
	found = t.latestTries(found)
	if len(found) == 0 {
		return submitter.Receipt{}, false, nil
	}
	complete := len(found) == len(s.Job.Components)
	if len(s.Job.Components) == 1 {
		complete = found[0].comp == -1
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !complete {
		t.memo[s.Key] = found
		return submitter.Receipt{}, false, nil
	}
	cj := t.newJob(s, found)
	t.jobs[s.Key] = cj
	zero := 0
	return submitter.Receipt{TargetID: targetID(cj.parts), Output: "found on the CE by job name", ExitStatus: &zero, Sites: sites(cj.parts)}, true, nil
}

// lookup finds the parts of s on CE c.
func (t *Target) lookup(ctx context.Context, c *ceState, s *submitter.Submission) ([]*part, error) {
	got, err := c.be.Lookup(ctx, func(name string) bool { _, _, ok := parseName(s, name); return ok })
	if err != nil {
		return nil, err
	}
	var out []*part
	for _, f := range got {
		comp, try, ok := parseName(s, f.Name)
		if !ok {
			continue
		}
		// Not seen: the poller asks again, and so collects what an ended
		// one left before its end is reported.
		out = append(out, &part{ce: c, comp: comp, try: try, id: f.ID, name: f.Name, st: Status{State: submitter.Queued, CEState: f.Status.CEState}})
	}
	return out, nil
}

// latestTries keeps the latest claiming try of each component (or the
// whole job) and cancels the older ones not ended.
func (t *Target) latestTries(found []*part) []*part {
	latest, older := target.LatestTries(found, func(p *part) int { return p.comp }, func(p, q *part) bool { return p.try > q.try })
	for _, p := range older {
		if !p.final() {
			t.cancelLater(p)
		}
	}
	return orderParts(latest)
}

// Track resumes tracking a job from its target id ("fs0:ID,fs3:ID"); the
// parts of a co-allocated job are looked up by name, since a component
// claimed again since the id was recorded is another CE job.
func (t *Target) Track(ctx context.Context, s *submitter.Submission, r submitter.Receipt) error {
	var parts []*part
	entries, ok := target.SplitTargetID(r.TargetID)
	for _, e := range entries {
		c := t.byName[e.Site]
		if c == nil {
			ok = false
			break
		}
		parts = append(parts, &part{ce: c, comp: e.Comp, try: 1, id: e.ID, name: partName(s, e.Comp, 1), st: Status{State: submitter.Queued}})
	}
	if !ok {
		return fmt.Errorf("target id %q: not a job of this target's CEs (%s)", r.TargetID, t.names())
	}
	if len(parts) > 1 {
		var found []*part
		asked := map[*ceState]bool{}
		for _, p := range parts {
			if asked[p.ce] {
				continue
			}
			asked[p.ce] = true
			got, err := t.lookup(ctx, p.ce, s)
			if err != nil {
				return target.Transient(err)
			}
			found = append(found, got...)
		}
		byComp := map[int]*part{}
		for _, p := range t.latestTries(found) {
			byComp[p.comp] = p
		}
		for i, p := range parts {
			if q := byComp[p.comp]; q != nil && q.try >= p.try {
				parts[i] = q
			}
		}
	}
	t.mu.Lock()
	t.jobs[s.Key] = t.newJob(s, parts)
	t.mu.Unlock()
	return nil
}

// cancelLater cancels part p in the background (Close waits for it).
func (t *Target) cancelLater(p *part) {
	t.bg.Add(1)
	go func() {
		defer t.bg.Done()
		p.ce.be.Cancel(context.Background(), []string{p.id})
	}()
}

func (t *Target) report(u submitter.Update) {
	if t.rep != nil {
		t.rep.Report(u)
	}
}

// annotate is Reporter.Annotate; t.mu is held.
func (t *Target) annotate(kind, key, value string) {
	if t.rep != nil {
		t.rep.Annotate(kind, key, value)
	}
}

func orderParts(parts []*part) []*part {
	return target.ByComponent(parts, func(p *part) int { return p.comp })
}

// targetID is "ce:id" per part, comma-separated in component order.
func targetID(parts []*part) string {
	return target.JoinTargetID(parts, func(p *part) (string, string) { return p.ce.name, p.id })
}

func sites(parts []*part) []string {
	return target.Sites(parts, func(p *part) string { return p.ce.name })
}

// partsDetail is what the CEs said of each part, for the event payload.
func partsDetail(kind string, parts []*part) json.RawMessage {
	type pd struct {
		Component int    `json:"component"`
		CE        string `json:"ce"`
		ID        string `json:"id"`
		Try       int    `json:"try,omitempty"`
		State     string `json:"state"`
		CEState   string `json:"ce_state,omitempty"`
		Record    any    `json:"record,omitempty"`
	}
	var out []pd
	for _, p := range parts {
		state := string(p.st.State)
		if p.lost != "" {
			state = "lost"
		}
		out = append(out, pd{p.comp, p.ce.name, p.id, p.try, state, p.st.CEState, p.st.Detail})
	}
	b, _ := json.Marshal(map[string]any{kind: out})
	return b
}

var _ submitter.Target = (*Target)(nil)
