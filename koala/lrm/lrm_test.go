package lrm

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func ids(jobs []*Job) []int64 {
	var out []int64
	for _, j := range jobs {
		out = append(out, j.ID)
	}
	return out
}

func same(a []int64, b ...int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFCFSHeadBlocks(t *testing.T) {
	c := New("c", 10, FCFS)
	if got := ids(c.SubmitLocal(&Job{ID: 1, Size: 6, Runtime: 100 * time.Second}, at(0))); !same(got, 1) {
		t.Fatalf("started %v", got)
	}
	if got := ids(c.SubmitLocal(&Job{ID: 2, Size: 6, Runtime: 10 * time.Second}, at(1))); len(got) != 0 {
		t.Fatalf("job 2 started with 4 idle: %v", got)
	}
	// Job 3 fits in the 4 idle processors but FCFS keeps it behind job 2.
	if got := ids(c.SubmitLocal(&Job{ID: 3, Size: 2, Runtime: 10 * time.Second}, at(2))); len(got) != 0 {
		t.Fatalf("FCFS let job 3 overtake: %v", got)
	}
	_, started := c.End(1, at(100))
	if !same(ids(started), 2, 3) || c.Idle() != 2 {
		t.Fatalf("after job 1 ended: started %v, idle %d", ids(started), c.Idle())
	}
}

func TestEASYBackfillsWithoutDelayingTheHead(t *testing.T) {
	c := New("c", 10, EASY)
	c.SubmitLocal(&Job{ID: 1, Size: 6, Runtime: 100 * time.Second}, at(0)) // runs until 100
	c.SubmitLocal(&Job{ID: 2, Size: 8, Runtime: 50 * time.Second}, at(1))  // head: waits until 100; 2 spare then
	// 4 idle now. Job 3 (4 procs, ends at 52 < 100) backfills.
	if got := ids(c.SubmitLocal(&Job{ID: 3, Size: 4, Runtime: 50 * time.Second}, at(2))); !same(got, 3) {
		t.Fatalf("job 3 should backfill: %v", got)
	}
	_, _ = c.End(3, at(52))
	// Job 4 (2 procs, ends at 500 > 100) fits in the head's spare 2 processors.
	if got := ids(c.SubmitLocal(&Job{ID: 4, Size: 2, Runtime: 500 * time.Second}, at(53))); !same(got, 4) {
		t.Fatalf("job 4 should use the spare processors: %v", got)
	}
	// Job 5 (2 procs, ends late) would delay the head: it waits.
	if got := ids(c.SubmitLocal(&Job{ID: 5, Size: 2, Runtime: 500 * time.Second}, at(54))); len(got) != 0 {
		t.Fatalf("job 5 delays the head but started: %v", got)
	}
	_, started := c.End(1, at(100))
	if !same(ids(started), 2) {
		t.Fatalf("the head should start at 100: %v", ids(started))
	}
}

func TestClaimNeverQueues(t *testing.T) {
	c := New("c", 8, FCFS)
	if !c.Claim(&Job{ID: 1, Size: 5}, at(0)) {
		t.Fatal("claim of 5 on 8 idle failed")
	}
	// A local job takes 2 of the remaining 3: a 3-processor claim now fails.
	c.SubmitLocal(&Job{ID: 2, Size: 2}, at(1))
	if c.Claim(&Job{ID: 3, Size: 3}, at(2)) {
		t.Fatal("claim succeeded without idle processors")
	}
	if c.Busy(Grid) != 5 || c.Busy(Local) != 2 || c.Idle() != 1 {
		t.Fatalf("busy grid %d local %d idle %d", c.Busy(Grid), c.Busy(Local), c.Idle())
	}
}

func TestDownKillsEverything(t *testing.T) {
	c := New("c", 8, FCFS)
	c.Claim(&Job{ID: 1, Size: 4}, at(0))
	c.SubmitLocal(&Job{ID: 2, Size: 4}, at(0))
	c.SubmitLocal(&Job{ID: 3, Size: 4}, at(0))
	killed := c.SetDown()
	if !same(ids(killed), 1, 2, 3) || c.Idle() != 0 || c.Claim(&Job{ID: 4, Size: 1}, at(1)) {
		t.Fatalf("killed %v idle %d", ids(killed), c.Idle())
	}
	c.SubmitLocal(&Job{ID: 5, Size: 1}, at(2))
	if started := c.SetUp(at(3)); !same(ids(started), 5) || c.Idle() != 7 {
		t.Fatalf("after up: started %v idle %d", ids(started), c.Idle())
	}
}

// A mirror of a real cluster: the controller's other jobs are local load,
// capped by what the grid's components leave, and nothing when down.
func TestSetExternal(t *testing.T) {
	c := New("s", 8, FCFS)
	if !c.Claim(&Job{ID: 1, Size: 3}, time.Time{}) {
		t.Fatal("claim")
	}
	cases := []struct{ set, want, idle int }{{4, 4, 1}, {9, 5, 0}, {-2, 0, 5}, {2, 2, 3}}
	for _, k := range cases {
		if got := c.SetExternal(k.set); got != k.want || c.Busy(Local) != k.want || c.Idle() != k.idle || c.External() != k.want {
			t.Errorf("SetExternal(%d) = %d: local %d, idle %d; want %d, idle %d", k.set, got, c.Busy(Local), c.Idle(), k.want, k.idle)
		}
	}
	c.End(1, time.Time{})
	if c.Idle() != 6 || c.Busy(Grid) != 0 {
		t.Errorf("after the component: idle %d", c.Idle())
	}
	c.SetDown()
	if c.SetExternal(3) != 0 || c.Busy(Local) != 0 {
		t.Errorf("a down cluster has external load %d", c.Busy(Local))
	}
}

// Jobs whose expected ends tie at the head's shadow time all free their
// processors then: every one of them counts towards the spare ones, not
// only the first that makes the head fit (whichever order they sort in).
func TestEASYTiesAtTheShadowTime(t *testing.T) {
	for _, order := range [][2]int{{3, 1}, {1, 3}} {
		c := New("c", 6, EASY)
		c.SubmitLocal(&Job{ID: 1, Size: order[0], Runtime: 100 * time.Second}, at(0))
		c.SubmitLocal(&Job{ID: 2, Size: order[1], Runtime: 100 * time.Second}, at(0))
		// 2 idle; the head (4) fits at 100, when 6 are free: 2 spare.
		c.SubmitLocal(&Job{ID: 3, Size: 4, Runtime: 50 * time.Second}, at(1))
		if got := ids(c.SubmitLocal(&Job{ID: 4, Size: 2, Runtime: 500 * time.Second}, at(2))); !same(got, 4) {
			t.Errorf("sizes %v: job 4 (2 of the 2 spare at the shadow time) should backfill: started %v", order, got)
		}
	}
	// An end one second after the shadow time is not spare then.
	c := New("c", 6, EASY)
	c.SubmitLocal(&Job{ID: 1, Size: 2, Runtime: 100 * time.Second}, at(0))
	c.SubmitLocal(&Job{ID: 2, Size: 2, Runtime: 101 * time.Second}, at(0))
	c.SubmitLocal(&Job{ID: 3, Size: 4, Runtime: 50 * time.Second}, at(1))
	if got := ids(c.SubmitLocal(&Job{ID: 4, Size: 2, Runtime: 500 * time.Second}, at(2))); len(got) != 0 {
		t.Errorf("job 4 delays the head but started: %v", got)
	}
}
