package experiment

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/srcerr"
)

// faultSpec is Experiment 1 (b) (50 jobs, three sites, placeholders only)
// with the faults of kind drawn from seed: a site stopped at T, lost
// placeholders at given times, a loss rate, a server outage shorter than
// the retries' buffer, or all of them.
func faultSpec(t *testing.T, kind string, seed uint64) *Spec {
	t.Helper()
	sp := load(t, "exp1.toml")
	sp.Modes = []string{Placeholder}
	sp.Seed = seed
	r := rand.New(rand.NewPCG(seed, 17))
	exec := 1800.0
	sp.Watchdog = &WatchdogSpec{ExecFailure: &exec, Interval: 60}
	for i := range sp.Sites {
		sp.Sites[i].Placeholders = 1 + r.IntN(3)
	}
	all := kind == "all"
	if kind == "stop" || all {
		at := 200 + 3000*r.Float64()
		sp.Sites[r.IntN(3)].StopAt = &at
	}
	if kind == "lost" || all {
		for range 1 + r.IntN(4) {
			i := r.IntN(3)
			sp.Sites[i].Lost = append(sp.Sites[i].Lost, 1500*r.Float64())
		}
	}
	if kind == "rate" || all {
		sp.Sites[r.IntN(3)].LossRate = 1.0 / (1000 + 3000*r.Float64())
	}
	if kind == "outage" || all {
		from := 3000 * r.Float64()
		sp.Outages = []Outage{{From: from, To: from + 100 + 2000*r.Float64()}}
	}
	if kind == "probe" {
		at := 1000 + 2000*r.Float64()
		sp.Sites[r.IntN(3)].StopAt = &at
		sp.Sites[r.IntN(3)].Lost = []float64{500 * r.Float64()}
		sp.Watchdog.Probe = true
	}
	if err := sp.Check(); err != nil {
		t.Fatal(err)
	}
	return sp
}

// accounted checks the must-show: every job done, exactly once or listed
// duplicated (or maybe) with its reason; none failed, none unfinished; a
// job that completed more than once is listed; nothing else lost.
func accounted(t *testing.T, sp *Spec, res *Result) {
	t.Helper()
	f := res.Faults
	if f == nil {
		t.Fatal("no faults in the report")
	}
	n := len(sp.Units)
	runs := map[int]int{}
	for _, jr := range res.Runs {
		runs[jr.Job]++
	}
	listed := map[int]string{}
	for _, l := range append(append([]Listed{}, f.Duplicated...), f.Maybe...) {
		if l.Reason == "" || l.Runs != runs[l.Job] {
			t.Errorf("listed %+v (runs %d)", l, runs[l.Job])
		}
		listed[l.Job] = l.Reason
	}
	if len(f.Failed) != 0 || len(f.Unfinished) != 0 || f.Once+len(listed) != n {
		t.Errorf("%d once, %d listed, failed %v, unfinished %v; want all %d accounted", f.Once, len(listed), f.Failed, f.Unfinished, n)
	}
	for j := range n {
		switch {
		case runs[j] == 0:
			t.Errorf("job %d never completed", j)
		case runs[j] > 1 && listed[j] == "":
			t.Errorf("job %d completed %d times and is not listed", j, runs[j])
		}
	}
}

// Each fault kind, and all of them at once, over several seeds: the
// workload completes, every job exactly once or reported duplicated with
// its reason, nothing lost; the faults did happen.
func TestFaultsEveryJobAccounted(t *testing.T) {
	for _, kind := range []string{"stop", "lost", "rate", "outage", "probe", "all"} {
		effects := 0 // runs where the fault kind showed (cut a run, or a call retried)
		for seed := uint64(1); seed <= 8; seed++ {
			t.Run(fmt.Sprintf("%s/%d", kind, seed), func(t *testing.T) {
				sp := faultSpec(t, kind, seed)
				res := run(t, sp).Runs[0]
				accounted(t, sp, res)
				f := res.Faults
				if kind == "outage" && f.Retried > 0 || kind != "outage" && len(f.Lost) > 0 {
					effects++
				}
				switch kind {
				case "lost", "probe":
					if len(f.Lost) == 0 || f.Requeued == 0 || f.Killed == 0 {
						t.Errorf("no placeholder lost: %+v", f)
					}
				}
				again := run(t, sp).Runs[0]
				if again.Makespan != res.Makespan || len(again.Faults.Lost) != len(f.Lost) || again.Faults.Requeued != f.Requeued {
					t.Errorf("not deterministic: %v/%d/%d then %v/%d/%d", res.Makespan, len(f.Lost), f.Requeued,
						again.Makespan, len(again.Faults.Lost), again.Faults.Requeued)
				}
			})
		}
		if effects < 4 {
			t.Errorf("%s: the faults showed in %d of 8 runs", kind, effects)
		}
	}
}

// A site stopped at T, worked out by hand: X (1 unit/s) and Y (0.5/s),
// jobs of 10, 10, 10 units, one placeholder each; X stops at 5. X's job 0
// is cut at 5; Y runs job 1 (0–20) and job 2 (20–40). At 40 Y's job ends
// first (its event is older than the watchdog's run at 40): Y resubmits
// and reports. The watchdog (exec failure 30 s, every 10 s) then finds X's
// placeholder bound since 0, puts job 0 back and submits a fresh one at X,
// which never starts; Y has its successor, so nothing is revived, and the
// successor takes job 0 from 40 to 60.
func TestStopAtByHand(t *testing.T) {
	src := `units = [10, 10, 10]
[watchdog]
exec_failure = 30
interval = 10
[[site]]
name = "X"
rate = 1
stop_at = 5
[[site]]
name = "Y"
rate = 0.5
`
	sp, err := Parse("s.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	sp.Modes = []string{Placeholder}
	res := run(t, sp).Runs[0]
	want := []JobRun{{1, "Y", 10, 0, 20}, {2, "Y", 10, 20, 40}, {0, "Y", 10, 40, 60}}
	if len(res.Runs) != len(want) {
		t.Fatalf("runs %+v", res.Runs)
	}
	for i, w := range want {
		if res.Runs[i] != w {
			t.Errorf("run %d: %+v, want %+v", i, res.Runs[i], w)
		}
	}
	f := res.Faults
	if len(f.Lost) != 1 || f.Lost[0] != (JobRun{0, "X", 10, 0, 5}) || f.Requeued != 1 || f.Killed != 1 || f.Replaced != 1 {
		t.Errorf("faults %+v", f)
	}
	if len(f.Maybe) != 1 || f.Maybe[0].Job != 0 || !strings.Contains(f.Maybe[0].Reason, "exec-failure") || f.Once != 2 {
		t.Errorf("listed %+v, once %d", f.Maybe, f.Once)
	}
	// The static split (2/1) cannot move X's jobs 0 and 1: they stay
	// unfinished, and are reported so; Y runs job 2.
	sp.Modes = []string{Static}
	st := run(t, sp).Runs[0]
	if fmt.Sprint(st.Faults.Unfinished) != "[0 1]" || st.Jobs != 1 || st.Runs[0].Job != 2 {
		t.Errorf("static: %d jobs, faults %+v", st.Jobs, st.Faults)
	}
}

// The edges of the faults: an outage longer than the retries' buffer
// (placeholders give up, reports are lost; the watchdog's EXEC-FAILURE
// puts the jobs back and they run again, listed maybe duplicated), losses so frequent that jobs pass the retry limit (the failed
// list), a site stopped at 0, and every site stopped.
func TestFaultEdges(t *testing.T) {
	cases := []struct {
		name  string
		extra string // top-level keys
		site  string // keys of every site
		check func(t *testing.T, f *Faults)
	}{
		{"outage beyond the retries", "retries = 2\nretry_wait = 10\noutages = [{from = 5, to = 1000}]\n", "", func(t *testing.T, f *Faults) {
			if f.GaveUp == 0 || len(f.Maybe) == 0 || len(f.Unfinished) != 0 {
				t.Errorf("%+v", f)
			}
		}},
		{"retries survive the outage", "retries = 5\nretry_wait = 10\noutages = [{from = 5, to = 40}]\n", "", func(t *testing.T, f *Faults) {
			if f.GaveUp != 0 || f.Retried == 0 || f.Once != 4 {
				t.Errorf("%+v", f)
			}
		}},
		// P13 with the thesis's retries (5, 10 minutes apart: a 50-minute
		// buffer): B's first job ends at 100 s, in the outage from 50 s;
		// its report and its successor's pull get through at 3,100 s when
		// the outage ends before, and give up when it ends after.
		{"P13 outage of 49 minutes", "outages = [{from = 50, to = 2990}]\n", "", func(t *testing.T, f *Faults) {
			if f.GaveUp != 0 || f.Retried == 0 || f.Once != 4 || f.Requeued != 0 {
				t.Errorf("%+v", f)
			}
		}},
		{"P13 outage of 51 minutes", "outages = [{from = 50, to = 3110}]\n", "", func(t *testing.T, f *Faults) {
			if f.GaveUp == 0 {
				t.Errorf("%+v", f)
			}
		}},
		{"failed list", "[watchdog]\nexec_failure = 100\nmax_retries = 1\ninterval = 5\n", "lost = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n", func(t *testing.T, f *Faults) {
			if len(f.Failed) == 0 || !strings.Contains(f.Failed[0].Reason, "failed list") {
				t.Errorf("%+v", f)
			}
		}},
		{"stopped at 0", "", "stop_at = 0\n", func(t *testing.T, f *Faults) {
			if len(f.Unfinished) != 4 || f.Once != 0 || len(f.Lost) != 0 {
				t.Errorf("%+v", f)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			units := "units = [10, 20, 30, 40]\n"
			if strings.HasPrefix(c.name, "P13") {
				units = "units = [200, 200, 200, 200]\n"
			}
			src := units + c.extra + "[[site]]\nname = \"A\"\nrate = 1\n" + c.site + "[[site]]\nname = \"B\"\nrate = 2\n" + c.site
			sp, err := Parse("e.toml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range run(t, sp).Runs {
				f := res.Faults
				if f == nil {
					t.Fatal("no faults")
				}
				if total := f.Once + len(listedJobs(f)); total != 4 {
					t.Errorf("%s: %d of 4 jobs accounted: %+v", res.Mode, total, f)
				}
				if res.Mode == Placeholder {
					c.check(t, f)
				}
			}
		})
	}
}

// Bad fault settings are refused at their line.
func TestFaultParseErrors(t *testing.T) {
	site := "\n[[site]]\nname = \"A\"\nrate = 1\n"
	cases := []struct{ src, want string }{
		{"units = [1]\nretries = -1" + site, "x.toml:2: retries -1"},
		{"units = [1]\nretry_wait = -5" + site, "x.toml:2: retry_wait"},
		{"units = [1]\noutages = [{from = 5, to = 1}]" + site, "x.toml:2: outage"},
		{"units = [1]\noutages = [{from = 0, to = 10}, {from = 5, to = 20}]" + site, "x.toml:2: outages"},
		{"units = [1]\ninterval = 10\n[watchdog]\ninterval = -1" + site, "x.toml:4: watchdog interval"},
		{"units = [1]\n[watchdog]\nexec_failure = -1" + site, "x.toml:3: watchdog exec_failure"},
		{"units = [1]\n[watchdog]\nmax_retries = -2" + site, "x.toml:3: watchdog max_retries"},
		{"units = [1]\n[watchdog]\nprobe = 1" + site, "x.toml:3: "},
		{"units = [1]\n[watchdog]\nheartbeat = 1" + site, "x.toml:3: unknown key watchdog.heartbeat"},
		{"units = [1]" + site + "stop_at = -1\n", "x.toml:5: site A: stop_at"},
		{"units = [1]" + site + "lost = [1, -3]\n", "x.toml:5: site A: lost time"},
		{"units = [1]" + site + "loss_rate = -0.5\n", "x.toml:5: site A: loss_rate"},
		{"units = [1]" + site + "loss_rate = nan\n", "x.toml:5: site A: loss_rate"},
	}
	for _, c := range cases {
		_, err := Parse("x.toml", []byte(c.src))
		var se *srcerr.Error
		if err == nil || !errors.As(err, &se) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q…", c.src, err, c.want)
		}
	}
}

// The shipped fault example: the placeholders finish every job (exactly
// once or listed), the static split leaves the stopped site's list
// unfinished, and says so.
func TestFaultExample(t *testing.T) {
	sp := load(t, "exp1-faults.toml")
	r := run(t, sp)
	st, ph := byMode(r, Static), byMode(r, Placeholder)
	accounted(t, sp, ph)
	if len(st.Faults.Unfinished) == 0 || st.Faults.Once+len(listedJobs(st.Faults)) != len(sp.Units) {
		t.Errorf("static faults %+v", st.Faults)
	}
	t.Logf("static: %.0f s, %d unfinished; placeholder: %.0f s, %d once, %d maybe duplicated, %d requeued",
		st.Makespan, len(st.Faults.Unfinished), ph.Makespan, ph.Faults.Once, len(ph.Faults.Maybe), ph.Faults.Requeued)
}

// listedJobs is every job in one of the lists (a job can be both maybe
// duplicated and failed, or unfinished).
func listedJobs(f *Faults) map[int]bool {
	m := map[int]bool{}
	for _, l := range [][]Listed{f.Duplicated, f.Maybe, f.Failed} {
		for _, j := range l {
			m[j.Job] = true
		}
	}
	for _, j := range f.Unfinished {
		m[j] = true
	}
	return m
}
