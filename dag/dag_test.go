package dag_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/gmark/gmark/dag"
	"github.com/gmark/gmark/dag/dagtest"
)

// The hand-computed graph:
//
//	a(3) -> b(2), c(4);  b, c -> d(1);  c -> e(5);  d, e -> f(2)
//
// levels a | b c | d e | f: depth 4, width 2; critical path a c e f =
// 3+4+5+2 = 14 (a c d f is 10, a b d f 8); work 17.
var handPreds = [][]int32{{}, {0}, {0}, {1, 2}, {2}, {3, 4}}

func handTasks(run ...float64) []dag.Task {
	ts := make([]dag.Task, len(run))
	for i, r := range run {
		ts[i] = dag.Task{Run: r, Start: math.NaN()}
	}
	return ts
}

func TestHandComputedDAG(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name    string
		release []float64
		start   []float64
		want    dag.Metrics
	}{
		{name: "all released at 0, starts unknown", want: dag.Metrics{Tasks: 6, Edges: 7, Depth: 4, Width: 2, CriticalPath: 14, CriticalTasks: 4,
			TotalWork: 17, Unbounded: 14, AsRan: 14, PeakParallelism: 2, MeanParallelism: 17.0 / 14}},
		// e released at 10: it ends at 15, f at 17.
		{name: "e released late", release: []float64{0, 0, 0, 0, 10, 0}, want: dag.Metrics{Tasks: 6, Edges: 7, Depth: 4, Width: 2, CriticalPath: 14,
			CriticalTasks: 4, TotalWork: 17, Unbounded: 17, AsRan: 17, PeakParallelism: 2, MeanParallelism: 1}},
		// As ran: c started 1 s late, the rest as soon as they could:
		// ends a 3, b 5, c 8, d 9, e 13, f 15.
		{name: "as ran", start: []float64{0, 3, 4, 8, 8, 13}, want: dag.Metrics{Tasks: 6, Edges: 7, Depth: 4, Width: 2, CriticalPath: 14,
			CriticalTasks: 4, TotalWork: 17, Unbounded: 14, AsRan: 15, StartsKnown: 6, PeakParallelism: 2, MeanParallelism: 17.0 / 15}},
		// d started at 7, before c ended at 8: counted, and its times kept.
		{name: "a start before a parent's end", start: []float64{0, 3, 4, 7, 8, 13}, want: dag.Metrics{Tasks: 6, Edges: 7, Depth: 4, Width: 2,
			CriticalPath: 14, CriticalTasks: 4, TotalWork: 17, Unbounded: 14, AsRan: 15, StartsKnown: 6, Early: 1, PeakParallelism: 2, MeanParallelism: 17.0 / 15}},
		// Only f's start known (late, at 20): the others as soon as they could.
		{name: "some starts known", start: []float64{nan, nan, nan, nan, nan, 20}, want: dag.Metrics{Tasks: 6, Edges: 7, Depth: 4, Width: 2,
			CriticalPath: 14, CriticalTasks: 4, TotalWork: 17, Unbounded: 14, AsRan: 22, StartsKnown: 1, PeakParallelism: 2, MeanParallelism: 17.0 / 22}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tasks := handTasks(3, 2, 4, 1, 5, 2)
			for i := range tasks {
				if tc.release != nil {
					tasks[i].Release = tc.release[i]
				}
				if tc.start != nil {
					tasks[i].Start = tc.start[i]
				}
			}
			got, err := dag.Analyze(handPreds, tasks)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Path, []int32{0, 2, 4, 5}) {
				t.Errorf("critical path %v, want a c e f (0 2 4 5)", got.Path)
			}
			got.Path = nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if err := dagtest.Check(handPreds, tasks); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestDegenerateGraphs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		preds [][]int32
		run   []float64
		want  dag.Metrics
	}{
		{"empty", nil, nil, dag.Metrics{}},
		{"one task", [][]int32{nil}, []float64{7}, dag.Metrics{Tasks: 1, Depth: 1, Width: 1, CriticalPath: 7, CriticalTasks: 1, TotalWork: 7,
			Unbounded: 7, AsRan: 7, PeakParallelism: 1, MeanParallelism: 1}},
		{"one task of unknown run time", [][]int32{nil}, []float64{-1}, dag.Metrics{Tasks: 1, Depth: 1, Width: 1, CriticalTasks: 1, UnknownRun: 1}},
		{"all zero: a chain of three", [][]int32{nil, {0}, {1}}, []float64{0, 0, 0}, dag.Metrics{Tasks: 3, Edges: 2, Depth: 3, Width: 1, CriticalTasks: 1}},
		{"independent tasks, all equal", [][]int32{nil, nil, nil, nil}, []float64{5, 5, 5, 5}, dag.Metrics{Tasks: 4, Depth: 1, Width: 4,
			CriticalPath: 5, CriticalTasks: 1, TotalWork: 20, Unbounded: 5, AsRan: 5, PeakParallelism: 4, MeanParallelism: 4}},
		{"a duplicate edge counts as an edge, not as a longer path", [][]int32{nil, {0, 0}}, []float64{1, 1}, dag.Metrics{Tasks: 2, Edges: 2,
			Depth: 2, Width: 1, CriticalPath: 2, CriticalTasks: 2, TotalWork: 2, Unbounded: 2, AsRan: 2, PeakParallelism: 1, MeanParallelism: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := dag.Analyze(tc.preds, handTasks(tc.run...))
			if err != nil {
				t.Fatal(err)
			}
			got.Path = nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if err := dagtest.Check(tc.preds, handTasks(tc.run...)); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestCycles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		preds [][]int32
		want  []int32
	}{
		{"a task depending on itself", [][]int32{nil, {1}}, []int32{1}},
		{"two tasks", [][]int32{{1}, {0}}, []int32{0, 1}},
		// 0 -> 1 -> 2 -> 3 -> 1: the cycle 1 2 3, behind a sound task.
		{"behind a sound task", [][]int32{nil, {0, 3}, {1}, {2}}, []int32{1, 2, 3}},
		// 2 -> 0 -> 1 -> 2, listed from its lowest index.
		{"from the lowest index", [][]int32{{2}, {0}, {1}}, []int32{0, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dag.Analyze(tc.preds, handTasks(make([]float64, len(tc.preds))...))
			var ce *dag.CycleError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a cycle", err)
			}
			if !slices.Equal(ce.Cycle, tc.want) {
				t.Errorf("cycle %v, want %v", ce.Cycle, tc.want)
			}
			// Each task of the cycle is a predecessor of the next.
			for k, v := range ce.Cycle {
				next := ce.Cycle[(k+1)%len(ce.Cycle)]
				if !slices.Contains(tc.preds[next], v) {
					t.Errorf("%d is not a predecessor of %d", v, next)
				}
			}
			names := ce.Names(func(i int32) string { return string(rune('a' + i)) })
			if names == "" || names[0] != byte('a'+tc.want[0]) {
				t.Errorf("names %q", names)
			}
		})
	}
	if err := dag.Check([][]int32{{3}}); err == nil {
		t.Error("a predecessor that is no task passed Check")
	}
}

// randomDAG is a graph of n tasks with edges from lower to higher ranks
// of a random permutation, so that index order is not topological.
func randomDAG(r *rand.Rand, n int, density float64) ([][]int32, []dag.Task) {
	perm := r.Perm(n)
	preds := make([][]int32, n)
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if r.Float64() < density {
				preds[perm[b]] = append(preds[perm[b]], int32(perm[a]))
			}
		}
	}
	tasks := make([]dag.Task, n)
	for i := range tasks {
		tasks[i] = dag.Task{Run: math.Floor(r.Float64() * 100), Start: math.NaN()}
		switch r.IntN(10) {
		case 0:
			tasks[i].Run = -1
		case 1:
			tasks[i].Release = math.Floor(r.Float64() * 300)
		}
	}
	return preds, tasks
}

func TestAgainstIndependentAlgorithms(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for k := 0; k < 400; k++ {
		n := 1 + r.IntN(60)
		preds, tasks := randomDAG(r, n, []float64{0, 0.05, 0.2, 0.8}[k%4])
		if err := dagtest.Check(preds, tasks); err != nil {
			t.Fatalf("graph %d (%d tasks): %v", k, n, err)
		}
	}
}

// A check that cannot fail is no check: dagtest must reject a wrong result.
func TestCheckRejectsWrongAnswers(t *testing.T) {
	tasks := handTasks(3, 2, 4, 1, 5, 2)
	want := dagtest.Compute(handPreds, tasks)
	if want.CriticalPath != 14 || want.Depth != 4 || want.Width != 2 || want.Unbounded != 14 || want.TotalWork != 17 {
		t.Fatalf("dagtest on the hand graph: %+v", want)
	}
	// Drop the edge c -> e: dag sees a shorter path than the full graph.
	other := dagtest.Compute([][]int32{{}, {0}, {0}, {1, 2}, {}, {3, 4}}, tasks)
	if other.CriticalPath == want.CriticalPath {
		t.Fatal("a different graph gave the same critical path")
	}
}

func TestProfile(t *testing.T) {
	got := dag.Profile([]float64{0, 1, 1, 5, 6}, []float64{2, 3, 1, 6, 8})
	want := []dag.Step{{0, 1}, {1, 2}, {2, 1}, {3, 0}, {5, 1}, {8, 0}}
	if !slices.Equal(got, want) {
		t.Errorf("profile %v, want %v", got, want)
	}
	if p := dag.Profile(nil, nil); len(p) != 0 {
		t.Errorf("profile of nothing: %v", p)
	}
}

func BenchmarkAnalyze100k(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 100000
	preds := make([][]int32, n)
	for i := 1; i < n; i++ {
		for k := 0; k < 2; k++ {
			preds[i] = append(preds[i], int32(r.IntN(i)))
		}
	}
	tasks := make([]dag.Task, n)
	for i := range tasks {
		tasks[i] = dag.Task{Run: r.Float64() * 100, Start: math.NaN()}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := dag.Analyze(preds, tasks); err != nil {
			b.Fatal(err)
		}
	}
}
