package lunar

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// reference explores the same space the obvious way: recursion over rows,
// checking every earlier queen, collecting solutions.
func reference(n int) (states int64, solutions [][]int) {
	pos := make([]int, n)
	var rec func(row int)
	rec = func(row int) {
		if row == n {
			solutions = append(solutions, append([]int(nil), pos...))
			return
		}
		for c := range n {
			ok := true
			for r := range row {
				if pos[r] == c || row-r == c-pos[r] || row-r == pos[r]-c {
					ok = false
					break
				}
			}
			if ok {
				states++
				pos[row] = c
				rec(row + 1)
			}
		}
	}
	rec(0)
	return states, solutions
}

// Known counts of solutions and of fundamental solutions (OEIS A000170 and
// A002562).
var known = map[int][2]int64{
	1: {1, 1}, 2: {0, 0}, 3: {0, 0}, 4: {2, 1}, 5: {10, 2}, 6: {4, 1}, 7: {40, 6},
	8: {92, 12}, 9: {352, 46}, 10: {724, 92}, 11: {2680, 341}, 12: {14200, 1787},
}

func TestExploreMatchesReferenceAndKnownCounts(t *testing.T) {
	for n := 1; n <= 12; n++ {
		for _, workers := range []int{1, 3} {
			var c Counts
			if !Explore(n, workers, &c, nil) {
				t.Fatalf("n=%d stopped", n)
			}
			if n <= 9 {
				states, sols := reference(n)
				if c.States.Load() != states || c.Solutions.Load() != int64(len(sols)) {
					t.Errorf("n=%d workers=%d: %d states %d solutions, reference %d and %d",
						n, workers, c.States.Load(), c.Solutions.Load(), states, len(sols))
				}
			}
			if k := known[n]; c.Solutions.Load() != k[0] || c.Interesting.Load() != k[1] {
				t.Errorf("n=%d workers=%d: %d solutions %d interesting, want %d and %d",
					n, workers, c.Solutions.Load(), c.Interesting.Load(), k[0], k[1])
			}
		}
	}
}

func TestStatesGrowWithDimension(t *testing.T) {
	var prev int64
	for n := 4; n <= 12; n++ {
		var c Counts
		Explore(n, 1, &c, nil)
		if c.States.Load() <= prev {
			t.Errorf("n=%d explores %d states, not more than n=%d's %d", n, c.States.Load(), n-1, prev)
		}
		prev = c.States.Load()
	}
}

func TestExploreStops(t *testing.T) {
	var c Counts
	var stop atomic.Bool
	stop.Store(true)
	if Explore(20, 2, &c, &stop) {
		t.Fatal("a stopped exploration of dimension 20 reports completion")
	}
}

// BenchmarkExplore gives the states explored per second of one worker.
func BenchmarkExplore(b *testing.B) {
	for _, n := range []int{8, 11} {
		b.Run(fmt.Sprintf("S=%d", n), func(b *testing.B) {
			var states int64
			for b.Loop() {
				var c Counts
				Explore(n, 1, &c, nil)
				states += c.States.Load()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(states), "ns/state")
		})
	}
}
