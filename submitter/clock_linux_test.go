package submitter

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

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
