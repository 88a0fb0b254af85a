package stats

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mathext"
)

// Mixtures: the hyper-exponential with 2 or 3 branches and the hyper-gamma
// with 2, fitted by expectation–maximisation (EM), then polished by a
// quasi-Newton (BFGS) ascent of the same likelihood.
//
// Data. Above emExactMax values, EM runs on the values binned on the log
// scale (bins of relative width 1%), each bin standing for its values by
// its count, their mean and the mean of their logarithms. Both mixture
// densities are exponential families in (x, ln x), so the binned E-step only
// misses the curvature of the responsibilities within a bin: a relative
// error of order (0.01)²/24 in each point's log-likelihood, far below
// the sampling error of the estimates (1/√n = 1e-3 at n = 10^6). The reported
// log-likelihood is computed exactly on every value.
//
// Initialisation (deterministic). The sorted values are split at fixed
// quantiles into one group per branch, and each branch starts as the fit of
// its group (rate 1/mean; gamma by its MLE) with the group's share as its
// probability. Several splits are tried (emSplits); each runs emProbe EM
// iterations and the one with the highest likelihood goes on.
//
// Stopping rule. EM stops when an iteration improves the log-likelihood by
// less than 1e-10·(1+|ℓ|) (EM never decreases it) or after emMaxIter
// iterations; BFGS then runs on the unconstrained parameters (softmax
// weights, log rates, log shapes and scales) until the gradient's largest
// component is below 1e-8·n, its gains fall below 1e-10·(1+|ℓ|), or after
// 300 iterations, and its result is kept only if it improves the likelihood.
// A fit has converged when EM or BFGS met its criterion. Branches are
// reported in increasing order of their means.
//
// Censoring: a censored value's responsibilities use the branches' survival
// functions. For the hyper-exponential memorylessness makes the M-step
// exact: rate_i = Σ_unc r_ij / (Σ_unc r_ij x_j + Σ_cens r_ij c). For the
// hyper-gamma the M-step uses the expected sufficient statistics of the
// censored values beyond c, E[X | X > c] = kθ Q(k+1, c/θ)/Q(k, c/θ) and
// E[ln X | X > c] = ln θ + ψ(k) + ∂/∂k ln Q(k, c/θ) (the derivative by central
// differences), and BFGS a finite-difference gradient.

const (
	emExactMax = 5000
	emBinWidth = 0.01
	emProbe    = 30
	emMaxIter  = 200
)

// binned is the data as weighted points.
type binned struct {
	w, x, lx []float64
	total    float64 // Σw
}

// points returns the sample as weighted points, binned when large.
func (s *sample) points() *binned {
	s.binsOnce.Do(func() {
		b := &binned{}
		if len(s.y) <= emExactMax {
			for i, y := range s.y {
				b.w = append(b.w, 1)
				b.x = append(b.x, y)
				b.lx = append(b.lx, s.lny[i])
			}
		} else {
			for i := 0; i < len(s.y); {
				key := math.Floor(s.lny[i] / emBinWidth)
				var n, sx, slx float64
				j := i
				for ; j < len(s.y) && math.Floor(s.lny[j]/emBinWidth) == key; j++ {
					n++
					sx += s.y[j]
					slx += s.lny[j]
				}
				b.w = append(b.w, n)
				b.x = append(b.x, sx/n)
				b.lx = append(b.lx, slx/n)
				i = j
			}
		}
		for _, w := range b.w {
			b.total += w
		}
		s.bins = b
	})
	return s.bins
}

// quantileGroups splits the points at the given cumulative-weight fractions
// and returns each group's weight, Σw·x and Σw·ln x.
func quantileGroups(b *binned, splits []float64) (w, sx, slx []float64) {
	k := len(splits) + 1
	w, sx, slx = make([]float64, k), make([]float64, k), make([]float64, k)
	g := 0
	cum := 0.0
	for j := range b.w {
		for g < len(splits) && cum >= splits[g]*b.total {
			g++
		}
		w[g] += b.w[j]
		sx[g] += b.w[j] * b.x[j]
		slx[g] += b.w[j] * b.lx[j]
		cum += b.w[j]
	}
	return
}

var emSplits = map[int][][]float64{
	2: {{0.5}, {0.9}, {0.2}},
	3: {{1.0 / 3, 2.0 / 3}, {0.5, 0.9}, {0.2, 0.8}},
}

// logSumExp of v.
func logSumExp(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	if math.IsInf(m, -1) {
		return m
	}
	s := 0.0
	for _, x := range v {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

// hyperExp is a hyper-exponential in the making.
type hyperExp struct {
	p, rate []float64
}

// loglik is the log-likelihood of the points and the censored values; with
// acc it also accumulates the E-step sums: responsibility mass (all and
// uncensored) and exposure per branch.
func (h *hyperExp) loglik(b *binned, m int, c float64, acc *[3][]float64) float64 {
	k := len(h.p)
	var lp, l [3]float64
	for i := 0; i < k; i++ {
		lp[i] = math.Log(h.p[i]) + math.Log(h.rate[i])
	}
	ll := 0.0
	r := responsibilities(acc)
	for j, x := range b.x {
		for i := 0; i < k; i++ {
			l[i] = lp[i] - h.rate[i]*x
		}
		ll += mixtureTerm(&l, k, b.weight(j), r)
		for i := 0; r != nil && i < k; i++ {
			acc[0][i] += r[i]
			acc[1][i] += r[i]
			acc[2][i] += r[i] * x
		}
	}
	if m > 0 {
		for i := 0; i < k; i++ {
			l[i] = math.Log(h.p[i]) - h.rate[i]*c
		}
		ll += mixtureTerm(&l, k, float64(m), r)
		for i := 0; r != nil && i < k; i++ {
			acc[0][i] += r[i]
			acc[2][i] += r[i] * c
		}
	}
	return ll
}

// mixtureTerm is w·ln Σ_i exp(l[i]) over a k-branch mixture's log terms at
// one point (or at the censoring value, with w the number censored); with r
// it also gives each branch's responsibility mass, w·exp(l[i])/Σ exp(l).
func mixtureTerm(l *[3]float64, k int, w float64, r *[3]float64) float64 {
	lse := logSumExpK(l, k)
	if r != nil {
		for i := 0; i < k; i++ {
			r[i] = w * math.Exp(l[i]-lse)
		}
	}
	return w * lse
}

// responsibilities is the buffer of mixtureTerm's responsibilities when
// the E-step sums are wanted (acc), nil when only the likelihood is.
func responsibilities(acc *[3][]float64) *[3]float64 {
	if acc == nil {
		return nil
	}
	return new([3]float64)
}

// weight is point j's weight (1 when the sample is not binned).
func (b *binned) weight(j int) float64 {
	if b.w == nil {
		return 1
	}
	return b.w[j]
}

// emSums is the E-step's sums per branch, three of them (which three is
// the family's: see its loglik).
func emSums(k int) *[3][]float64 {
	return &[3][]float64{make([]float64, k), make([]float64, k), make([]float64, k)}
}

// polishEM polishes an EM fit by BFGS (see polish) on the parameter vector
// x0 of h, with f the negated log-likelihood of a vector, and returns the
// better of the two with the iteration count and convergence added to.
func polishEM[T any](h T, unpack func([]float64) T, f func([]float64) float64, grad func(g, x []float64), x0 []float64, n float64, it *int, conv *bool) T {
	x, ok, pr := polish(f, grad, x0, n)
	if ok {
		h = unpack(x)
	}
	*it += pr.iterations
	*conv = *conv || pr.converged
	return h
}

// logSumExpK is ln Σ exp(l[i]) over the first k entries.
func logSumExpK(l *[3]float64, k int) float64 {
	m := l[0]
	for i := 1; i < k; i++ {
		if l[i] > m {
			m = l[i]
		}
	}
	if math.IsInf(m, -1) {
		return m
	}
	s := 0.0
	for i := 0; i < k; i++ {
		s += math.Exp(l[i] - m)
	}
	return m + math.Log(s)
}

// step is one EM iteration; it returns the log-likelihood before it.
func (h *hyperExp) step(b *binned, m int, c float64) float64 {
	k := len(h.p)
	acc := emSums(k)
	ll := h.loglik(b, m, c, acc)
	n := b.total + float64(m)
	for i := 0; i < k; i++ {
		if acc[0][i] <= 0 || acc[1][i] <= 0 || acc[2][i] <= 0 {
			continue // a dead branch keeps its rate
		}
		h.p[i] = acc[0][i] / n
		h.rate[i] = acc[1][i] / acc[2][i]
	}
	return ll
}

func fitHyperExp(s *sample, k int) (fitResult, error) {
	b := s.points()
	// Each branch starts as the exponential of its group: rate 1/mean.
	h, err := bestStart(s, b, k, func(w, sx, _ []float64) (*hyperExp, bool) {
		h := &hyperExp{p: make([]float64, k), rate: make([]float64, k)}
		for i := range w {
			if w[i] == 0 || sx[i] <= 0 {
				return nil, false
			}
			h.p[i] = w[i] / b.total
			h.rate[i] = w[i] / sx[i]
		}
		return h, true
	})
	if err != nil {
		return fitResult{}, err
	}
	it, conv := emRun(func() float64 { return h.step(b, s.m, s.c) })
	// Polish: BFGS on θ = (a_1..a_{k−1}, ln rate_1..k), p = softmax(a, 0).
	unpack := func(x []float64) *hyperExp {
		return &hyperExp{p: softmax(x[:k-1]), rate: expAll(x[k-1:])}
	}
	x0 := append(logRatios(h.p), logAll(h.rate)...)
	f := func(x []float64) float64 { return -unpack(x).loglik(b, s.m, s.c, nil) }
	grad := func(g, x []float64) {
		u := unpack(x)
		acc := emSums(k)
		u.loglik(b, s.m, s.c, acc)
		n := b.total + float64(s.m)
		for i := 0; i < k-1; i++ {
			g[i] = -(acc[0][i] - n*u.p[i])
		}
		for i := 0; i < k; i++ {
			// ∂ℓ/∂ln r_i = Σ_unc r_ij (1 − r_i x_j) − Σ_cens r_ij r_i c
			g[k-1+i] = -(acc[1][i] - u.rate[i]*acc[2][i])
		}
	}
	h = polishEM(h, unpack, f, grad, x0, b.total+float64(s.m), &it, &conv)
	order := sortedOrder(k, func(i int) float64 { return 1 / h.rate[i] })
	params := make([]float64, 0, 2*k)
	var p, r []float64
	for _, i := range order {
		p = append(p, h.p[i])
		r = append(r, h.rate[i])
	}
	if k == 2 {
		params = append(params, p[0])
	} else {
		params = append(params, p...)
	}
	params = append(params, r...)
	exact := &hyperExp{p: p, rate: r}
	logL := exact.loglik(&binned{x: s.y}, s.m, s.c, nil)
	// Standard errors in the free parameters (p_1..p_{k−1}, rates); the last
	// probability's follows by the delta method.
	free := append(append([]float64(nil), p[:k-1]...), r...)
	ll := func(x []float64) float64 {
		pp := append(append([]float64(nil), x[:k-1]...), 1-sum(x[:k-1]))
		for _, v := range pp {
			if v <= 0 {
				return math.Inf(-1)
			}
		}
		return (&hyperExp{p: pp, rate: x[k-1:]}).loglik(b, s.m, s.c, nil)
	}
	seFree, cov := numericCov(ll, free)
	var se []float64
	if k == 2 {
		se = append(se, seFree[0])
	} else {
		se = append(se, seFree[:k-1]...)
		se = append(se, lastWeightSE(cov, k-1))
	}
	se = append(se, seFree[k-1:]...)
	return fitResult{params: params, stderr: se, logL: logL, iterations: it, converged: conv}, nil
}

// emMixture is a mixture in the making, as EM sees it.
type emMixture interface {
	step(b *binned, m int, c float64) float64
	loglik(b *binned, m int, c float64, acc *[3][]float64) float64
}

// bestStart tries the starts of emSplits[k]: start makes one from the
// groups of a split (their weights, Σw·x and Σw·ln x), or reports that a
// group cannot start a branch. Each start runs emProbe EM iterations; the
// most likely goes on.
func bestStart[M emMixture](s *sample, b *binned, k int, start func(w, sx, slx []float64) (M, bool)) (M, error) {
	var best M
	found, bestLL := false, math.Inf(-1)
	for _, split := range emSplits[k] {
		h, ok := start(quantileGroups(b, split))
		if !ok {
			continue
		}
		for it := 0; it < emProbe; it++ {
			h.step(b, s.m, s.c)
		}
		if ll := h.loglik(b, s.m, s.c, nil); ll > bestLL {
			best, bestLL, found = h, ll, true
		}
	}
	if !found {
		return best, fmt.Errorf("too few distinct values for %d branches", k)
	}
	return best, nil
}

// emRun iterates step until the log-likelihood gain falls below the
// tolerance, and returns the iterations and whether it converged.
func emRun(step func() float64) (int, bool) {
	prev := math.Inf(-1)
	for it := 1; it <= emMaxIter; it++ {
		ll := step()
		if ll-prev <= 1e-10*(1+math.Abs(ll)) {
			return it, true
		}
		prev = ll
	}
	return emMaxIter, false
}

// polish maximises by BFGS (f is the negated log-likelihood) and reports
// whether it found a better point.
func polish(f func([]float64) float64, grad func(g, x []float64), x0 []float64, n float64) ([]float64, bool, bfgsResult) {
	f0 := f(x0)
	res := bfgs(f, grad, x0, 1e-8*n, 300)
	if !(res.f < f0) || math.IsNaN(res.f) {
		return nil, false, res
	}
	for _, v := range res.x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false, res
		}
	}
	return res.x, true, res
}

func softmax(a []float64) []float64 {
	v := append(append([]float64(nil), a...), 0)
	lse := logSumExp(v)
	for i := range v {
		v[i] = math.Exp(v[i] - lse)
	}
	return v
}

// logRatios is the inverse of softmax: ln(p_i/p_k), i < k.
func logRatios(p []float64) []float64 {
	k := len(p)
	a := make([]float64, k-1)
	for i := range a {
		a[i] = math.Log(p[i] / p[k-1])
	}
	return a
}

func expAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Exp(x)
	}
	return out
}

func logAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Log(x)
	}
	return out
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

func sortedOrder(k int, key func(int) float64) []int {
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return key(idx[a]) < key(idx[b]) })
	return idx
}

// lastWeightSE is the standard error of 1 − Σ_{i<k} p_i given the
// covariance of the first k probabilities (the top-left k×k block).
func lastWeightSE(cov [][]float64, k int) float64 {
	if cov == nil {
		return math.NaN()
	}
	v := 0.0
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			v += cov[i][j]
		}
	}
	if v <= 0 {
		return math.NaN()
	}
	return math.Sqrt(v)
}

// hyperGammaFit is a hyper-gamma in the making.
type hyperGammaFit struct {
	p, shape, scale []float64
}

func (h *hyperGammaFit) loglik(b *binned, m int, c float64, acc *[3][]float64) float64 {
	k := len(h.p)
	var cst, l [3]float64
	for i := 0; i < k; i++ {
		lg, _ := math.Lgamma(h.shape[i])
		cst[i] = math.Log(h.p[i]) - lg - h.shape[i]*math.Log(h.scale[i])
	}
	ll := 0.0
	r := responsibilities(acc)
	for j, x := range b.x {
		for i := 0; i < k; i++ {
			l[i] = cst[i] + (h.shape[i]-1)*b.lx[j] - x/h.scale[i]
		}
		ll += mixtureTerm(&l, k, b.weight(j), r)
		for i := 0; r != nil && i < k; i++ {
			acc[0][i] += r[i]
			acc[1][i] += r[i] * x
			acc[2][i] += r[i] * b.lx[j]
		}
	}
	if m > 0 {
		// Censored values: the branches' survival functions, and for the
		// M-step the expected sufficient statistics beyond c,
		// E[X | X > c] = kθ Q(k+1, z)/Q(k, z) and
		// E[ln X | X > c] = ln θ + ψ(k) + ∂/∂k ln Q(k, z), z = c/θ.
		var lq [3]float64
		for i := 0; i < k; i++ {
			lq[i] = logGammaSurv(h.shape[i], c/h.scale[i])
			l[i] = math.Log(h.p[i]) + lq[i]
		}
		lse := logSumExpK(&l, k)
		ll += float64(m) * lse
		if acc != nil {
			for i := 0; i < k; i++ {
				r := float64(m) * math.Exp(l[i]-lse)
				ks, th := h.shape[i], h.scale[i]
				z := c / th
				ex := ks * th * math.Exp(logGammaSurv(ks+1, z)-lq[i])
				dk := 1e-6 * math.Max(ks, 1)
				dlq := (logGammaSurv(ks+dk, z) - logGammaSurv(ks-dk, z)) / (2 * dk)
				elx := math.Log(th) + mathext.Digamma(ks) + dlq
				acc[0][i] += r
				acc[1][i] += r * ex
				acc[2][i] += r * elx
			}
		}
	}
	return ll
}

// maxBranchShape caps a hyper-gamma branch's shape (a coefficient of
// variation of 1%): data recorded in whole seconds repeat values, and a
// branch collapsing onto one of them makes the likelihood unbounded. A fit
// that ends at the cap is reported as failed rather than as a spike.
const maxBranchShape = 1e4

func (h *hyperGammaFit) step(b *binned, m int, c float64) float64 {
	k := len(h.p)
	acc := emSums(k)
	ll := h.loglik(b, m, c, acc)
	n := b.total + float64(m)
	for i := 0; i < k; i++ {
		w := acc[0][i]
		if w <= 0 {
			continue
		}
		mean := acc[1][i] / w
		sv := math.Log(mean) - acc[2][i]/w
		if !(sv > 0) {
			continue
		}
		shape, _, _ := gammaShape(sv)
		shape = math.Min(shape, maxBranchShape)
		h.p[i] = w / n
		h.shape[i], h.scale[i] = shape, mean/shape
	}
	return ll
}

func fitHyperGamma(s *sample) (fitResult, error) {
	const k = 2
	b := s.points()
	// Each branch starts as the gamma MLE of its group.
	h, err := bestStart(s, b, k, func(w, sx, slx []float64) (*hyperGammaFit, bool) {
		h := &hyperGammaFit{p: make([]float64, k), shape: make([]float64, k), scale: make([]float64, k)}
		for i := range w {
			if w[i] == 0 {
				return nil, false
			}
			mean := sx[i] / w[i]
			sv := math.Log(mean) - slx[i]/w[i]
			if !(sv > 0) {
				return nil, false
			}
			shape, _, _ := gammaShape(sv)
			shape = math.Min(shape, maxBranchShape)
			h.p[i], h.shape[i], h.scale[i] = w[i]/b.total, shape, mean/shape
		}
		return h, true
	})
	if err != nil {
		return fitResult{}, err
	}
	it, conv := emRun(func() float64 { return h.step(b, s.m, s.c) })
	unpack := func(x []float64) *hyperGammaFit {
		return &hyperGammaFit{p: softmax(x[:k-1]), shape: expAll(x[k-1 : 2*k-1]), scale: expAll(x[2*k-1:])}
	}
	x0 := append(append(logRatios(h.p), logAll(h.shape)...), logAll(h.scale)...)
	f := func(x []float64) float64 {
		u := unpack(x)
		for _, v := range u.shape {
			if v > maxBranchShape {
				return math.Inf(1)
			}
		}
		return -u.loglik(b, s.m, s.c, nil)
	}
	grad := func(g, x []float64) {
		if s.m > 0 {
			// The survival terms have no closed-form derivative in the shape.
			fd.Gradient(g, f, x, &fd.Settings{Formula: fd.Central})
			return
		}
		u := unpack(x)
		acc := emSums(k)
		u.loglik(b, 0, 0, acc)
		for i := 0; i < k-1; i++ {
			g[i] = -(acc[0][i] - b.total*u.p[i])
		}
		for i := 0; i < k; i++ {
			ks, th := u.shape[i], u.scale[i]
			// ∂ℓ/∂ln k = k Σ r (ln x − ψ(k) − ln θ); ∂ℓ/∂ln θ = Σ r (x/θ − k)
			g[k-1+i] = -ks * (acc[2][i] - acc[0][i]*(mathext.Digamma(ks)+math.Log(th)))
			g[2*k-1+i] = -(acc[1][i]/th - ks*acc[0][i])
		}
	}
	h = polishEM(h, unpack, f, grad, x0, b.total+float64(s.m), &it, &conv)
	for _, v := range h.shape {
		if v >= 0.999*maxBranchShape {
			return fitResult{}, fmt.Errorf("a branch collapsed onto one repeated value (the data are discrete, e.g. whole seconds); raise the floor past such values or use another family")
		}
	}
	order := sortedOrder(k, func(i int) float64 { return h.shape[i] * h.scale[i] })
	i0, i1 := order[0], order[1]
	params := []float64{h.p[i0], h.shape[i0], h.scale[i0], h.shape[i1], h.scale[i1]}
	exact := &hyperGammaFit{p: []float64{h.p[i0], h.p[i1]}, shape: []float64{h.shape[i0], h.shape[i1]}, scale: []float64{h.scale[i0], h.scale[i1]}}
	logL := exact.loglik(&binned{x: s.y, lx: s.lny}, s.m, s.c, nil)
	ll := func(x []float64) float64 {
		if !(x[0] > 0 && x[0] < 1) {
			return math.Inf(-1)
		}
		return (&hyperGammaFit{p: []float64{x[0], 1 - x[0]}, shape: []float64{x[1], x[3]}, scale: []float64{x[2], x[4]}}).loglik(b, s.m, s.c, nil)
	}
	se, _ := numericCov(ll, params)
	return fitResult{params: params, stderr: se, logL: logL, iterations: it, converged: conv}, nil
}
