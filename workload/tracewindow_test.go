package workload

import (
	"math"
	"slices"
	"testing"
)

// SpreadBusy clips to the bins and adds each bin's overlap, whatever the
// interval: empty, reversed, outside, on the edges, or bins of no width.
func TestSpreadBusy(t *testing.T) {
	for _, c := range []struct {
		name       string
		bins       int
		w, s, e, p float64
		want       []float64
	}{
		{"inside one bin", 3, 10, 2, 7, 2, []float64{10, 0, 0}},
		{"across bins", 3, 10, 5, 25, 1, []float64{5, 10, 5}},
		{"clipped both sides", 2, 10, -5, 100, 3, []float64{30, 30}},
		{"on an edge", 2, 10, 10, 20, 1, []float64{0, 10}},
		{"empty interval", 2, 10, 5, 5, 1, []float64{0, 0}},
		{"reversed", 2, 10, 8, 3, 1, []float64{0, 0}},
		{"before the window", 2, 10, -9, -1, 1, []float64{0, 0}},
		{"after the window", 2, 10, 20, 30, 1, []float64{0, 0}},
		{"bins of no width", 2, 0, 0, 5, 1, []float64{0, 0}},
		{"bins of NaN width", 2, math.NaN(), 0, 5, 1, []float64{0, 0}},
		{"no bins", 0, 10, 0, 5, 1, []float64{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := make([]float64, c.bins)
			SpreadBusy(got, c.w, c.s, c.e, c.p)
			if !slices.Equal(got, c.want) {
				t.Errorf("SpreadBusy(w %g, [%g, %g), %g) = %v, want %v", c.w, c.s, c.e, c.p, got, c.want)
			}
		})
	}
}
