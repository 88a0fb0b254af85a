// Package local is the simplest real target: it runs each job as real
// local processes ("gmark app NAME …") within a processor budget, first
// come first served. A job of P processors runs P processes, numbered
// through its components, started by the job launcher of package
// apps/launch with the environment of package apps/jobenv (GMARK_JOB_ID,
// GMARK_RANK, GMARK_SIZE, GMARK_COMPONENT, and a rendezvous for parallel
// jobs).
//
// Every submission has a directory, DIR/<job id>/a<attempt>, the working
// directory of its processes. Rank r writes r<r>.out and r<r>.err there;
// the application's final JSON summary line (the last line of r0.out) is
// reported with the job's outcome. Before it launches a job the target
// writes a "launching" marker there, and after, a "start" record (start
// time and pids), so that after a crash of the submitter --resume can tell,
// from the directory and the process table alone, whether a job never
// started (it is started now), is still running (its processes, found by
// their working directory, are adopted and watched) or ended (its outcome
// is read from the summary lines: the exit status of a process that was
// not the submitter's child is not knowable).
package local

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gmark/gmark/apps/launch"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
)

// Config configures the local target.
type Config struct {
	// Processors is the budget: the sum of the processors of the jobs
	// running at once. Default: the number of CPUs.
	Processors int `json:"processors" toml:"processors"`
	// Executable is the gmark binary jobs run as "Executable app NAME …".
	// Default: the running program (os.Executable).
	Executable string `json:"executable" toml:"executable"`
	// Dir holds the jobs' directories. Required.
	Dir string `json:"dir" toml:"-"` // set by the submitter: RUN_DIR/local
	// Env is added to every job's environment (KEY=VALUE).
	Env []string `json:"env,omitempty" toml:"env"`
	// KillGrace is how long a job killed for its wall time or cancelled
	// has between SIGTERM and SIGKILL. Default 2s.
	KillGrace time.Duration `json:"kill_grace_ns" toml:"-"`
	// Poll is how often adopted processes (from before a resume) are
	// checked. Default 200ms.
	Poll time.Duration `json:"-" toml:"-"`
}

// Target is the local target.
type Target struct {
	cfg Config
	rep submitter.Reporter

	mu     sync.Mutex
	queue  []*job // waiting for processors, in submission order
	used   int    // processors of the running jobs
	jobs   map[string]*job
	closed bool
	wg     sync.WaitGroup
	stop   chan struct{}
}

type job struct {
	sub     submitter.Submission
	procs   int
	dir     string
	started time.Time
	running bool
	killed  string // why it was stopped, "" if not
	done    bool
	wall    *time.Timer
	// A job this target launched:
	launched *launch.Job
	files    []*os.File
	// A job adopted from an earlier process (--resume):
	pids []int
}

// New returns a local target.
func New(cfg Config) (*Target, error) {
	if cfg.Dir == "" {
		return nil, errors.New("local: no directory for the jobs")
	}
	if cfg.Processors <= 0 {
		cfg.Processors = runtime.NumCPU()
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = 2 * time.Second
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 200 * time.Millisecond
	}
	var err error
	if cfg.Executable, cfg.Dir, err = target.JobFiles("local", cfg.Executable, cfg.Dir, "."); err != nil {
		return nil, err
	}
	return &Target{cfg: cfg, jobs: map[string]*job{}, stop: make(chan struct{})}, nil
}

// Config returns the configuration in use (with defaults), for provenance.
func (t *Target) Config() Config { return t.cfg }

func (t *Target) Name() string { return "local" }
func (t *Target) Caps() submitter.Caps {
	return submitter.Caps{Find: true, Cancel: true}
}

func (t *Target) Watch(ctx context.Context, r submitter.Reporter) error {
	if _, err := os.Stat(t.cfg.Executable); err != nil {
		return fmt.Errorf("local: the jobs' executable: %v", err)
	}
	t.mu.Lock()
	t.rep = r
	t.mu.Unlock()
	return nil
}

func (t *Target) jobDir(s *submitter.Submission) string {
	return filepath.Join(t.cfg.Dir, s.Job.ID, "a"+strconv.Itoa(s.Attempt))
}

// Submit queues the job; it starts when the processors it asks for are
// free and every job submitted before it has started.
func (t *Target) Submit(ctx context.Context, s *submitter.Submission) (submitter.Receipt, error) {
	procs := s.Job.Processors()
	if procs > t.cfg.Processors {
		return submitter.Receipt{}, fmt.Errorf("job %s asks for %d processors; the local budget is %d (--processors)", s.Job.ID, procs, t.cfg.Processors)
	}
	if len(s.Job.Components) == 0 {
		return submitter.Receipt{}, fmt.Errorf("job %s has no components", s.Job.ID)
	}
	j := &job{sub: *s, procs: procs, dir: t.jobDir(s)}
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return submitter.Receipt{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return submitter.Receipt{}, errors.New("local: target closed")
	}
	if _, dup := t.jobs[s.Key]; dup {
		return submitter.Receipt{}, fmt.Errorf("local: %s submitted twice", s.Key)
	}
	t.jobs[s.Key] = j
	t.queue = append(t.queue, j)
	pos := len(t.queue)
	t.report(submitter.Update{Key: s.Key, State: submitter.Queued, Time: time.Now()})
	t.schedule()
	return submitter.Receipt{TargetID: "local:" + s.Job.ID + "/a" + strconv.Itoa(s.Attempt),
		Output: fmt.Sprintf("queued at position %d in %s", pos, j.dir)}, nil
}

func (t *Target) report(u submitter.Update) {
	if t.rep != nil {
		t.rep.Report(u)
	}
}

// schedule starts the jobs at the head of the queue that fit. t.mu is held.
func (t *Target) schedule() {
	for len(t.queue) > 0 && !t.closed {
		j := t.queue[0]
		if t.used+j.procs > t.cfg.Processors {
			return
		}
		t.queue = t.queue[1:]
		t.used += j.procs
		if err := t.start(j); err != nil {
			t.used -= j.procs
			j.done = true
			delete(t.jobs, j.sub.Key)
			t.report(submitter.Update{Key: j.sub.Key, State: submitter.Failed, Time: time.Now(), Reason: "could not start: " + err.Error()})
		}
	}
}

// start launches j's processes. t.mu is held.
func (t *Target) start(j *job) error {
	app := j.sub.Job.App
	var comps []int
	for _, c := range j.sub.Job.Components {
		comps = append(comps, c.Count)
	}
	now := time.Now().Format(time.RFC3339Nano)
	if err := os.WriteFile(filepath.Join(j.dir, "launching"), []byte(now+"\n"), 0o644); err != nil {
		return err
	}
	var openErr error
	spec := launch.Spec{
		JobID:      j.sub.Job.ID,
		Executable: t.cfg.Executable,
		Args:       append([]string{"app", app.Name}, app.Args()...),
		Components: comps,
		Dir:        j.dir,
		Env:        append(os.Environ(), t.cfg.Env...),
		KillGrace:  t.cfg.KillGrace,
		Output: func(p launch.Proc) (io.Writer, io.Writer) {
			prefix := filepath.Join(j.dir, "r"+strconv.Itoa(p.Rank))
			out, err1 := os.Create(prefix + ".out")
			errf, err2 := os.Create(prefix + ".err")
			if err1 != nil || err2 != nil {
				openErr = errors.Join(err1, err2)
				return io.Discard, io.Discard
			}
			j.files = append(j.files, out, errf)
			return out, errf
		},
	}
	j.started = time.Now()
	lj, err := launch.Start(spec)
	if err == nil && openErr != nil {
		lj.Stop()
		err = openErr
	}
	if err != nil {
		j.closeFiles()
		return err
	}
	j.launched = lj
	j.running = true
	rec := startRecord{StartNS: j.started.UnixNano()}
	for _, p := range lj.Procs() {
		rec.Pids = append(rec.Pids, p.Pid)
	}
	// The processes run: log the launch, then write the start record. A
	// crash between the two leaves no start record, and the process that
	// adopts the job writes it (and the log line, if it is missing).
	logLaunch(t.cfg.Dir, j.sub.Key, j.started, rec.Pids)
	writeStart(j.dir, rec)
	if w := j.sub.Job.WallTime; w > 0 {
		j.wall = time.AfterFunc(w, func() { t.stopJob(j, fmt.Sprintf("wall time %s exceeded", w)) })
	}
	t.report(submitter.Update{Key: j.sub.Key, State: submitter.Running, Time: j.started, Start: j.started})
	t.wg.Add(1)
	go t.wait(j)
	return nil
}

// LaunchLog, in the target's directory, gets one line per launch, "<key>
// <time> <pid,pid,...>", appended once the processes run (by the process
// that adopts them on --resume, if the one that launched them died first):
// an audit trail of what ran, in which a key appears once. A launch cut
// short by a crash before its processes started is not in it.
const LaunchLog = "launches.log"

// logLaunch appends the launch of key to the launch log. A failure to log
// does not stop the job (its directory records the launch too).
func logLaunch(dir, key string, at time.Time, pids []int) {
	ps := make([]string, len(pids))
	for i, p := range pids {
		ps[i] = strconv.Itoa(p)
	}
	_ = appendLine(filepath.Join(dir, LaunchLog), key+" "+at.Format(time.RFC3339Nano)+" "+strings.Join(ps, ","))
}

// launchLogged reports whether the launch log has a line for key.
func launchLogged(dir, key string) bool {
	f, err := os.Open(filepath.Join(dir, LaunchLog))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, _, _ := strings.Cut(sc.Text(), " "); k == key {
			return true
		}
	}
	return false
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (j *job) closeFiles() {
	for _, f := range j.files {
		f.Close()
	}
	j.files = nil
}

type startRecord struct {
	StartNS int64 `json:"start_ns"`
	Pids    []int `json:"pids"`
}

// maxStartRecord bounds a start record: the pids of the largest job fit
// in far less.
const maxStartRecord = 16 << 20

// maxPid is the largest pid Linux gives (PID_MAX_LIMIT).
const maxPid = 1 << 22

// parseStart reads a start record. One that is not the record writeStart
// writes (not JSON of its fields, a start before 1970 or a pid out of
// range, as a crash or a hand cut short leaves) is an error, and reads as
// no record.
func parseStart(b []byte) (startRecord, error) {
	var rec startRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return startRecord{}, err
	}
	if dec.More() {
		return startRecord{}, errors.New("data after the record")
	}
	if rec.StartNS <= 0 {
		return startRecord{}, fmt.Errorf("start_ns %d is not a time after 1970", rec.StartNS)
	}
	for _, p := range rec.Pids {
		if p <= 1 || p > maxPid {
			return startRecord{}, fmt.Errorf("pid %d out of range", p)
		}
	}
	return rec, nil
}

func writeStart(dir string, rec startRecord) {
	b, _ := json.Marshal(rec)
	tmp := filepath.Join(dir, ".start.tmp")
	if os.WriteFile(tmp, b, 0o644) == nil {
		os.Rename(tmp, filepath.Join(dir, "start"))
	}
}

// wait waits for a launched job's processes.
func (t *Target) wait(j *job) {
	defer t.wg.Done()
	results, _ := j.launched.Wait(context.Background())
	end := time.Now()
	j.closeFiles()
	failed := ""
	var exit *int
	for _, r := range results {
		status := r.ExitCode
		if r.Err != nil && status == -1 {
			status = 128 + int(syscall.SIGKILL)
			var ee *exec.ExitError
			if errors.As(r.Err, &ee) {
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					status = 128 + int(ws.Signal())
				}
			}
		}
		if status != 0 && exit == nil {
			s := status
			exit = &s
			failed = fmt.Sprintf("rank %d (component %d): exit status %d", r.Rank, r.Component, status)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.finish(j, end, exit, failed)
}

// finish reports j's outcome and frees its processors. t.mu is held.
func (t *Target) finish(j *job, end time.Time, exit *int, failed string) {
	if j.done {
		return
	}
	j.done = true
	if j.wall != nil {
		j.wall.Stop()
	}
	if exit == nil && failed == "" {
		zero := 0
		exit = &zero
	}
	u := submitter.Update{Key: j.sub.Key, Time: time.Now(), Start: j.started, End: end, ExitStatus: exit,
		Summary: summaryLine(filepath.Join(j.dir, "r0.out"))}
	switch {
	case strings.HasPrefix(j.killed, "cancel"):
		u.State, u.Reason = submitter.Cancelled, j.killed
	case j.killed != "":
		u.State, u.Reason = submitter.Failed, j.killed
	case failed != "":
		u.State, u.Reason = submitter.Failed, failed
	default:
		u.State = submitter.Succeeded
	}
	t.used -= j.procs
	delete(t.jobs, j.sub.Key)
	t.report(u)
	t.schedule()
}

// summaryLine returns the last line of a file if it is a JSON object (the
// application's summary), else "".
func summaryLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const tail = 64 << 10
	if st, err := f.Stat(); err == nil && st.Size() > tail {
		f.Seek(st.Size()-tail, io.SeekStart)
	}
	var last string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), tail+1)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			last = l
		}
	}
	if strings.HasPrefix(last, "{") && json.Valid([]byte(last)) {
		return last
	}
	return ""
}

// stopJob stops a running job's processes: SIGTERM (the applications
// stop and print their summary), SIGKILL after the grace period.
func (t *Target) stopJob(j *job, reason string) {
	t.mu.Lock()
	if j.done || !j.running {
		t.mu.Unlock()
		return
	}
	if j.killed == "" {
		j.killed = reason
	}
	lj, pids := j.launched, j.pids
	t.mu.Unlock()
	if lj != nil {
		go lj.Stop()
		return
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	time.AfterFunc(t.cfg.KillGrace, func() {
		for _, pid := range pids {
			if alive(pid, j.dir) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// Cancel removes a queued job, or kills a running one.
func (t *Target) Cancel(ctx context.Context, s *submitter.Submission) error {
	t.mu.Lock()
	j := t.jobs[s.Key]
	if j == nil {
		t.mu.Unlock()
		return nil // already over
	}
	if !j.running {
		for i, q := range t.queue {
			if q == j {
				t.queue = append(t.queue[:i], t.queue[i+1:]...)
				break
			}
		}
		j.done = true
		delete(t.jobs, s.Key)
		t.report(submitter.Update{Key: s.Key, State: submitter.Cancelled, Time: time.Now(), Reason: "cancelled while queued"})
		t.schedule()
		t.mu.Unlock()
		return nil
	}
	t.mu.Unlock()
	t.stopJob(j, "cancelled")
	return nil
}

// Find looks in the submission's directory and the process table for a
// job launched by an earlier process, and adopts it. Without a trace of a
// launch the job never started, and the Runner submits it.
func (t *Target) Find(ctx context.Context, s *submitter.Submission) (submitter.Receipt, bool, error) {
	dir := t.jobDir(s)
	if !launchedIn(dir) {
		return submitter.Receipt{}, false, nil
	}
	r := submitter.Receipt{TargetID: "local:" + s.Job.ID + "/a" + strconv.Itoa(s.Attempt), Output: "found in " + dir}
	return r, true, t.adopt(s)
}

// Track takes over a job submitted by an earlier process: finished, still
// running, or never started (then it is queued again).
func (t *Target) Track(ctx context.Context, s *submitter.Submission, r submitter.Receipt) error {
	if !launchedIn(t.jobDir(s)) {
		_, err := t.Submit(ctx, s)
		return err
	}
	return t.adopt(s)
}

// launchedIn reports whether a job's directory shows a launch: the start
// record, or the marker written before launching when its processes are
// running or left output.
func launchedIn(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "start")); err == nil {
		return true
	}
	if _, err := os.Stat(filepath.Join(dir, "launching")); err != nil {
		return false
	}
	if len(processesIn(dir)) > 0 {
		return true
	}
	if st, err := os.Stat(filepath.Join(dir, "r0.out")); err == nil && st.Size() > 0 {
		return true
	}
	return false
}

// adopt watches the processes of a job launched by an earlier process.
func (t *Target) adopt(s *submitter.Submission) error {
	j := &job{sub: *s, procs: s.Job.Processors(), dir: t.jobDir(s), running: true}
	var rec startRecord
	if b, err := readlimit.File(filepath.Join(j.dir, "start"), maxStartRecord); err == nil {
		rec, _ = parseStart(b) // a damaged record is completed again below
	}
	if rec.StartNS != 0 {
		j.started = time.Unix(0, rec.StartNS)
	} else if st, err := os.Stat(filepath.Join(j.dir, "launching")); err == nil {
		j.started = st.ModTime()
	}
	j.pids = rec.Pids
	if rec.StartNS == 0 {
		// The launching process died after it started the processes and
		// before it wrote the start record: complete its records.
		j.pids = processesIn(j.dir)
		if !launchLogged(t.cfg.Dir, s.Key) {
			logLaunch(t.cfg.Dir, s.Key, j.started, j.pids)
		}
		writeStart(j.dir, startRecord{StartNS: j.started.UnixNano(), Pids: j.pids})
	}
	t.mu.Lock()
	if _, dup := t.jobs[s.Key]; dup {
		t.mu.Unlock()
		return nil
	}
	t.jobs[s.Key] = j
	t.used += j.procs
	t.report(submitter.Update{Key: s.Key, State: submitter.Running, Time: time.Now(), Start: j.started})
	t.mu.Unlock()
	t.wg.Add(1)
	go t.watchAdopted(j)
	return nil
}

// watchAdopted polls an adopted job's processes until all are gone, then
// reports its outcome from the summary lines its processes printed.
func (t *Target) watchAdopted(j *job) {
	defer t.wg.Done()
	tick := time.NewTicker(t.cfg.Poll)
	defer tick.Stop()
	for {
		running := false
		for _, pid := range j.pids {
			if alive(pid, j.dir) {
				running = true
				break
			}
		}
		if !running {
			t.mu.Lock()
			end, exit, failed := adoptedOutcome(j)
			t.finish(j, end, exit, failed)
			t.mu.Unlock()
			return
		}
		select {
		case <-tick.C:
		case <-t.stop:
			return
		}
	}
}

// adoptedOutcome reads how an adopted job ended: every rank's summary line
// says ok, or the job failed. The end is when the last output was written.
func adoptedOutcome(j *job) (end time.Time, exit *int, failed string) {
	outs, _ := filepath.Glob(filepath.Join(j.dir, "r*.out"))
	if len(outs) == 0 {
		return time.Now(), nil, "lost: the job left no output"
	}
	for _, o := range outs {
		if st, err := os.Stat(o); err == nil && st.ModTime().After(end) {
			end = st.ModTime()
		}
		line := summaryLine(o)
		var m struct {
			OK    *bool  `json:"ok"`
			Error string `json:"error"`
		}
		if line == "" || json.Unmarshal([]byte(line), &m) != nil || m.OK == nil {
			if failed == "" {
				failed = fmt.Sprintf("%s: no summary line; the exit status of a process adopted on resume is unknown", filepath.Base(o))
			}
			continue
		}
		if !*m.OK && failed == "" {
			failed = fmt.Sprintf("%s: the application reported failure", filepath.Base(o))
			if m.Error != "" {
				failed += ": " + m.Error
			}
		}
	}
	return end, nil, failed
}

// processesIn lists the processes whose working directory is dir: the
// processes of the job that runs there.
func processesIn(dir string) []int {
	var pids []int
	for _, p := range target.Procs() {
		if cwd, err := os.Readlink("/proc/" + strconv.Itoa(p.Pid) + "/cwd"); err == nil && cwd == dir && alive(p.Pid, dir) {
			pids = append(pids, p.Pid)
		}
	}
	return pids
}

// alive reports whether pid runs in the job's directory: not exited, not a
// zombie, not a reused pid.
func alive(pid int, dir string) bool {
	if pid <= 0 {
		return false
	}
	p := "/proc/" + strconv.Itoa(pid)
	if st, err := os.ReadFile(p + "/stat"); err == nil {
		if i := bytes.LastIndexByte(st, ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
			return false
		}
	} else {
		return false
	}
	cwd, err := os.Readlink(p + "/cwd")
	return err == nil && cwd == dir
}

// Close stops watching; running jobs are left alone (a resumed run adopts
// them).
func (t *Target) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	close(t.stop)
	t.mu.Unlock()
	return nil
}

// Wait waits for the processes this target started to be reaped; for
// tests, after the jobs ended.
func (t *Target) Wait() { t.wg.Wait() }

var _ submitter.Target = (*Target)(nil)
