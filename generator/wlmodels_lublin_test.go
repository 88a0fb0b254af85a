package generator

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// lfHourProfile is the share of arrivals in each hour of the day that the
// published Lublin–Feitelson generator (m_lublin99.c) gives a class, computed
// here from its formula with gonum's gamma, not from gmark's cycle: bucket i
// = 11…58 weighs gamcdf(i+0.5) − gamcdf(i−0.5) under gamma(ANum, BNum)
// (shape, scale) and is stored at slot (i − lag) mod 48, slot 0 being
// 00:00–00:30. The published lag is 1; lag 0 is the mapping gmark once
// had, 30 minutes late.
func lfHourProfile(p lfParams, lag int) [24]float64 {
	g := distuv.Gamma{Alpha: p.ANum, Beta: 1 / p.BNum}
	var h [24]float64
	total := 0.0
	for i := 11; i <= 58; i++ {
		w := g.CDF(float64(i)+0.5) - g.CDF(float64(i)-0.5)
		h[((i-lag)%48)/2] += w
		total += w
	}
	for k := range h {
		h[k] /= total
	}
	return h
}

// hourCounts counts a run's arrivals by hour of the day (the unit starts at
// midnight).
func hourCounts(t *testing.T, spec string, arrival string, n int, seed uint64) [24]float64 {
	t.Helper()
	var c [24]float64
	for _, j := range generate(t, modelSpec(t, n, "lublin", arrival, spec), seed) {
		c[int(math.Mod(j.Submit.Seconds(), daySeconds)/3600)]++
	}
	return c
}

// pearson is Σ (O − E)²/E of counts o against the shares p.
func pearson(o, p [24]float64) float64 {
	n := 0.0
	for _, v := range o {
		n += v
	}
	x := 0.0
	for h := range o {
		e := n * p[h]
		x += (o[h] - e) * (o[h] - e) / e
	}
	return x
}

// wl:lublin's arrivals per hour of the day follow the published daily cycle
// of each class. A chi-square test over the 24 hours (23 degrees of
// freedom, level 0.001, fixed seeds), two ways:
//
//   - poisson: the cycle's model clock driven by exponential inter-arrival
//     times (ArrivalTimeDistr=Exp, DailyCycle=true). The arrivals are then a
//     Poisson process whose rate follows the cycle, the hour counts given
//     their total are multinomial, and Pearson's X² is χ²(23).
//   - model: the class's own inter-arrival times, e^gamma(AArr·ARAR, BArr).
//     They are bursty (gaps from seconds to days), so hour counts are
//     overdispersed: X² of the right profile is several times 23. The
//     dispersion is estimated from independent replications (seeds 1…R) and
//     X²/23 divided by it is F(23, 23(R−1)) — the quasi-likelihood test.
//
// Each case must also reject the profile 30 minutes late (slot i mod 48),
// so the test has the power to tell the two mappings apart.
func TestLublinHourOfDayProfile(t *testing.T) {
	for _, c := range []struct {
		name, variant string
		p             lfParams
		arrival       string
		n, reps       int
	}{
		{"batch/poisson", "batch", lfBatch, "Exp(0.002)", 50000, 1},
		{"interactive/poisson", "interactive", lfInteractive, "Exp(0.002)", 50000, 1},
		{"typeless/poisson", "typeless", lfTypeless, "Exp(0.002)", 50000, 1},
		{"batch/model", "batch", lfBatch, "-", 20000, 10},
		{"interactive/model", "interactive", lfInteractive, "-", 20000, 10},
		{"typeless/model", "typeless", lfTypeless, "-", 20000, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := "Variant=" + c.variant
			if c.arrival != "-" {
				spec += ",DailyCycle=true"
			}
			var runs [][24]float64
			var pooled [24]float64
			for r := 0; r < c.reps; r++ {
				o := hourCounts(t, spec, c.arrival, c.n, uint64(r+1))
				runs = append(runs, o)
				for h := range o {
					pooled[h] += o[h]
				}
			}
			// The dispersion: 1 for the Poisson case, else the replications'
			// scatter around the pooled shares per degree of freedom.
			phi, df2 := 1.0, math.Inf(1)
			if c.reps > 1 {
				total := 0.0
				for _, v := range pooled {
					total += v
				}
				var shares [24]float64
				for h := range pooled {
					shares[h] = pooled[h] / total
				}
				s := 0.0
				for _, o := range runs {
					s += pearson(o, shares)
				}
				df2 = float64(23 * (c.reps - 1))
				phi = s / df2
			}
			crit := distuv.ChiSquared{K: 23}.Quantile(0.999) / 23
			if c.reps > 1 {
				crit = distuv.F{D1: 23, D2: df2}.Quantile(0.999)
			}
			got := pearson(pooled, lfHourProfile(c.p, 1)) / 23 / phi
			late := pearson(pooled, lfHourProfile(c.p, 0)) / 23 / phi
			t.Logf("dispersion %.2f; X²/23/dispersion: published profile %.2f, 30 min late %.2f; critical %.2f", phi, got, late, crit)
			if got > crit {
				t.Errorf("arrivals per hour differ from the published daily cycle: %.2f > %.2f (counts %v)", got, crit, pooled)
			}
			if late <= crit {
				t.Errorf("the test cannot tell the cycle 30 minutes late: %.2f ≤ %.2f", late, crit)
			}
		})
	}
}
