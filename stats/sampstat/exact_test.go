package sampstat

import (
	"math"
	"testing"
)

// Fisher's exact test, checked against tables whose p-values are known in
// closed form: the lady tasting tea (3 of 4 right against 1 of 4: 17/70,
// R's fisher.test(matrix(c(3,1,1,3), 2), alternative = "greater")), every
// success lost on 5 jobs (1/C(10,5) = 1/252), nothing changed, and
// degenerate samples.
func TestFisherLess(t *testing.T) {
	for _, c := range []struct {
		name           string
		kx, nx, ky, ny int
		p, minP        float64
	}{
		{"tea", 3, 4, 1, 4, 17.0 / 70, 1.0 / 70},
		{"5 of 5 to 0 of 5", 5, 5, 0, 5, 1.0 / 252, 1.0 / 252},
		{"5 of 5 to 5 of 5", 5, 5, 5, 5, 1, 1},
		{"0 of 5 to 0 of 5", 0, 5, 0, 5, 1, 1},
		{"better, not worse", 0, 5, 5, 5, 1, 1.0 / 252},
		{"1 job each", 1, 1, 0, 1, 0.5, 0.5},
		{"an empty side", 3, 3, 0, 0, 1, 1},
		{"counts out of range", 4, 3, 0, 3, 1, 1},
		// 9 of 10 to 4 of 10: Σ over x ≤ 4 of C(13,x)C(7,10−x)/C(20,10).
		{"9 of 10 to 4 of 10", 9, 10, 4, 10, (0 + 0 + 0 + 286*1.0 + 715*7.0) / 184756, 286.0 / 184756},
	} {
		got := FisherLess(c.kx, c.nx, c.ky, c.ny)
		if math.Abs(got.P-c.p) > 1e-9 || math.Abs(got.MinP-c.minP) > 1e-9 {
			t.Errorf("%s: p %.6g (min %.6g), want %.6g (min %.6g)", c.name, got.P, got.MinP, c.p, c.minP)
		}
	}
}

// The permutation test of the means: every split of small samples, drawn
// splits of large ones.
func TestPermutationGreater(t *testing.T) {
	for _, c := range []struct {
		name    string
		x, y    []float64
		p, minP float64
	}{
		{"y above x", []float64{1, 2, 3}, []float64{4, 5, 6}, 1.0 / 20, 1.0 / 20},
		{"y below x", []float64{4, 5, 6}, []float64{1, 2, 3}, 1, 1.0 / 20},
		{"every value equal", []float64{2, 2, 2}, []float64{2, 2}, 1, 1},
		// {1,2} against {3}: the splits put 1, 2 or 3 in y, and only 3 is as large.
		{"one value", []float64{1, 2}, []float64{3}, 1.0 / 3, 1.0 / 3},
		{"ties at the top", []float64{1, 5}, []float64{5}, 2.0 / 3, 2.0 / 3},
		{"an empty side", nil, []float64{1}, 1, 1},
	} {
		got := PermutationGreater(c.x, c.y, 1)
		if math.Abs(got.P-c.p) > 1e-9 || math.Abs(got.MinP-c.minP) > 1e-9 {
			t.Errorf("%s: p %.6g (min %.6g), want %.6g (min %.6g)", c.name, got.P, got.MinP, c.p, c.minP)
		}
	}
	// 1,000 values against 3 far above them: C(1003, 3) splits, drawn.
	x := make([]float64, 1000)
	for i := range x {
		x[i] = float64(i % 10)
	}
	got := PermutationGreater(x, []float64{100, 100, 100}, 1)
	if want := 1.0 / (permutationDraws + 1); got.P != want || got.MinP != want {
		t.Errorf("drawn splits: %+v, want p = min p = %g", got, want)
	}
	// 5, 6, 7 among a hundred each of 0…9: exactly 0.22033 of the splits
	// give y a sum of 18 or more (counted by the values' multiplicities);
	// 20,000 draws are within 0.006 of it (2 standard errors).
	if again := PermutationGreater(x, []float64{5, 6, 7}, 1); again != PermutationGreater(x, []float64{5, 6, 7}, 1) || math.Abs(again.P-0.22033) > 0.006 {
		t.Errorf("drawn splits of 5, 6, 7 among 0…9: %+v (seeded), want p near 0.22033", again)
	}
}
