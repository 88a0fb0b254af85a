package experiment

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/srcerr"
)

// The placeholder run of the small case: Y 4 units [0, 8], X 10 units
// [0, 10], Y 6 units [8, 20]. Intervals of 10 s: job 1 in the first, jobs
// 0 and 2 in the second (20 is the makespan: the last bin holds it). Hours
// of 5 s in the window [3, 15]: rows [3,8) [8,13) [13,15]; jobs 0 and 1
// started before 3 and end in row 2: partial 7/10 and 5/8; job 2 runs past
// 15: 7/12 in the "after" row.
func TestIntervalsAndHourlyByHand(t *testing.T) {
	sp, err := Parse("small.toml", []byte(small))
	if err != nil {
		t.Fatal(err)
	}
	sp.Modes = []string{Placeholder}
	res := run(t, sp).Runs[0]
	want := []Interval{{0, 10, []float64{0, 4}, 4, 0.4}, {10, 20, []float64{10, 6}, 16, 1.6}}
	if len(res.Intervals) != len(want) {
		t.Fatalf("intervals %+v", res.Intervals)
	}
	for i, w := range want {
		g := res.Intervals[i]
		if g.Start != w.Start || g.End != w.End || g.Units[0] != w.Units[0] || g.Units[1] != w.Units[1] || g.Total != w.Total || math.Abs(g.Throughput-w.Throughput) > 1e-12 {
			t.Errorf("interval %d: %+v, want %+v", i, g, w)
		}
	}
	h := res.Hourly
	rows := []HourRow{{1, 0, 0, 0}, {2, 0, 0.7 + 0.625, 0.7 + 0.625}, {3, 0, 0, 0}}
	if len(h.Rows) != 3 {
		t.Fatalf("rows %+v", h.Rows)
	}
	for i, w := range rows {
		g := h.Rows[i]
		if g.Row != w.Row || g.Complete != w.Complete || math.Abs(g.Partial-w.Partial) > 1e-12 || math.Abs(g.Total-w.Total) > 1e-12 {
			t.Errorf("row %d: %+v, want %+v", i+1, g, w)
		}
	}
	if math.Abs(h.After.Partial-7.0/12) > 1e-12 || math.Abs(h.Sum-(1.325+7.0/12)) > 1e-12 {
		t.Errorf("after %+v sum %v", h.After, h.Sum)
	}
}

// Edges of the hourly table: no window is 0 to the makespan, so every job
// is complete and the rows add up to the jobs (P12's identity); a window
// after everything is empty; one job that spans the window counts the
// window's share of it.
func TestHourlyEdges(t *testing.T) {
	runs := []JobRun{{0, "X", 1, 0, 100}, {1, "X", 1, 100, 150}}
	cases := []struct {
		name       string
		from, to   float64
		complete   int
		partialSum float64
		after      float64
	}{
		{"whole", 0, 150, 2, 0, 0},
		{"after everything", 200, 300, 0, 0, 0},
		{"inside one job", 20, 40, 0, 0, 0.2},
		{"boundary", 100, 150, 1, 0, 0},
		{"one", 0, 100, 1, 0, 0},
	}
	for _, c := range cases {
		h := hourly(runs, c.from, c.to, 30)
		complete, partial := 0, 0.0
		for _, r := range h.Rows {
			complete += r.Complete
			partial += r.Partial
		}
		if complete != c.complete || math.Abs(partial-c.partialSum) > 1e-12 || math.Abs(h.After.Partial-c.after) > 1e-12 {
			t.Errorf("%s: complete %d partial %v after %v", c.name, complete, partial, h.After.Partial)
		}
	}
}

// The same spec gives the same report, byte for byte, every time.
func TestDeterministic(t *testing.T) {
	for _, f := range []string{"exp1.toml", "exp1c.toml"} {
		var first []byte
		for i := range 3 {
			var b bytes.Buffer
			if err := run(t, load(t, f)).WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = b.Bytes()
			} else if !bytes.Equal(first, b.Bytes()) {
				t.Fatalf("%s: run %d differs", f, i)
			}
		}
	}
	var b bytes.Buffer
	if err := run(t, load(t, "exp1.toml")).WriteText(&b); err != nil || !strings.Contains(b.String(), "makespan static / placeholder: 2.") {
		t.Errorf("text: %v\n%s", err, b.String())
	}
}

func TestParseErrors(t *testing.T) {
	site := "\n[[site]]\nname = \"A\"\nrate = 1\n"
	cases := []struct{ src, want string }{
		{"", "x.toml: no [[site]]"},
		{"units = [1]\n", "x.toml: no [[site]]"},
		{site, "x.toml: units must list"},
		{"units = [1, -2]" + site, "x.toml:1: units[1] = -2"},
		{"units = [1]\nmodes = [\"push\"]" + site, "x.toml:2: modes"},
		{"units = [1]\nsplit = [2]" + site, "x.toml:2: split adds up to 2"},
		{"units = [1]\nsplit = [1, 0]" + site, "x.toml:2: split has 2 counts for 1 sites"},
		{"units = [1]\nbogus = 1" + site, "x.toml:2: unknown key bogus"},
		{"units = [1]\nunits = [2]" + site, "x.toml:2"},
		{"units = [1]\n" + site + "placeholders = -1\n", "x.toml:6: site A: placeholders -1"},
		{"units = [1]\n" + site + "load = [{from = 5, to = 2, rate = 1}]\n", "x.toml:6: site A: load"},
		{"units = [1]\n" + site + "load = [{from = 0, to = 5, rate = 1}, {from = 4, to = 6, rate = 1}]\n", "x.toml:6: site A: loads"},
		{"units = [1]\n" + site + site, "x.toml:8: site A given twice"},
		{"units = [1]\n" + strings.Replace(site, "rate = 1", "rate = 0", 1), "x.toml:5: site A: rate 0"},
		{"units = [1]\nwindow = [5, 1]" + site, "x.toml:2: window"},
		{"units = [1]\ninterval = -1" + site, "x.toml:2: interval"},
		{"units = [1e30]" + site, "x.toml:1: units[0]"},
		{"units = [1]\n[[site]]\nname = \"a b\"\nrate = 1\n", "x.toml:3: site 1: name"},
		{"units = [1]\n[[site]]\nname = \"A\"\nrate = \"fast\"\n", "x.toml:4: "},
		{"units = 3\n[[site]]\nname = \"A\"\nrate = 1\n", "x.toml:1: "},
	}
	for _, c := range cases {
		_, err := Parse("x.toml", []byte(c.src))
		var se *srcerr.Error
		if err == nil || !errors.As(err, &se) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q…", c.src, err, c.want)
		}
	}
	if _, err := LoadFile("/nonexistent/exp.toml"); err == nil {
		t.Error("a missing file was read")
	}
	var b bytes.Buffer
	if err := RunFile("../../examples/placeholder/exp1.toml", "xml", "", &b); err == nil {
		t.Error("format xml accepted")
	}
	if err := RunFile(t.TempDir(), "text", "", &b); err == nil {
		t.Error("a directory was read")
	}
	if err := RunFile("../../examples/placeholder/exp1.toml", "json", "", &b); err != nil || !strings.Contains(b.String(), `"ratio": 2.`) {
		t.Errorf("json: %v", err)
	}
}

// A run whose tables would be too long is refused, not allocated.
func TestTooManyRows(t *testing.T) {
	sp, err := Parse("x.toml", []byte("units = [1e9]\ninterval = 1\n[[site]]\nname = \"A\"\nrate = 1e-9\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Experiment(sp); err == nil || !strings.Contains(err.Error(), "rows") {
		t.Errorf("got %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(small))
	f.Add([]byte("units = [1]\n[[site]]\nname = \"A\"\nrate = 1\nload = [{from = 0, to = 1, rate = 2}]\n"))
	f.Add([]byte("units = [1,2,3]\nsplit=[3]\n[[site]]\nname=\"A\"\nrate=0.5\nplaceholders=2\nqueue_wait=3\n"))
	f.Add([]byte("units = [1,2,3]\nseed = 3\nretries = 1\nretry_wait = 2\noutages = [{from = 1, to = 4}]\n[watchdog]\nexec_failure = 5\nqueue_failure = 50\nmax_retries = 1\ninterval = 1\nprobe = true\n[[site]]\nname=\"A\"\nrate=0.5\nstop_at = 3\n[[site]]\nname=\"B\"\nrate=1\nlost = [0.5, 2]\nloss_rate = 0.1\n"))
	f.Add([]byte("units = [1,2,3]\nauto_total = 4\n[[site]]\nname=\"A\"\nrate=0.5\nplaceholders = \"auto\"\nmax_count = 2\n[[site]]\nname=\"B\"\nrate=1\nplaceholders = \"auto\"\nprocessors = 3\n"))
	f.Add([]byte("jobs = 50\nseed = 2\nwindow = [10, 100]\n[[site]]\nname=\"A\"\nmean = 10\nsigma = 5\nplaceholders = 3\n[[site]]\nname=\"B\"\nmean = 4\n"))
	f.Add([]byte("units = [1,2]\ntime_scale = 10\n[[site]]\nname=\"A\"\nrate = 1\nload = [{from = 0, to = 1, rate = 2}]\n"))
	f.Add([]byte("units = [1,2]\ntime_scale = 10\n[[site]]\nname=\"A\"\nrate = 1\ntarget = \"slurm\"\npartition = \"p\"\nwall_time = \"1h\"\n[[site]]\nname=\"B\"\nrate = 1\ntarget = \"koala\"\nkoala = \"http://127.0.0.1:1\"\ncluster = \"c\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		sp, err := Parse("f.toml", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.toml") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		phs := 0
		for _, s := range sp.Sites {
			phs += s.Placeholders
		}
		if len(sp.Units) > 200 || phs > 200 {
			return
		}
		r, err := Experiment(sp)
		if err != nil {
			return // too many rows
		}
		for _, res := range r.Runs {
			if f := res.Faults; f != nil {
				if f.Once+len(listedJobs(f)) != len(sp.Units) {
					t.Fatalf("%s: %d once, %+v: jobs unaccounted", res.Mode, f.Once, f)
				}
				continue
			}
			if res.Jobs != len(sp.Units) || res.Imbalance < 0 || res.Imbalance > 1 || math.IsNaN(res.Makespan) {
				t.Fatalf("%s: %d jobs, imbalance %v, makespan %v", res.Mode, res.Jobs, res.Imbalance, res.Makespan)
			}
		}
	})
}
