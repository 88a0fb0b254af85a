package gwa

import "testing"

// The cumulative jobs start at 0 at the trace's start and reach the total
// at the last day's end.
func TestCumulativeStartsAtZero(t *testing.T) {
	for _, c := range []struct {
		perDay []int64
		wantY  []float64
	}{
		{nil, nil},
		{[]int64{0}, []float64{0, 0}},
		{[]int64{14000}, []float64{0, 14000}},
		{[]int64{14000, 0, 3}, []float64{0, 14000, 14000, 14003}},
	} {
		xy := cumulative(c.perDay)
		if len(xy) != len(c.wantY) {
			t.Fatalf("%v: %d points, want %d", c.perDay, len(xy), len(c.wantY))
		}
		for i, p := range xy {
			if p.X != float64(i) || p.Y != c.wantY[i] {
				t.Errorf("%v: point %d is (%g, %g), want (%d, %g)", c.perDay, i, p.X, p.Y, i, c.wantY[i])
			}
		}
	}
}
