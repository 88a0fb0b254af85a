package generator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// wl:trace replays the jobs of a GWF, GWF-SQLite or SWF trace: filtered,
// optionally narrowed to a representative area, rebased to the selection's
// start and scaled, with the trace's sites mapped onto the grid's clusters.
// Each trace job becomes a unitary job running the swf application, which
// replays the job's run time and size; each workflow of a workflow trace
// (GWF's workflow variant) a composite job of such tasks (wltrace_wf.go).
// The keys are documented in docs/trace.md and docs/wdl.md.
func init() {
	RegisterWorkloadGenerator(&WorkloadGenerator{
		Name:    "trace",
		Doc:     "replays the jobs of a GWF, GWF-SQLite or SWF trace (File=…), filtered, area-selected and scaled, each reading an input file on request (InputFile=, InputFilesWithWeights=); a workflow trace's workflows as composite jobs",
		Prepare: prepareTrace,
	})
}

// tracePlan is a prepared wl:trace unit.
type tracePlan struct {
	unit     *wdl.Unit
	path     string
	opts     gwa.ReadOptions
	sel      gwa.Selection
	clusters []string          // Sites=: clusters the trace's sites are spread over
	siteMap  map[string]string // SiteMap=: trace site (id or name) → cluster
	app      *appMaker
	files    *inputFiles // InputFile=, InputFilesWithWeights=: what each replayed job reads
	taskFile string      // TaskFiles=: which of a workflow task's files it reads and writes (wltrace_wf.go)
	seed     uint64
	period   time.Duration // the offset between back-to-back replays
	warm     bool          // WarmStart=true: begin with the jobs in flight at the window's start
	inFlight []gwa.InFlightJob
	origin   float64               // the window's start in trace time
	replay   *workload.TraceReplay // what the manifest records
}

func prepareTrace(u *wdl.Unit, seed uint64) (func() (WorkloadSource, error), wdl.ErrorList) {
	o := u.Options
	fileOpt, ok := o.Get("File")
	if !ok || fileOpt.Value == "" {
		return nil, wdl.ErrorList{wdl.Errorf(u.Cols.OtherInfo, "wl:trace needs File=PATH, the trace to replay (SWF, GWF or GWF-SQLite; .gz is read too)")}
	}
	p := &tracePlan{unit: u, seed: seed}
	r := &traceOptions{o: o}
	p.readSource(r, fileOpt)
	p.readFilters(r)
	p.readScaling(r)
	p.readArea(r)
	p.readSites(r)
	if v, ok, err := o.Bool("WarmStart"); err != nil {
		r.add(err)
	} else if ok {
		p.warm = v
	}
	// The swf application, its parameters as for any swf unit (Scale=, Mode=).
	app, _ := LookupApp("swf")
	m, merrs := prepareApp(app, optView{o: o}, false)
	r.errs = append(r.errs, merrs...)
	p.app = m
	files, ferrs := prepareInputFiles(o)
	r.errs = append(r.errs, ferrs...)
	p.files = files
	p.taskFile = r.taskFiles()
	if len(r.errs) > 0 {
		return nil, r.errs
	}

	// A first pass: check the trace, select the area, count the jobs and
	// find the replay period. Errors are reported at the File= value.
	n, period, err := p.firstPass()
	if errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(fileOpt.Value) {
		return nil, wdl.ErrorList{wdl.Errorf(fileOpt.Pos, "File: no trace at %s (a relative path is relative to %s, the file that names it)",
			p.path, fileOpt.Pos.File)}
	}
	if err != nil {
		return nil, wdl.ErrorList{wdl.Errorf(fileOpt.Pos, "File: %v", err)}
	}
	// Replays follow each other: the last one starts (NTimes−1) periods in.
	if u.NTimes > 1 && period > wdl.MaxDuration/time.Duration(u.NTimes-1) {
		return nil, wdl.ErrorList{wdl.Errorf(u.Cols.NTimes, "%d replays of a %v selection pass %d years, the limit of submit offsets: give fewer replays or a shorter selection",
			u.NTimes, period, wdl.MaxSeconds/(365*86400))}
	}
	p.period = period
	if err := p.describe(n); err != nil {
		return nil, wdl.ErrorList{wdl.Errorf(fileOpt.Pos, "File: %v", err)}
	}
	return func() (WorkloadSource, error) { return p.newSource() }, nil
}

// traceOptions reads a wl:trace unit's options, collecting every error.
type traceOptions struct {
	o    *wdl.Options
	errs wdl.ErrorList
}

// add keeps err when it is positioned (the options' readers return
// *wdl.Error).
func (r *traceOptions) add(err error) {
	if e, ok := err.(*wdl.Error); ok {
		r.errs = append(r.errs, e)
	}
}

// errorf adds an error at the value of key.
func (r *traceOptions) errorf(key, format string, args ...any) {
	opt, _ := r.o.Get(key)
	r.errs = append(r.errs, wdl.Errorf(opt.Pos, format, args...))
}

// seconds reads a duration option in seconds.
func (r *traceOptions) seconds(key string) (float64, bool) {
	d, ok, err := traceSeconds(r.o, key)
	if err != nil {
		r.add(err)
		return 0, false
	}
	return d, ok
}

// list reads a comma-separated option.
func (r *traceOptions) list(key string) ([]string, bool) {
	v, ok, err := r.o.List(key)
	if err != nil {
		r.add(err)
		return nil, false
	}
	return v, ok
}

// readSource: the trace's path (relative to the spec), format and strictness.
func (p *tracePlan) readSource(r *traceOptions, fileOpt wdl.Option) {
	p.path = specRelative(fileOpt.Value, fileOpt.Pos.File)
	p.opts = gwa.ReadOptions{Strict: true, Name: p.path}
	if v, ok, err := r.o.Bool("Strict"); err != nil {
		r.add(err)
	} else if ok {
		p.opts.Strict = v
	}
	if opt, ok := r.o.Get("Format"); ok {
		f, known := gwa.ParseFormat(opt.Value)
		if !known {
			r.errorf("Format", "Format: %q is not swf, gwf, wf, sqlite, wfformat or wta", wdl.Excerpt(opt.Value))
		}
		p.opts.Format = f
	}
}

// readFilters: which of the trace's jobs are replayed.
func (p *tracePlan) readFilters(r *traceOptions) {
	f := &p.sel.Filter
	if d, ok := r.seconds("From"); ok {
		f.Submit.Min, f.Submit.HasMin = d, true
	}
	if d, ok := r.seconds("To"); ok {
		f.Submit.Max, f.Submit.HasMax = d, true
		if f.Submit.HasMin && d <= f.Submit.Min {
			r.errorf("To", "To (%gs) must be after From (%gs)", d, f.Submit.Min)
		}
	}
	if n, ok, err := r.o.Int("FirstN", 1, math.MaxInt32); err != nil {
		r.add(err)
	} else if ok {
		f.FirstN = int64(n)
	}
	if v, ok := r.list("TraceSites"); ok {
		f.Sites = v
	}
	if v, ok := r.list("Users"); ok {
		f.Users = v
	}
	if v, ok := r.list("Status"); ok {
		for _, s := range v {
			st, err := gwa.ParseStatus(s)
			if err != nil {
				r.errorf("Status", "Status: %v", err)
			}
			f.Status = append(f.Status, st...)
		}
	}
	r.bound("MinRunTime", "MaxRunTime", &f.RunTime, func(k string) (float64, bool, error) { return traceSeconds(r.o, k) })
	r.bound("MinProcs", "MaxProcs", &f.Procs, func(k string) (float64, bool, error) {
		n, ok, err := r.o.Int(k, 1, wdl.MaxProcessors)
		return float64(n), ok, err
	})
}

// bound reads a range from the options minKey and maxKey.
func (r *traceOptions) bound(minKey, maxKey string, rg *gwa.Range, get func(string) (float64, bool, error)) {
	lo, okLo, err := get(minKey)
	if err != nil {
		r.add(err)
	} else if okLo {
		rg.Min, rg.HasMin = lo, true
	}
	hi, okHi, err := get(maxKey)
	if err != nil {
		r.add(err)
	} else if okHi {
		rg.Max, rg.HasMax = hi, true
		if okLo && hi < lo {
			r.errorf(maxKey, "%s (%g) is below %s (%g)", maxKey, hi, minKey, lo)
		}
	}
}

// readScaling: the factors of submit times, run times and sizes.
func (p *tracePlan) readScaling(r *traceOptions) {
	scale := func(key string) float64 {
		v, ok, err := r.o.Float(key, 0, maxTraceScale)
		if err != nil {
			r.add(err)
			return 1
		}
		if ok && v <= 0 {
			r.errorf(key, "%s must be > 0, got %g", key, v)
			return 1
		}
		if !ok {
			return 1
		}
		return v
	}
	p.sel.Scale = gwa.Scale{Submit: scale("SubmitScale"), RunTime: scale("RunTimeScale"), Procs: scale("ProcScale"), Exact: true}
	p.sel.Rebase = true
}

// readArea: the representative window to choose (AreaWidth, AreaTarget).
func (p *tracePlan) readArea(r *traceOptions) {
	if d, ok := r.seconds("AreaWidth"); ok {
		if d <= 0 {
			r.errorf("AreaWidth", "AreaWidth must be > 0")
		}
		p.sel.AreaWidth = d
	}
	opt, ok := r.o.Get("AreaTarget")
	if !ok {
		return
	}
	if p.sel.AreaWidth == 0 {
		r.errs = append(r.errs, wdl.Errorf(opt.KeyPos, "AreaTarget needs AreaWidth, the width of the windows to choose from"))
	}
	items, err := wdl.ParseList(opt.Value)
	if err != nil {
		r.errorf("AreaTarget", "AreaTarget: %v", err)
	}
	for _, it := range items {
		t, err := gwa.ParseTarget(it)
		if err != nil {
			r.errorf("AreaTarget", "AreaTarget: %v", err)
		}
		p.sel.AreaTargets = append(p.sel.AreaTargets, t)
	}
}

// readSites: the clusters the trace's sites go to (Sites=, SiteMap=).
func (p *tracePlan) readSites(r *traceOptions) {
	if v, ok := r.list("Sites"); ok {
		p.clusters = v
	}
	opt, ok := r.o.Get("SiteMap")
	if !ok {
		return
	}
	items, err := wdl.ParseList(opt.Value)
	if err != nil {
		r.errorf("SiteMap", "SiteMap: %v", err)
	}
	p.siteMap = map[string]string{}
	for _, it := range items {
		from, to, ok := strings.Cut(it, ":")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		if !ok || from == "" || to == "" {
			r.errorf("SiteMap", "SiteMap: %q must be TRACESITE:CLUSTER, e.g. 12:fs0 or grid.ici.ro:fs1", wdl.Excerpt(it))
			continue
		}
		p.siteMap[from] = to
	}
}

// traceSeconds reads a duration in seconds (units ms s m h d; a bare number
// is seconds).
func traceSeconds(o *wdl.Options, key string) (float64, bool, error) {
	d, ok, err := o.Duration(key)
	return d.Seconds(), ok, err
}

func (p *tracePlan) open() (gwa.Reader, error) { return gwa.Open(p.path, p.opts) }

// describe completes the record of the replayed window (firstPass began
// it): the trace's path and digest, the window's jobs and period, and, with
// WarmStart, the jobs in flight at the window's start.
func (p *tracePlan) describe(jobs int) error {
	tr := p.replay
	tr.Jobs, tr.Period = jobs, workload.Seconds(p.period)
	if d, ok, _ := p.unit.Options.Duration("StartAt"); ok { // checked by prepareUnit
		tr.StartAt = workload.Seconds(d)
	}
	abs, err := filepath.Abs(p.path)
	if err != nil {
		return err
	}
	tr.Path = abs
	if tr.SHA256, err = traceDigest(p.path); err != nil {
		return err
	}
	if !p.warm || p.unit.NTimes == 0 {
		return nil
	}
	r, err := p.open()
	if err != nil {
		return err
	}
	defer r.Close()
	p.inFlight, tr.Unknown, err = gwa.InFlight(r, p.sel.Filter, p.origin)
	if err != nil {
		return err
	}
	tr.Warm = len(p.inFlight)
	for i := range p.inFlight {
		if p.inFlight[i].Running {
			tr.Running++
		}
	}
	return nil
}

// firstPass reads the selection once: its job count and the period between
// back-to-back replays (NTimes > 1). The period is the selection's length:
// the area width, else To − From, else the span of the selected submissions
// plus their mean inter-arrival time; scaled like submit times.
func (p *tracePlan) firstPass() (int, time.Duration, error) {
	r, opened, err := gwa.SelectOpened(p.open, p.sel)
	if err != nil {
		return 0, 0, err
	}
	defer r.Close()
	area := opened.Area
	p.origin = opened.Origin
	sel, err := json.Marshal(opened.Resolved)
	if err != nil {
		return 0, 0, err
	}
	p.replay = &workload.TraceReplay{Description: p.sel.Describe(), Selection: sel, Origin: p.origin, Format: string(r.Header().Format),
		Strict: p.opts.Strict, Replays: p.unit.NTimes}
	n := 0
	first, last := 0.0, 0.0
	wf := gwa.HasWorkflows(r.Header().Format)
	var recs []gwa.Record // of a workflow trace, to check its workflows
	for {
		rec, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return 0, 0, err
		}
		if n == 0 || (wf && rec.SubmitTime < first) {
			first = rec.SubmitTime // a workflow trace's tasks come in any order
		}
		last = math.Max(last, rec.SubmitTime)
		n++
		if wf {
			recs = append(recs, rec)
		}
	}
	if wf {
		if _, err := groupWorkflows(recs); err != nil {
			return 0, 0, err
		}
	}
	sub := p.sel.Scale.Submit
	if sub == 0 {
		sub = 1
	}
	var length float64
	f := p.sel.Filter.Submit
	switch {
	case area != nil:
		length = area.Width * sub
	case f.HasMin && f.HasMax:
		length = (f.Max - f.Min) * sub
	case n > 1:
		span := last - first
		length = span + span/float64(n-1)
	default:
		length = 1
	}
	period, err := wdl.Durations.Duration(math.Max(length, 0.001))
	if err != nil {
		return 0, 0, fmt.Errorf("the replay period: %v", err)
	}
	return n, period, nil
}

// traceSource replays the selection NTimes times back to back, the first
// replay after the warm jobs, if any.
type traceSource struct {
	p      *tracePlan
	r      gwa.Reader
	replay int
	idx    int
	warm   int // warm jobs emitted
	rApp   *rand.Rand
	rFiles *rand.Rand        // draws each job's input file (a stream of its own)
	mapped map[string]string // trace site → cluster, learnt in order of first appearance
	idBuf  []byte
	wf     *workflowReplay // a replay of a workflow trace (wltrace_wf.go)
}

func (p *tracePlan) newSource() (WorkloadSource, error) {
	s := &traceSource{p: p, rApp: stats.NewStream(p.seed, p.unit.ID, purposeApp),
		rFiles: stats.NewStream(p.seed, p.unit.ID, purposeAttrs), mapped: map[string]string{}}
	return s, nil
}

// TraceReplay is what the manifest records of the unit (Generate asks).
func (s *traceSource) TraceReplay() *workload.TraceReplay {
	tr := *s.p.replay
	return &tr
}

// site maps a trace site onto a cluster: SiteMap= by site id or name first,
// then Sites= round-robin in order of first appearance in the replay (the
// i-th distinct site gets cluster i mod len(Sites)); else "*".
func (s *traceSource) site(site string, hdr *gwa.Header) string {
	if site == "" {
		return workload.AnySite
	}
	if c, ok := s.p.siteMap[site]; ok {
		return c
	}
	if c, ok := s.p.siteMap[hdr.SiteName(site)]; ok {
		return c
	}
	if len(s.p.clusters) == 0 {
		return workload.AnySite
	}
	if c, ok := s.mapped[site]; ok {
		return c
	}
	c := s.p.clusters[len(s.mapped)%len(s.p.clusters)]
	s.mapped[site] = c
	return c
}

func (s *traceSource) Next(j *workload.Job) (bool, error) {
	p := s.p
	for {
		if s.r == nil {
			if s.replay >= p.unit.NTimes {
				return false, nil
			}
			r, _, err := gwa.Select(p.open, p.sel)
			if err != nil {
				return false, err
			}
			s.r = r
			if err := s.startWorkflows(); err != nil {
				return false, err
			}
		}
		if s.wf != nil {
			if ok, err := s.nextWorkflow(j); ok || err != nil {
				return ok, err
			}
			s.r.Close()
			s.r, s.wf = nil, nil
			s.replay++
			continue
		}
		if s.replay == 0 && s.warm < len(p.inFlight) {
			err := s.fillWarm(j, &p.inFlight[s.warm])
			s.warm++
			return err == nil, err
		}
		rec, err := s.r.Next()
		if err != nil {
			s.r.Close()
			s.r = nil
			if !errors.Is(err, io.EOF) {
				return false, err
			}
			s.replay++
			continue
		}
		if err := s.fill(j, &rec); err != nil {
			return false, fmt.Errorf("%s: job %q: %v", p.path, wdl.Excerpt(rec.JobID), err)
		}
		return true, nil
	}
}

// fillWarm makes j of a job in flight at the window's start: submitted at
// the window's start (offset 0), with the run time it had left (all of it
// when queued, end − start of the window when running) and, for a running
// one, the requested time it had left (not below the run time left), then
// scaled like the window's jobs. The trace's wait of a warm job is not
// replayed: the system under test decides when it starts.
func (s *traceSource) fillWarm(j *workload.Job, w *gwa.InFlightJob) error {
	p := s.p
	rec := w.Record
	if w.Running {
		left := w.Remaining(p.origin)
		if rec.ReqTime > 0 {
			rec.ReqTime = math.Max(left, rec.ReqTime-(p.origin-rec.SubmitTime-rec.WaitTime))
		}
		rec.RunTime = left
	}
	rec.SubmitTime = 0
	p.sel.Scale.Apply(&rec)
	if err := s.fill(j, &rec); err != nil {
		return fmt.Errorf("%s: warm job %q: %v", p.path, wdl.Excerpt(rec.JobID), err)
	}
	j.Warm = true
	return nil
}

// nextID gives j the unit's next job id, UNIT-INDEX, and its place.
func (s *traceSource) nextID(j *workload.Job) {
	id := s.p.unit.ID
	b := strconv.AppendInt(s.idBuf[:0], int64(id), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(s.idx), 10)
	s.idBuf = b
	j.ID, j.Unit, j.Index = string(b), id, s.idx
	s.idx++
}

// fill makes j of the trace record. Its error is a time or a size beyond
// the limits of a workload (after the unit's scaling).
func (s *traceSource) fill(j *workload.Job, rec *gwa.Record) error {
	if err := s.fillTask(j, rec); err != nil {
		return err
	}
	s.nextID(j)
	return nil
}

// fillTask makes j, but for its id and index, a unitary job of the trace
// record: a job of its own, or a task of a workflow.
func (s *traceSource) fillTask(j *workload.Job, rec *gwa.Record) error {
	p := s.p
	submit, err := wdl.Durations.Duration(math.Max(0, rec.SubmitTime))
	if err != nil {
		return fmt.Errorf("submit time: %v", err)
	}
	submit += time.Duration(s.replay) * p.period // at most MaxDuration: checked in prepareTrace
	if submit > wdl.MaxDuration {
		return errArrivalsTooLate
	}
	var runTime, wallTime time.Duration
	if rec.RunTime > 0 { // 0 s is known (ZeroRunTime below), not missing
		if runTime, err = wdl.RunTimes.Duration(rec.RunTime); err != nil {
			return err
		}
	}
	if rec.ReqTime > 0 {
		if wallTime, err = traceWallTimes.Duration(rec.ReqTime); err != nil {
			return err
		}
	}
	procs, err := jobSize.Int(math.Max(1, rec.Procs()))
	if err != nil {
		return err
	}
	j.Kind, j.Type, j.SiteType = workload.Unitary, "swf", workload.Single
	j.Submit, j.RunTime, j.WallTime, j.Warm = submit, runTime, wallTime, false
	j.ZeroRunTime = rec.RunTime == 0 // a job that ran 0 s; -1 (and any negative) is unknown
	// A limit below the recorded run time would cut the replay short: raise
	// it to the run time, in whole seconds.
	if j.WallTime > 0 && j.WallTime < j.RunTime {
		j.WallTime = (j.RunTime + time.Second - 1).Truncate(time.Second)
	}
	j.User, j.Group = "", ""
	if rec.UserID != "" && rec.UserID != "-1" {
		j.User = rec.UserID
	}
	if rec.GroupID != "" && rec.GroupID != "-1" {
		j.Group = rec.GroupID
	}
	j.Components = append(j.Components[:0], workload.Component{Site: s.site(rec.Site(), s.r.Header()), Count: procs})
	p.files.fill(s.rFiles, j)
	j.Outputs = j.Outputs[:0] // a workflow's task gets its own (attachFiles)
	j.Tasks, j.Deps = j.Tasks[:0], j.Deps[:0]
	p.app.fill(s.rApp, j)
	return nil
}

// maxTraceScale bounds SubmitScale, RunTimeScale and ProcScale.
const maxTraceScale = 1e6

// traceWallTimes is the limit of a trace job's requested time.
var traceWallTimes = wdl.Limit{What: "a requested time", Min: 0, Max: wdl.MaxSeconds, Unit: "s"}

// traceDigest is the SHA-256 of a trace file, or of a trace directory (WfFormat
// instances, a WTA trace's tables): of each of its regular files, in the
// order of their paths, its path within the directory, a NUL and its
// content.
func traceDigest(path string) (string, error) {
	h := sha256.New()
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	add := func(file string) error {
		f, err := readlimit.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(h, f)
		return err
	}
	if !fi.IsDir() {
		err = add(path)
	} else {
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			rel, _ := filepath.Rel(path, p)
			h.Write([]byte(filepath.ToSlash(rel) + "\x00"))
			return add(p)
		})
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
