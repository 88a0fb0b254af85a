package stats

import (
	"math"
	"testing"
)

func TestKolmogorovQ(t *testing.T) {
	// 2 Σ (−1)^(k−1) exp(−2k²λ²), summed to 200 terms in float64.
	want := map[float64]float64{
		0.3: 0.9999906941986655, 0.5: 0.9639452436648751, 0.8: 0.5441424115741981,
		1.0: 0.26999967167735456, 1.17: 0.12939004218561884, 1.19: 0.11774229287977167,
		1.36: 0.049485876755377876, 1.628: 0.009975522431181053, 2.0: 0.0006709252557796953,
		3.0: 3.045995948942526e-08,
	}
	for l, q := range want {
		if got := KolmogorovQ(l); math.Abs(got-q) > 1e-12*math.Max(1, 1/q) {
			t.Errorf("Q(%g) = %.15g, want %.15g", l, got, q)
		}
	}
	if KolmogorovQ(0) != 1 || KolmogorovQ(-1) != 1 || KolmogorovQ(40) != 0 {
		t.Error("Q at the ends")
	}
	// The two series meet smoothly at 1.18.
	if a, b := KolmogorovQ(1.18-1e-9), KolmogorovQ(1.18+1e-9); math.Abs(a-b) > 1e-8 {
		t.Errorf("Q jumps at 1.18: %g vs %g", a, b)
	}
	if c := KSCritical(0.01, 1000); math.Abs(c-1.628/math.Sqrt(1000)) > 0.001 {
		t.Errorf("critical D at 1%% for n=1000 = %.4f, want about %.4f", c, 1.628/math.Sqrt(1000))
	}
}

// Under the null hypothesis the p-values are uniform: about 5% fall below
// 0.05.
func TestKSPValueIsUniformUnderTheNull(t *testing.T) {
	r := NewStream(1, 0, "ks-null")
	const reps, n = 2000, 200
	below5, below1 := 0, 0
	x := make([]float64, n)
	u := Uniform{0, 1}
	for k := 0; k < reps; k++ {
		for i := range x {
			x[i] = r.Float64()
		}
		sortFloats(x)
		p := KSPValue(KSStatistic(x, u.CDF), n)
		if p < 0.05 {
			below5++
		}
		if p < 0.01 {
			below1++
		}
	}
	if f := float64(below5) / reps; f < 0.035 || f > 0.065 {
		t.Errorf("%.3f of p-values below 0.05", f)
	}
	if f := float64(below1) / reps; f < 0.003 || f > 0.018 {
		t.Errorf("%.3f of p-values below 0.01", f)
	}
}

// adIntegral is n ∫_0^p (F_n − F)²/(F(1−F)) dF by Simpson's rule on each
// interval between the sorted uniform values u.
func adIntegral(u []float64, n int, p float64) float64 {
	g := func(c, x float64) float64 { return (c - x) * (c - x) / (x * (1 - x)) }
	total := 0.0
	prev := 0.0
	for i := 0; i <= len(u); i++ {
		next := p
		if i < len(u) {
			next = math.Min(u[i], p)
		}
		c := float64(i) / float64(n)
		const m = 4000
		h := (next - prev) / m
		s := 0.0
		for k := 0; k <= m; k++ {
			x := prev + float64(k)*h
			x = math.Min(math.Max(x, 1e-15), 1-1e-15)
			w := 2.0
			if k == 0 || k == m {
				w = 1
			} else if k%2 == 1 {
				w = 4
			}
			s += w * g(c, x)
		}
		total += s * h / 3
		prev = next
		if next >= p {
			break
		}
	}
	return float64(n) * total
}

func TestAndersonDarling(t *testing.T) {
	r := NewStream(2, 0, "ad")
	u := make([]float64, 40)
	for i := range u {
		u[i] = r.Float64()
	}
	sortFloats(u)
	uni := Uniform{0, 1}
	if got, want := ADStatistic(u, uni.CDF), adIntegral(u, len(u), 1); math.Abs(got-want) > 1e-4*want {
		t.Errorf("A² = %.6f, integral %.6f", got, want)
	}
	// The right-censored form (Pettitt–Stephens): the values above p = 0.7
	// are censored.
	p := 0.7
	var kept []float64
	for _, v := range u {
		if v < p {
			kept = append(kept, v)
		}
	}
	_, ad := gofSorted(uni, kept, nil, len(u)-len(kept), p)
	if want := adIntegral(kept, len(u), p); math.Abs(ad-want) > 1e-4*want {
		t.Errorf("censored A² = %.6f, integral %.6f", ad, want)
	}
	// Perfectly spread values have a small A²; far-off ones a large one.
	for i := range u {
		u[i] = (float64(i) + 0.5) / float64(len(u))
	}
	if a := ADStatistic(u, uni.CDF); a > 0.05 {
		t.Errorf("A² of evenly spread values = %g", a)
	}
	if a := ADStatistic(u, Uniform{0, 2}.CDF); a < 5 {
		t.Errorf("A² against the wrong distribution = %g", a)
	}
}

// The interpolated CDF of expensive families gives the exact D and A².
func TestGofInterpolationIsExact(t *testing.T) {
	for _, d := range []Distribution{Gamma{2.5, 3}, Gamma{0.6, 10}, HyperGamma{[]float64{0.78, 0.22}, []float64{4.2, 312}, []float64{0.94, 0.03}}} {
		x := draw(d, 200000, 3, "interp")
		sortFloats(x)
		d1, a1 := gofSorted(d, x, nil, 0, 0)
		var g gofAcc
		g.init(len(x), 0)
		for _, v := range x {
			f, s := cdfPair(d, v)
			g.add(f, s)
		}
		d2, a2 := g.result(0)
		if math.Abs(d1-d2) > 1e-9 || math.Abs(a1-a2) > 1e-6*math.Max(1, math.Abs(a2)) {
			t.Errorf("%v: interpolated D=%.12f A²=%.9f, exact D=%.12f A²=%.9f", d, d1, a1, d2, a2)
		}
	}
}
