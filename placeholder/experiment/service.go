package experiment

import (
	"math"
	"math/rand/v2"
)

// checkJobs fills units from jobs: that many jobs of one unit each.
func (sp *Spec) checkJobs() error {
	switch {
	case sp.Jobs == 0:
		return nil
	case sp.Jobs < 0 || sp.Jobs > MaxJobs:
		return failf("jobs", -1, "jobs %d must be from 1 to %d", sp.Jobs, MaxJobs)
	case sp.jobsFilled:
		return nil
	case len(sp.Units) > 0:
		return failf("jobs", -1, "jobs and units both given: units lists the jobs, jobs = N is N jobs of one unit")
	}
	sp.Units = make([]float64, sp.Jobs)
	for k := range sp.Units {
		sp.Units[k] = 1
	}
	sp.jobsFilled = true
	return nil
}

// checkService reads a site's mean and sigma: with a mean, its rate is
// 1/mean units/s and each execution draws its length.
func (s *Site) checkService(i int) error {
	if s.Mean == 0 && s.Sigma == 0 {
		return nil
	}
	if !positive(s.Mean) || !(s.Sigma >= 0) || s.Sigma > 1e12 {
		key := "mean"
		if s.Mean == 0 {
			key = "sigma"
		}
		return failf(key, i, "site %s: mean %v and sigma %v must be a positive mean and a standard deviation from 0, in seconds per unit", s.Name, s.Mean, s.Sigma)
	}
	if s.Rate != 0 && !s.fromMean {
		return failf("rate", i, "site %s: rate and mean both given: the mean's rate is 1/mean", s.Name)
	}
	s.Rate, s.fromMean = 1/s.Mean, true
	return nil
}

// serviceRNG is the stream of site i's service-time draws, apart from its
// loss draws.
func serviceRNG(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 1<<32|uint64(i)))
}

// factor is the length of one execution at site i over its mean: 1, or,
// for a site with a sigma, a lognormal draw of mean 1 and coefficient of
// variation sigma/mean (the thesis gives only the mean and σ of each
// site's run times; the distribution is ours).
func (s *sim) factor(i int) float64 {
	st := &s.sp.Sites[i]
	if st.Sigma == 0 {
		return 1
	}
	cv := st.Sigma / st.Mean
	sl := math.Sqrt(math.Log1p(cv * cv))
	return math.Exp(-sl*sl/2 + sl*s.svc[i].NormFloat64())
}

// WindowSite is a site's share of the hourly table's window (CISS-1's
// Table 5.5): job-equivalents done in it (partial jobs counted
// proportionally), placeholder-seconds spent running jobs in it, and their
// mean per job.
type WindowSite struct {
	Site  string  `json:"site"`
	Jobs  float64 `json:"jobs"`
	Busy  float64 `json:"busy"`
	Mean  float64 `json:"mean"`
	Share float64 `json:"share"` // of all the window's job-equivalents
}

// windowSites is each site's share of the window [from, to).
func windowSites(sp *Spec, runs []JobRun, idx map[string]int, from, to float64) []WindowSite {
	out := make([]WindowSite, len(sp.Sites))
	total := 0.0
	for i, st := range sp.Sites {
		out[i].Site = st.Name
	}
	for _, jr := range runs {
		a, b := max(jr.Start, from), min(jr.End, to)
		if b <= a {
			continue
		}
		w := &out[idx[jr.Site]]
		frac := 1.0
		if d := jr.End - jr.Start; d > 0 {
			frac = (b - a) / d
		}
		w.Jobs += frac
		w.Busy += b - a
		total += frac
	}
	for i := range out {
		if out[i].Jobs > 0 {
			out[i].Mean = out[i].Busy / out[i].Jobs
		}
		if total > 0 {
			out[i].Share = out[i].Jobs / total
		}
	}
	return out
}
