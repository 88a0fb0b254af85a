package experiment

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/srcerr"
	"github.com/gmark/gmark/internal/testbin"
)

var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

// The job script's arithmetic, dry (it prints the experiment's time now,
// the job's end and the wall sleep instead of sleeping): at time_scale
// 0.001 a millisecond of wall time is a microsecond of the experiment, so
// the start t is the epoch's offset give or take a few microseconds, and
// the end is checked exactly against t: by hand, through Site.finish.
func TestWorkScriptDry(t *testing.T) {
	sp, err := Parse("x.toml", []byte(`units = [1]
time_scale = 0.001
[[site]]
name = "A"
rate = 1
load = [{from = 5, to = 1000, rate = 0.5}]
[[site]]
name = "a*b"
rate = 2
[[site]]
name = "axb"
rate = 0.25
load = [{from = 0, to = 3, rate = 4}, {from = 3.5, to = 4, rate = 8}]
`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		site   string
		ago    float64 // experiment seconds since the epoch
		units  int64   // micro-units
		finish func(t int64) int64
	}{
		// 5 units by 5 s at rate 1, then 5+t/1e6 at 0.5.
		{"A", 0, 10e6, func(t int64) int64 { return 15e6 + 2*t }},
		{"A", 0, 1e6, func(t int64) int64 { return t + 1e6 }},
		// Past the load: rate 1.
		{"A", 2000, 3e6, func(t int64) int64 { return t + 3e6 }},
		{"a*b", 0, 3e6, func(t int64) int64 { return t + 1.5e6 }},
		// axb at 4 s: the loads are over; 1 unit at 0.25 takes 4 s.
		{"axb", 4, 1e6, func(t int64) int64 { return t + 4e6 }},
	}
	for _, c := range cases {
		epoch := time.Now().Add(-time.Duration(c.ago / sp.TimeScale * float64(time.Second)))
		script := filepath.Join(t.TempDir(), "work.sh")
		if err := os.WriteFile(script, []byte(workScript(sp, epoch)), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("/bin/sh", script, fmt.Sprint(c.units))
		cmd.Env = append(os.Environ(), "GMARK_PLACEHOLDER_SITE="+c.site, "GMARK_EXPERIMENT_DRY=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", c.site, err)
		}
		var now, end, d int64
		if _, err := fmt.Sscan(string(out), &now, &end, &d); err != nil {
			t.Fatalf("%s: %q: %v", c.site, out, err)
		}
		if want := c.finish(now); end != want || d != (end-now)*1000 {
			t.Errorf("%s at %d µs, %d µ-units: end %d, sleep %d; want %d and %d", c.site, now, c.units, end, d, want, (want-now)*1000)
		}
		// Site.finish agrees (to the microsecond of the integers).
		st := sp.Sites[siteIndexOf(sp, c.site)]
		if f := st.finish(float64(now)/1e6, float64(c.units)/1e6); f*1e6 < float64(end)-2 || f*1e6 > float64(end)+2 {
			t.Errorf("%s: Site.finish %.6f s, the script %d µs", c.site, f, end)
		}
	}
	cmd := exec.Command("/bin/sh", filepath.Join(t.TempDir(), "none.sh"))
	if cmd.Run() == nil {
		t.Error("a missing script ran")
	}
	script := filepath.Join(t.TempDir(), "work.sh")
	_ = os.WriteFile(script, []byte(workScript(sp, time.Now())), 0o755)
	cmd = exec.Command("/bin/sh", script, "1")
	cmd.Env = append(os.Environ(), "GMARK_PLACEHOLDER_SITE=nowhere", "GMARK_EXPERIMENT_DRY=1")
	if err := cmd.Run(); err == nil {
		t.Error("a job at an unknown site ran")
	}
}

func siteIndexOf(sp *Spec, name string) int {
	for i, st := range sp.Sites {
		if st.Name == name {
			return i
		}
	}
	return -1
}

// Scaled time on real processes: a real metaqueue and real placeholder
// processes run 12 jobs both ways; each job once; each execution at least
// as long as its units at its site's rate (the sleep is a lower bound;
// the process starts and calls add to it); the static run's jobs at their
// split's sites, its makespan at least the simulated one's.
func TestScaledRun(t *testing.T) {
	src := `name = "scaled"
units = [2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1]
split = [4, 4, 4]
time_scale = 10
[[site]]
name = "A"
rate = 4
[[site]]
name = "B"
rate = 2
placeholders = 2
[[site]]
name = "C"
rate = 1
`
	sp, err := Parse("x.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := ExperimentWith(sp, Options{Gmark: gmarkBin.Path(t), Dir: dir, Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := Parse("x.toml", []byte(strings.Replace(src, "time_scale = 10\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	simr := run(t, sim)
	for _, res := range r.Runs {
		if res.Jobs != 12 || len(res.Runs) != 12 {
			t.Fatalf("%s: %d jobs ran", res.Mode, res.Jobs)
		}
		for _, jr := range res.Runs {
			st := sp.Sites[siteIndexOf(sp, jr.Site)]
			if min := jr.Units / st.Rate; jr.End-jr.Start < min-1e-5*sp.TimeScale || jr.Start < 0 {
				t.Errorf("%s: job %d at %s ran %.6f s from %.3f; its units take %.3f s", res.Mode, jr.Job, jr.Site, jr.End-jr.Start, jr.Start, min)
			}
			if res.Mode == Static && jr.Site != sp.Sites[jr.Job/4].Name {
				t.Errorf("static: job %d ran at %s", jr.Job, jr.Site)
			}
		}
		t.Logf("%s: scaled makespan %.2f s, simulated %.2f s", res.Mode, res.Makespan, byMode(simr, res.Mode).Makespan)
	}
	if st := byMode(r, Static); st.Makespan < byMode(simr, Static).Makespan-1e-5*sp.TimeScale {
		t.Errorf("static: scaled makespan %.3f below the simulated %.3f", st.Makespan, byMode(simr, Static).Makespan)
	}
	if _, err := os.Stat(filepath.Join(dir, Placeholder, "metaqueue.db")); err != nil {
		t.Errorf("the run's state is not kept in its directory: %v", err)
	}
	if _, err := ExperimentWith(sp, Options{}); err == nil {
		t.Error("scaled time ran with no gmark binary")
	}
}

// What scaled time does not emulate is refused at its line.
func TestScaledParseErrors(t *testing.T) {
	site := "\n[[site]]\nname = \"A\"\nrate = 1\n"
	cases := []struct{ src, want string }{
		{"units = [1]\ntime_scale = -1" + site, "x.toml:2: time_scale -1"},
		{"units = [1]\ntime_scale = 1e5" + site, "x.toml:2: time_scale 100000"},
		{"units = [1]\ntime_scale = 10\noutages = [{from = 1, to = 2}]" + site, "x.toml:2: time_scale: faults"},
		{"units = [1]\ntime_scale = 10" + site + "stop_at = 5\n", "x.toml:2: time_scale: faults"},
		{"units = [2e6]\ntime_scale = 10" + site, "x.toml:1: units[0] = 2e+06"},
		{"units = [1]\ntime_scale = 10" + site + "queue_wait = 5\n", "x.toml:6: site A: queue_wait"},
		{"units = [1]\ntime_scale = 10\n[[site]]\nname = \"A\"\nmean = 10\nsigma = 2\n", "x.toml:6: site A: sigma"},
		{"units = [1]\ntime_scale = 10\n[[site]]\nname = \"A\"\nrate = 1e-7\n", "x.toml:5: site A: rate"},
	}
	for _, c := range cases {
		_, err := Parse("x.toml", []byte(c.src))
		var se *srcerr.Error
		if err == nil || !errors.As(err, &se) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q…", c.src, err, c.want)
		}
	}
}

// Experiment 1 at scaled time: the shipped
// exp1, exp1c and exp1d run by real placeholder processes against a real
// metaqueue server on this host, their jobs sleeping their units at the
// sites' rates divided by the scale (×500 for (a)/(b): 14,000 + 5,800
// simulated seconds in about 40 wall seconds, the per-job overheads of real
// processes kept small beside the jobs; ×2000 for the placeholders of (c)
// and (d), about 10 s each).
// The thesis: static/placeholder makespan 2.41, imbalance 72% → 14%,
// (c)/(d) ≤ 5%. The thesis's bounds on the ratio (≥ 2.2) are asserted
// on the virtual clock (TestExperiment1), where no load can move them;
// here, where every second of a busy machine's overhead lands in the
// makespans (a ratio of 2.03 at load 13), the run asserts what holds
// whatever the load — the placeholders end first, and balance the sites
// better than the static split — and logs the ratio beside the thesis's.
func TestExperiment1Scaled(t *testing.T) {
	if testing.Short() {
		t.Skip("about a minute of real placeholder processes (-short)")
	}
	for _, c := range []struct {
		file  string
		scale int
		check func(t *testing.T, static, ph *Result)
	}{
		{"exp1.toml", 500, func(t *testing.T, static, ph *Result) {
			ratio := static.Makespan / ph.Makespan
			t.Logf("makespan %.0f s static, %.0f s placeholders: ratio %.2f (thesis 2.41); imbalance %.1f%% static (thesis 72%%), %.1f%% placeholders (thesis 14%%)",
				static.Makespan, ph.Makespan, ratio, 100*static.Imbalance, 100*ph.Imbalance)
			if ratio <= 1 {
				t.Errorf("makespan %.0f s static, %.0f s placeholders: the placeholders did not end first", static.Makespan, ph.Makespan)
			}
			if static.Imbalance < 0.6 || ph.Imbalance >= static.Imbalance {
				t.Errorf("imbalance %.1f%% static (thesis 72%%, want ≥ 60%%: the sites' rates alone make it), %.1f%% placeholders (want below the static split's)",
					100*static.Imbalance, 100*ph.Imbalance)
			}
		}},
		{"exp1c.toml", 2000, func(t *testing.T, _, ph *Result) {
			if ph.Imbalance > 0.05 {
				t.Errorf("(c) imbalance %.1f%%, want ≤ 5%% (thesis 1.9%%)", 100*ph.Imbalance)
			}
		}},
		{"exp1d.toml", 2000, func(t *testing.T, _, ph *Result) {
			if ph.Imbalance > 0.05 {
				t.Errorf("(d) imbalance %.1f%%, want ≤ 5%% (thesis 2.1%%)", 100*ph.Imbalance)
			}
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("..", "..", "examples", "placeholder", c.file))
			if err != nil {
				t.Fatal(err)
			}
			src := strings.Replace(string(b), "[[site]]", fmt.Sprintf("time_scale = %d\n[[site]]", c.scale), 1)
			sp, err := Parse(c.file, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if c.file != "exp1.toml" {
				sp.Modes = []string{Placeholder} // (c) and (d) are about the placeholders' imbalance
			}
			r, err := ExperimentWith(sp, Options{Gmark: gmarkBin.Path(t), Dir: t.TempDir(), Timeout: 5 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			byMode := map[string]*Result{}
			for i := range r.Runs {
				byMode[r.Runs[i].Mode] = r.Runs[i]
			}
			static, ph := byMode[Static], byMode[Placeholder]
			if ph == nil || (c.file == "exp1.toml" && static == nil) {
				t.Fatalf("runs %v", byMode)
			}
			t.Logf("%s ×%d: static %v s, placeholders %.0f s, imbalance %.1f%%", c.file, c.scale, makespanOf(static), ph.Makespan, 100*ph.Imbalance)
			c.check(t, static, ph)
		})
	}
}

func makespanOf(r *Result) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", r.Makespan)
}
