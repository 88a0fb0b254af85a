package experiment

import (
	"strings"
	"testing"
)

// The expansion: scenarios in file order, then architectures, loads and
// repetitions; each run computed from its index alone.
func TestExpansion(t *testing.T) {
	src := base + `repetitions = 2
[[scenario]]
name = "a"
[[scenario]]
name = "b"
architectures = ["central"]
loads = [10, 20, 50]
repetitions = 1
`
	e, err := parse(t, t.TempDir(), src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := e.NumRuns(); n != 2*2*2+3 {
		t.Fatalf("%d runs, want 11", n)
	}
	var got []string
	for i := 0; i < e.NumRuns(); i++ {
		r, err := e.Run(i)
		if err != nil {
			t.Fatal(err)
		}
		if r.Index != i {
			t.Errorf("run %d has index %d", i, r.Index)
		}
		got = append(got, r.Scenario.Name+"/"+r.Arch+"/"+num(r.Load)+"/"+num(float64(r.Rep)))
	}
	want := "a/sep-c/30/1 a/sep-c/30/2 a/sep-c/70/1 a/sep-c/70/2 a/dmm/30/1 a/dmm/30/2 a/dmm/70/1 a/dmm/70/2 b/central/10/1 b/central/20/1 b/central/50/1"
	if strings.Join(got, " ") != want {
		t.Errorf("expansion\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	for _, i := range []int{-1, 11, 1 << 40} {
		if _, err := e.Run(i); err == nil {
			t.Errorf("run %d exists", i)
		}
	}
}

// Seeds and digests: a run's seed comes from the experiment's seed, its
// load and its repetition only (every architecture and scenario at one
// load and repetition sees the same workload), so adding a scenario, an
// architecture or a load changes no other run, and the same file gives the
// same runs.
func TestSeedsAreStable(t *testing.T) {
	dir := t.TempDir()
	one, err := parse(t, dir, base+"repetitions = 2\n[[scenario]]\nname = \"a\"\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	more, err := parse(t, dir, strings.Replace(strings.Replace(base, `["sep-c", "dmm"]`, `["cern", "sep-c", "dmm"]`, 1), "[30, 70]", "[30, 50, 70]", 1)+
		"repetitions = 2\n[[scenario]]\nname = \"new\"\nloads = [50]\n[[scenario]]\nname = \"a\"\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := func(r *Run) string {
		return r.Scenario.Name + "/" + r.Arch + "/" + num(r.Load) + "/" + num(float64(r.Rep))
	}
	byKey := map[string]*Run{}
	for i := 0; i < more.NumRuns(); i++ {
		r, _ := more.Run(i)
		byKey[key(r)] = r
	}
	seeds := map[uint64]string{}
	for i := 0; i < one.NumRuns(); i++ {
		r, _ := one.Run(i)
		m := byKey[key(r)]
		if m == nil {
			t.Fatalf("%s is not in the larger experiment", key(r))
		}
		if m.Seed != r.Seed || m.WorkloadSeed != r.WorkloadSeed || m.Digest != r.Digest {
			t.Errorf("%s: seed %d/%d digest %.8s in one experiment, %d/%d %.8s in the other", key(r), r.Seed, r.WorkloadSeed, r.Digest, m.Seed, m.WorkloadSeed, m.Digest)
		}
		again, _ := one.Run(i)
		if again.Digest != r.Digest || string(again.Definition) != string(r.Definition) {
			t.Errorf("%s: a second expansion differs", key(r))
		}
		// Common random numbers: the same load and repetition, the same seeds.
		lr := num(r.Load) + "/" + num(float64(r.Rep))
		if prev, ok := seeds[r.WorkloadSeed]; ok && prev != lr {
			t.Errorf("workload seed %d of %s and of %s", r.WorkloadSeed, lr, prev)
		}
		seeds[r.WorkloadSeed] = lr
		if r.Seed == r.WorkloadSeed {
			t.Errorf("%s: the simulator's and the workload's seeds are the same", key(r))
		}
	}
	if len(seeds) != 4 {
		t.Errorf("%d workload seeds for 2 loads × 2 repetitions", len(seeds))
	}
	// The run of scenario new at the load and repetition of a's runs has
	// the same workload seed as they do.
	n := byKey["new/dmm/50/1"]
	a := byKey["a/dmm/50/1"]
	if n == nil || a == nil || n.WorkloadSeed != a.WorkloadSeed || n.Digest != a.Digest {
		t.Errorf("two scenarios of the same definition: %+v %+v", n, a)
	}
	// Another experiment seed changes every seed.
	other, _ := parse(t, dir, base+"seed = 2\nrepetitions = 2\n[[scenario]]\nname = \"a\"\n", Options{})
	for i := 0; i < one.NumRuns(); i++ {
		r, _ := one.Run(i)
		o, _ := other.Run(i)
		if r.Seed == o.Seed || r.Digest == o.Digest {
			t.Errorf("run %d: the same seed under experiment seeds 1 and 2", i)
		}
	}
}

// DeriveSeed: below 2^63 (a SQLite integer), a function of its inputs.
func TestDeriveSeed(t *testing.T) {
	seen := map[uint64]bool{}
	for _, seed := range []uint64{0, 1, 1<<64 - 1} {
		for _, load := range []float64{0.5, 50, 50.0000001} {
			for rep := 1; rep <= 3; rep++ {
				for _, p := range []string{"sim", "workload"} {
					s := DeriveSeed(seed, load, rep, p)
					if s>>63 != 0 || seen[s] {
						t.Fatalf("seed %d for %d/%g/%d/%s", s, seed, load, rep, p)
					}
					seen[s] = true
					if DeriveSeed(seed, load, rep, p) != s {
						t.Fatal("not a function")
					}
				}
			}
		}
	}
}

// --scale is part of what a run is: a reduced run is another run.
func TestScaleChangesDigests(t *testing.T) {
	dir := t.TempDir()
	full, _ := parse(t, dir, base, Options{})
	half, _ := parse(t, dir, base, Options{Scale: 0.5})
	a, _ := full.Run(0)
	b, _ := half.Run(0)
	if a.Digest == b.Digest || a.Seed != b.Seed {
		t.Errorf("digests %.8s %.8s, seeds %d %d", a.Digest, b.Digest, a.Seed, b.Seed)
	}
	_, da, _ := full.Definition()
	_, db, _ := half.Definition()
	if da == db {
		t.Error("the two definitions have one digest")
	}
}
