package core

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/workload"
)

// The setting of Ballier et al. (2006), §3.1, at reduced scale: 4
// clusters of 32 processors with FCFS local schedulers; local jobs per
// cluster with RSD sizes on [1, 32] (q = 0.9) and exponential run times of
// mean 100 s at a requested load U_l; global jobs of 2 to 4 components of
// one RSD size on [4, 32], exponential run times of mean 200 s, deadlines
// U[1 s, 3599 s] after their submission, Poisson arrivals at the rate of
// a requested global load U_g = λ_g·E[N_c]·E[S_g] / (μ_g·N·C).
type paperRun struct {
	ul, ug   float64 // requested local and global loads
	policy   string  // rpp, wait-X
	L        float64 // L_p
	priority string  // global or local
	jobs     int     // global jobs
	seed     uint64
	deadline [2]float64 // seconds; {1, 3599} unless given
}

// paperGrid is the paper's platform with its local workloads.
func paperGrid(t testing.TB, r paperRun) *grid.Grid {
	t.Helper()
	src := fmt.Sprintf("[scheduler]\nscan_interval = \"1h\"\nutilization_sample = \"24h\"\npolicy = \"WF\"\n"+
		"deadline_policy = %q\ndeadline_l = %g\ndeadline_priority = %q\nseed = %d\n", r.policy, r.L, r.priority, r.seed)
	for _, n := range []string{"c1", "c2", "c3", "c4"} {
		src += fmt.Sprintf("[[cluster]]\nname = %q\nprocessors = 32\n[cluster.local]\nload = %g\nsize = [1, 32]\nrsd_q = 0.9\nruntime = \"100s\"\n", n, r.ul)
	}
	g, err := grid.Parse("paper.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// paperArrivals draws the global jobs, from streams of their own (the same
// jobs for every policy of a seed).
func paperArrivals(r paperRun, start time.Time) []Arrival {
	const muG, N, C = 0.005, 32, 4
	meanSize := stats.RSDMean(4, 32, 0.9)
	lambda := r.ug * muG * N * C / (3 * meanSize)
	size, _ := stats.NewChoice(stats.RSDWeights(4, 32, 0.9))
	dl := r.deadline
	if dl == [2]float64{} {
		dl = [2]float64{1, 3599}
	}
	rArr := stats.NewStream(r.seed, 1, "paper001:arrivals")
	rJob := stats.NewStream(r.seed, 1, "paper001:jobs")
	var out []Arrival
	at := time.Duration(0)
	for i := range r.jobs {
		at += time.Duration(rArr.ExpFloat64() / lambda * 1e9).Round(time.Millisecond)
		n := 2 + rJob.IntN(3)
		s := 4 + size.Pick(rJob)
		rt := time.Duration(rJob.ExpFloat64() / muG * 1e9).Round(time.Millisecond)
		rel := time.Duration((dl[0] + (dl[1]-dl[0])*rJob.Float64()) * 1e9).Round(time.Millisecond)
		comps := make([]workload.Component, n)
		for k := range comps {
			comps[k] = workload.Component{Site: workload.AnySite, Count: s}
		}
		j := job(fmt.Sprintf("g%d", i), max(rt, time.Millisecond), false, comps...)
		j.Submit, j.Deadline = at, at+rel
		out = append(out, Arrival{At: start.Add(at), Job: j})
	}
	return out
}

// runPaper simulates one run: an hour of warm-up for the local workloads,
// then the global jobs; it measures from the first global arrival.
func runPaper(t testing.TB, r paperRun) (record.CoreDeadlines, *Core) {
	t.Helper()
	k, err := New(paperGrid(t, r), t0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := t0.Add(time.Hour)
	k.MeasureFrom(first)
	if errs := k.Simulate(paperArrivals(r, first), first.Add(30*24*time.Hour)); len(errs) > 0 {
		t.Fatal(errs[0])
	}
	return k.Deadlines(), k
}

// paperSeeds is the number of seeds each point is averaged over, and
// paperJobs the global jobs of a run (about 20 simulated hours at U_g =
// 20%).
const (
	paperSeeds = 5
	paperJobs  = 300
)

// point is the means over the seeds of one setting.
type point struct {
	success, response, kill, wasted, lead float64
}

// measure averages a setting over paperSeeds seeds. lead is the mean time
// from placement to start of the jobs placed at their first try.
func measure(t testing.TB, r paperRun) point {
	var p point
	for s := range paperSeeds {
		r.seed = uint64(s + 1)
		d, k := runPaper(t, r)
		p.success += d.GlobalSuccess / paperSeeds
		p.response += d.LocalResponseS / paperSeeds
		p.kill += d.LocalKillRate / paperSeeds
		p.wasted += d.WastedUtil / paperSeeds
		lead, n := 0.0, 0
		for _, j := range k.Jobs() {
			if j.PlacementTries == 1 && j.Placements == 1 && !j.Start.IsZero() {
				lead += j.Start.Sub(j.JPT).Seconds()
				n++
			}
		}
		if n > 0 {
			p.lead += lead / float64(n) / paperSeeds
		}
	}
	return p
}

var waitPolicies = []string{"wait-0", "wait-10", "wait-100", "wait-1000", "rpp"}

// V3: under pure RPP the global success rate does not
// rise as L_p falls; the best L_p is near 1 (Fig. 2, U_l = 30%).
func TestPaper001PureRPPLateIsBest(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 60 runs")
	}
	Ls := []float64{0.1, 0.3, 0.5, 0.7, 0.9, 1}
	for _, ug := range []float64{0.2, 0.4} {
		var succ []float64
		for _, L := range Ls {
			succ = append(succ, measure(t, paperRun{ul: 0.3, ug: ug, policy: "rpp", L: L, priority: "global", jobs: paperJobs}).success)
		}
		t.Logf("U_g = %.0f%%: success by L_p %v: %.3f", 100*ug, Ls, succ)
		best := 0
		for i := range succ {
			if succ[i] > succ[best] {
				best = i
			}
			if i > 0 && succ[i] < succ[i-1]-0.01 {
				t.Errorf("U_g %g: success falls from %.3f to %.3f as L_p rises from %g to %g", ug, succ[i-1], succ[i], Ls[i-1], Ls[i])
			}
		}
		if Ls[best] < 0.9 || succ[0] >= succ[len(succ)-1] {
			t.Errorf("U_g %g: best L_p %g (want >= 0.9); success at 0.1 %.3f, at 1 %.3f", ug, Ls[best], succ[0], succ[len(succ)-1])
		}
	}
}

// V5, V6 (second half), V8 and V10 (Figs. 4, 8; L_p = 0.7, U_l = 30%),
// under the default readings (gp_kill = "every-try", waitx_first_try =
// "skip"; docs/deadlines.md): Wait-0 ≈ Wait-10 ≈ Wait-100 > Wait-1000,
// Wait-∞ in global success under GP and LP; Wait-10 at least as good as
// pure RPP at both global loads and both priorities; the local response
// time worst for pure RPP; the wasted processor time falling with X, and
// the idle lead of a job placed at its first try the arithmetic of the
// skip reading: for a deadline G ~ U[1, 3599] s after the submission, the
// first gap 0.3^k·G not above X (0.3·G when G ≤ X): 540 s, 486.3 s,
// 62.65 s, 6.08 s, 0 for Wait-∞, -1000, -100, -10, -0 (under "restart",
// 0.3·X: 258 s, 29.6 s, 3 s).
func TestPaper001WaitX(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 100 runs")
	}
	wantLead := map[string]float64{"wait-0": 0, "wait-10": 6.08, "wait-100": 62.65, "wait-1000": 486.25, "rpp": 540}
	for _, ug := range []float64{0.2, 0.4} {
		for _, pr := range []string{"global", "local"} {
			m := map[string]point{}
			for _, pol := range waitPolicies {
				m[pol] = measure(t, paperRun{ul: 0.3, ug: ug, policy: pol, L: 0.7, priority: pr, jobs: paperJobs})
				p := m[pol]
				t.Logf("U_g %.0f%% %s %-9s success %.3f  local response %6.1f s  kill %.4f  wasted %.4f  lead %6.1f s (arithmetic %g)",
					100*ug, pr, pol, p.success, p.response, p.kill, p.wasted, p.lead, wantLead[pol])
			}
			short := []float64{m["wait-0"].success, m["wait-10"].success, m["wait-100"].success}
			lo, hi := short[0], short[0]
			for _, v := range short {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			long := math.Max(m["wait-1000"].success, m["rpp"].success)
			switch {
			case hi-lo > 0.03:
				t.Errorf("U_g %g %s: Wait-0/10/100 differ by %.3f in success, want about the same", ug, pr, hi-lo)
			case lo <= long:
				t.Errorf("U_g %g %s: Wait-0/10/100 (lowest %.3f) not above Wait-1000, Wait-inf (%.3f)", ug, pr, lo, long)
			}
			if m["wait-10"].success < m["rpp"].success {
				t.Errorf("U_g %g %s: Wait-10 %.3f below pure RPP %.3f", ug, pr, m["wait-10"].success, m["rpp"].success)
			}
			for i, pol := range waitPolicies {
				if pol != "rpp" && m[pol].response >= m["rpp"].response {
					t.Errorf("U_g %g %s: local response under %s %.1f s, not below pure RPP's %.1f s", ug, pr, pol, m[pol].response, m["rpp"].response)
				}
				if i > 0 && m[pol].wasted <= m[waitPolicies[i-1]].wasted {
					t.Errorf("U_g %g %s: wasted %.4f under %s, not above %.4f under %s", ug, pr, m[pol].wasted, pol, m[waitPolicies[i-1]].wasted, waitPolicies[i-1])
				}
				if d := math.Abs(m[pol].lead - wantLead[pol]); d > 0.1*wantLead[pol]+0.01 {
					t.Errorf("U_g %g %s %s: idle lead %.2f s, the arithmetic %g s", ug, pr, pol, m[pol].lead, wantLead[pol])
				}
			}
			if m["wait-0"].wasted != 0 {
				t.Errorf("Wait-0 wasted %g, want none", m["wait-0"].wasted)
			}
		}
	}
}

// V6 (first half) (Fig. 5): with one deadline for every
// job, Wait-10's success does not depend on it; pure RPP's falls as it
// grows (it claims earlier).
func TestPaper001DeadlineSensitivity(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 40 runs")
	}
	var w10, rpp []float64
	deadlines := []float64{10, 100, 1000, 3600}
	for _, dl := range deadlines {
		r := paperRun{ul: 0.3, ug: 0.2, L: 0.7, priority: "global", jobs: paperJobs, deadline: [2]float64{dl, dl}}
		r.policy = "wait-10"
		w10 = append(w10, measure(t, r).success)
		r.policy = "rpp"
		rpp = append(rpp, measure(t, r).success)
	}
	t.Logf("deadlines %v s: Wait-10 success %.3f, pure RPP %.3f", deadlines, w10, rpp)
	lo, hi := w10[0], w10[0]
	for _, v := range w10 {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if hi-lo > 0.02 {
		t.Errorf("Wait-10's success moves by %.3f with the deadline, want flat", hi-lo)
	}
	if rpp[len(rpp)-1] > rpp[0]-0.05 {
		t.Errorf("pure RPP: success %.3f at a 3600 s deadline, %.3f at 10 s; want clearly lower", rpp[len(rpp)-1], rpp[0])
	}
}

// V4 and V7. V4 (Fig. 3): at U_l = 60% and U_g = 40% the success of pure
// RPP drops a little as L_p nears 1; gmark's rises to L_p = 0.95 and no
// further (checked: within 0.01 of 0.95's at 1; over five seeds a drop of
// 0.004 under gp_kill = "at-deadline", a rise of 0.002 under "every-try").
// V7 (Fig. 7,
// GP, U_g = 20%): the paper finds Wait-10 and pure RPP about the same as
// the local load varies; gmark finds Wait-10 ahead at every local load
// (checked: at least as good), by 5 to 8 points (docs/deadlines.md).
func TestPaper001HighLoadAndLocalLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 65 runs")
	}
	Ls := []float64{0.5, 0.7, 0.9, 0.95, 1}
	var succ []float64
	for _, L := range Ls {
		succ = append(succ, measure(t, paperRun{ul: 0.6, ug: 0.4, policy: "rpp", L: L, priority: "global", jobs: paperJobs}).success)
	}
	t.Logf("V4: U_l 60%%, U_g 40%%, pure RPP, success by L_p %v: %.3f", Ls, succ)
	if n := len(succ); succ[n-1] > succ[n-2]+0.01 || succ[n-2] <= succ[0] {
		t.Errorf("V4: success %.3f at L_p 1, %.3f at 0.95, %.3f at 0.5", succ[n-1], succ[n-2], succ[0])
	}
	for _, ul := range []float64{0.1, 0.3, 0.5, 0.7} {
		r := paperRun{ul: ul, ug: 0.2, L: 0.7, priority: "global", jobs: paperJobs, policy: "wait-10"}
		w10 := measure(t, r).success
		r.policy = "rpp"
		rpp := measure(t, r).success
		t.Logf("V7: U_l %.0f%%: Wait-10 %.3f, pure RPP %.3f", 100*ul, w10, rpp)
		if w10 < rpp {
			t.Errorf("V7: U_l %g: Wait-10 %.3f below pure RPP %.3f", ul, w10, rpp)
		}
	}
}
