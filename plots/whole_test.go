package plots

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Ranks and counts get labelled ticks at whole values only, enough of them
// where the range holds enough whole values.
func TestWholeTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		min    int // labelled ticks at least
	}{
		{0, 10, MinTicks}, {0, 3, MinTicks}, {-0.5, 10.5, MinTicks}, {0, 1000, MinTicks}, {1, 7, MinTicks},
		{0, 2, 3}, {0.2, 0.8, 0}, {5, 5, 1}, {0, 1e9, MinTicks},
	}
	for _, c := range cases {
		ticks := WholeTicks{}.Ticks(c.lo, c.hi)
		n := 0
		for _, tk := range ticks {
			if tk.Label == "" {
				continue
			}
			n++
			if tk.Value != math.Round(tk.Value) && c.hi > c.lo {
				t.Errorf("[%g, %g]: a tick at %g", c.lo, c.hi, tk.Value)
			}
			if tk.Value < c.lo-1e-9 || tk.Value > c.hi+1e-9 {
				t.Errorf("[%g, %g]: a tick at %g, outside", c.lo, c.hi, tk.Value)
			}
		}
		if n < c.min {
			t.Errorf("[%g, %g]: %d labelled ticks, want at least %d", c.lo, c.hi, n, c.min)
		}
	}
}

// The Pareto chart's cumulative shares start from 0 at the left edge of the
// first bar and reach 100% at the right edge of the last, one bar per
// site or, with many sites, per group of sites.
func TestParetoCumulativeFromZero(t *testing.T) {
	for _, n := range []int{1, 3, 100} {
		sites, counts := make([]string, n), make([]int, n)
		for i := range n {
			sites[i], counts[i] = strings.Repeat("s", 1+i%3)+string(rune('a'+i%26)), 1+i
		}
		d, err := Pareto("p", sites, counts)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := PlotData(d.plot.Plot)
		if err != nil {
			t.Fatal(err)
		}
		var cum []string
		for _, r := range rows {
			if r[0] == "cumulative share" {
				cum = append(cum, r[1]+","+r[2])
			}
		}
		if len(cum) < 2 || cum[0] != "-0.5,0" || !strings.HasSuffix(cum[len(cum)-1], ",100") {
			t.Errorf("%d sites: cumulative %v", n, cum)
		}
		var ys []float64
		for _, c := range cum {
			_, y, _ := strings.Cut(c, ",")
			v, err := strconv.ParseFloat(y, 64)
			if err != nil {
				t.Fatal(err)
			}
			ys = append(ys, v)
		}
		if !slices.IsSorted(ys) {
			t.Errorf("%d sites: the cumulative share falls: %v", n, cum)
		}
		for _, p := range d.Problems() {
			t.Errorf("%d sites: %s", n, p)
		}
	}
}
