package launch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/apps/output"
	"github.com/gmark/gmark/internal/testbin"
)

var gmark string

func TestMain(m *testing.M) { testbin.Main(m, &gmark) }

// hangGuard bounds a test that would otherwise hang on a bug; it is not a
// timing assertion.
const hangGuard = 2 * time.Minute

func smpiArgs(extra ...string) []string {
	return append([]string{"app", "smpi", "--quiet", "--memory", "1", "--elements", "10", "--compute", "2"}, extra...)
}

func startJob(t *testing.T, spec Spec) *Job {
	t.Helper()
	if spec.Executable == "" {
		spec.Executable = gmark
	}
	if spec.Dir == "" {
		spec.Dir = t.TempDir()
	}
	spec.KillGrace = time.Second
	j, err := Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Stop) // every process started here ends here, by pid
	return j
}

func wait(t *testing.T, j *Job) ([]Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := j.Wait(ctx)
	if ctx.Err() != nil {
		t.Fatalf("the job did not end within %v", hangGuard)
	}
	return res, err
}

func summary(t *testing.T, r Result) map[string]any {
	t.Helper()
	s, err := r.Summary()
	if err != nil {
		t.Fatalf("rank %d: %v\nstdout:\n%s\nstderr:\n%s", r.Rank, err, r.Stdout, r.Stderr)
	}
	return s
}

func num(s map[string]any, k string) int64 {
	f, _ := s[k].(float64)
	return int64(f)
}

// TestSMPICoAllocated runs smpi as a job of 2 components of 2 processes,
// through the launcher's own rendezvous and through rank 0's fallback.
func TestSMPICoAllocated(t *testing.T) {
	const steps, x = 4, 500
	for _, noRdv := range []bool{false, true} {
		t.Run(fmt.Sprintf("rank0-rendezvous=%v", noRdv), func(t *testing.T) {
			dir := t.TempDir()
			j := startJob(t, Spec{JobID: "job-1", Components: []int{2, 2}, Dir: dir, NoRendezvous: noRdv,
				Args: smpiArgs("--supersteps", fmt.Sprint(steps), "--exchange", fmt.Sprint(x))})
			res, err := wait(t, j)
			if err != nil {
				for _, r := range res {
					t.Logf("rank %d stderr: %s", r.Rank, r.Stderr)
				}
				t.Fatal(err)
			}
			var checksums []any
			for _, r := range res {
				s := summary(t, r)
				wantComp := r.Rank / 2
				if s["ok"] != true || num(s, "rank") != int64(r.Rank) || num(s, "size") != 4 ||
					num(s, "component") != int64(wantComp) || s["job_id"] != "job-1" {
					t.Errorf("rank %d summary: %v", r.Rank, s)
				}
				// All to all: X elements to each of the 3 others, per superstep.
				want := int64(steps * x * 3)
				if num(s, "supersteps") != steps || num(s, "sent_elements") != want || num(s, "received_elements") != want {
					t.Errorf("rank %d: supersteps %v sent %v received %v, want %d, %d, %d",
						r.Rank, s["supersteps"], s["sent_elements"], s["received_elements"], steps, want, want)
				}
				checksums = append(checksums, s["checksum"])
				lines := 0
				for _, line := range strings.Split(string(r.Stdout), "\n") {
					rec, ok, err := output.ParseRecord(line)
					if err != nil {
						t.Error(err)
					}
					if ok && rec.Kind == "step" {
						lines++
						if n, _ := rec.Int("sent"); n != x*3 {
							t.Errorf("rank %d: step record with sent=%d: %s", r.Rank, n, line)
						}
						if n, _ := rec.Int("received"); n != x*3 {
							t.Errorf("rank %d: step record with received=%d: %s", r.Rank, n, line)
						}
					}
				}
				if lines != steps {
					t.Errorf("rank %d printed %d step records, want %d", r.Rank, lines, steps)
				}
			}
			// Everyone starts from the same memory and mixes in the same
			// data in the same order, only shifted by its own window.
			if checksums[0] == nil {
				t.Error("no checksum")
			}
			left, _ := filepath.Glob(filepath.Join(dir, ".gmark-rendezvous-*"))
			if len(left) != 0 {
				t.Errorf("rendezvous files left behind: %v", left)
			}
		})
	}
}

// lineWatch collects a process's output and reports when it has printed
// a number of step records.
type lineWatch struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	want  int
	ready chan struct{}
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.ready != nil && bytes.Count(w.buf.Bytes(), []byte("gmark-step ")) >= w.want {
		close(w.ready)
		w.ready = nil
	}
	return len(p), nil
}

func (w *lineWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// runUntilStepping starts a long smpi job of 2×2 processes and returns when
// every process has printed two step records.
func runUntilStepping(t *testing.T, extra ...string) (*Job, []*lineWatch, []*lineWatch) {
	outs := make([]*lineWatch, 4)
	errs := make([]*lineWatch, 4)
	ready := make([]chan struct{}, 4)
	for i := range outs {
		ready[i] = make(chan struct{})
		outs[i] = &lineWatch{want: 2, ready: ready[i]}
		errs[i] = &lineWatch{}
	}
	args := smpiArgs(append([]string{"--supersteps", "1000000", "--exchange", "100"}, extra...)...)
	j := startJob(t, Spec{JobID: "long", Components: []int{2, 2}, Args: args,
		Output: func(p Proc) (stdout, stderr io.Writer) {
			return outs[p.Rank], errs[p.Rank]
		}})
	guard := time.After(hangGuard)
	for i, c := range ready {
		select {
		case <-c:
		case <-guard:
			t.Fatalf("rank %d never started stepping:\n%s", i, errs[i])
		}
	}
	return j, outs, errs
}

func TestSMPIKilledPeer(t *testing.T) {
	j, outs, errs := runUntilStepping(t, "--peer-timeout", "5s")
	if err := j.Signal(2, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res, err := wait(t, j)
	if err == nil {
		t.Fatal("the job succeeded with a killed process")
	}
	for _, r := range res {
		if r.Rank == 2 {
			if r.ExitCode != -1 {
				t.Errorf("killed rank 2 exited with %d", r.ExitCode)
			}
			continue
		}
		if r.ExitCode != 1 {
			t.Errorf("rank %d exited with %d, want 1", r.Rank, r.ExitCode)
		}
		stderr := errs[r.Rank].String()
		if !strings.Contains(stderr, "rank 2") {
			t.Errorf("rank %d's error does not name rank 2:\n%s", r.Rank, stderr)
		}
		s, err := output.ParseSummary([]byte(outs[r.Rank].String()))
		if err != nil {
			t.Fatalf("rank %d: %v", r.Rank, err)
		}
		if s["ok"] != false || s["reason"] != "peer-lost" || num(s, "missing_rank") != 2 {
			t.Errorf("rank %d summary: %v", r.Rank, s)
		}
	}
}

func TestSMPIStoppedPeerTimesOut(t *testing.T) {
	j, outs, errs := runUntilStepping(t, "--peer-timeout", "1s")
	if err := j.Signal(1, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// The others give up on rank 1; then let it run on, to find itself alone.
	others := make(chan struct{})
	go func() {
		defer close(others)
		for _, p := range j.procs {
			if p.Rank != 1 {
				<-p.exited
			}
		}
	}()
	select {
	case <-others:
	case <-time.After(hangGuard):
		t.Fatal("the other processes did not give up on a stopped peer")
	}
	j.Signal(1, syscall.SIGCONT)
	res, _ := wait(t, j)
	for _, r := range res {
		if r.ExitCode != 1 {
			t.Errorf("rank %d exited with %d, want 1:\n%s", r.Rank, r.ExitCode, errs[r.Rank])
		}
		if r.Rank == 1 {
			continue
		}
		s, err := output.ParseSummary([]byte(outs[r.Rank].String()))
		if err != nil {
			t.Fatal(err)
		}
		if s["ok"] != false || !strings.Contains(errs[r.Rank].String(), "rank 1") {
			t.Errorf("rank %d: summary %v, stderr %s", r.Rank, s, errs[r.Rank])
		}
		if s["reason"] != "peer-timeout" && s["reason"] != "peer-lost" {
			t.Errorf("rank %d: reason %v", r.Rank, s["reason"])
		}
	}
}

func TestStopEndsEveryProcess(t *testing.T) {
	j, outs, _ := runUntilStepping(t)
	j.Stop()
	res, _ := wait(t, j)
	for _, r := range res {
		s, err := output.ParseSummary([]byte(outs[r.Rank].String()))
		if err != nil {
			t.Fatalf("rank %d: %v", r.Rank, err)
		}
		if r.ExitCode != 1 || s["ok"] != false {
			t.Errorf("rank %d: exit %d, summary %v", r.Rank, r.ExitCode, s)
		}
	}
}

func TestStartErrors(t *testing.T) {
	for _, spec := range []Spec{
		{Executable: gmark},
		{Executable: gmark, Components: []int{2, 0}},
		{Components: []int{1}},
		{Executable: filepath.Join(t.TempDir(), "missing"), Components: []int{2}},
	} {
		if j, err := Start(spec); err == nil {
			j.Stop()
			t.Errorf("%+v: no error", spec)
		}
	}
}
