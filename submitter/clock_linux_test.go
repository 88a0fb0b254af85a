package submitter

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
	"golang.org/x/sys/unix"
)

// The thread that sleeps to an instant is in the real-time class only
// while it sleeps: a process started from it is not, and release puts the
// thread back in the class it was in.
func TestPreciseThreadRealtime(t *testing.T) {
	runtime.LockOSThread() // the thread looked at after release is the one raised
	defer runtime.UnlockOSThread()
	before, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	release, raised := preciseThread()
	if !raised {
		release()
		if os.Geteuid() == 0 {
			t.Fatal("root could not take the real-time class")
		}
		t.Skip("this process may not take a real-time class (not root, no RLIMIT_RTPRIO)")
	}
	during, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		release()
		t.Fatal(err)
	}
	// Field 41 of /proc/PID/stat is the scheduling policy (0: SCHED_OTHER).
	out, err := exec.Command("cat", "/proc/self/stat").Output()
	release()
	if err != nil {
		t.Fatal(err)
	}
	if during.Policy != unix.SCHED_FIFO || during.Flags&unix.SCHED_FLAG_RESET_ON_FORK == 0 {
		t.Fatalf("while sleeping: policy %d flags %#x, want SCHED_FIFO with SCHED_RESET_ON_FORK", during.Policy, during.Flags)
	}
	stat := string(out)
	fields := strings.Fields(stat[strings.LastIndexByte(stat, ')')+2:])
	if policy := fields[41-3]; policy != "0" {
		t.Fatalf("a process started from the thread has policy %s, want 0 (SCHED_OTHER)", policy)
	}
	after, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if after.Policy != before.Policy || after.Priority != before.Priority || after.Nice != before.Nice {
		t.Fatalf("after release: %+v, want %+v", after, before)
	}
}

// policyTarget is dryrun noting the scheduling policy of the thread of
// each submit call, and of a process started from it.
type policyTarget struct {
	*DryRun
	mu       sync.Mutex
	calls    []uint32
	children []string
}

func (p *policyTarget) Submit(ctx context.Context, s *Submission) (Receipt, error) {
	a, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return Receipt{}, err
	}
	out, err := exec.Command("cat", "/proc/self/stat").Output()
	if err != nil {
		return Receipt{}, err
	}
	stat := string(out)
	p.mu.Lock()
	p.calls = append(p.calls, a.Policy)
	p.children = append(p.children, strings.Fields(stat[strings.LastIndexByte(stat, ')')+2:])[41-3])
	p.mu.Unlock()
	return p.DryRun.Submit(ctx, s)
}

// A scheduled job's submit call is made by the thread that slept to its
// instant, still in the real-time class (so that the kernel does not put
// it behind the ordinary threads between waking and the call), and a
// process the call starts is not in that class.
func TestSubmitCallInRealtimeClass(t *testing.T) {
	release, raised := preciseThread()
	release()
	if !raised {
		t.Skip("this process may not take a real-time class (not root, no RLIMIT_RTPRIO)")
	}
	jobs := []workload.Job{unitary("1-0", 0), unitary("1-1", 30*time.Millisecond), unitary("1-2", 60*time.Millisecond)}
	pt := &policyTarget{DryRun: NewDryRun()}
	cfg := Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: openStore(t), Target: pt}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if len(pt.calls) != len(jobs) {
		t.Fatalf("%d submit calls, want %d", len(pt.calls), len(jobs))
	}
	for i, pol := range pt.calls {
		if pol != unix.SCHED_FIFO {
			t.Errorf("submit call %d on a thread of policy %d, want SCHED_FIFO (%d)", i, pol, unix.SCHED_FIFO)
		}
		if pt.children[i] != "0" {
			t.Errorf("a process started by submit call %d has policy %s, want 0 (SCHED_OTHER)", i, pt.children[i])
		}
	}
}
