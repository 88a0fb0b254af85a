package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
)

// The maximum-likelihood estimators of the single families. Notation: d
// uncensored values y_i, m values censored at c, n = d + m.
//
//	Exp      rate = d / (Σy + m·c)                          closed form
//	N        mean and √(Σ(y−ȳ)²/d) uncensored;              closed form
//	         BFGS on (μ, ln σ) with the survival term when censored
//	LogNorm  the normal of ln y                             as N
//	W        the profile equation of the shape, solved by safeguarded Newton;
//	         scale = (Σ_all y^k / d)^(1/k)                  censoring included
//	Gamma    ln k − ψ(k) = ln ȳ − mean(ln y) by Newton (trigamma derivative),
//	         scale = ȳ/k uncensored; BFGS on (ln k, ln θ) when censored
//	Pareto   xm = min y, alpha = d / (Σ ln(y/xm) + m ln(c/xm))   closed form

func fitExp(s *sample) (fitResult, error) {
	d := s.d()
	expo := s.sum + float64(s.m)*s.c
	if !(expo > 0) {
		return fitResult{}, fmt.Errorf("needs a positive total")
	}
	rate := d / expo
	return fitResult{params: []float64{rate}, stderr: []float64{rate / math.Sqrt(d)},
		logL: d*math.Log(rate) - rate*expo, converged: true}, nil
}

func fitNormal(s *sample) (fitResult, error) {
	return fitNormalOn(s.d(), s.mean, s.ss, s.m, s.c, 0)
}

func fitLogNormal(s *sample) (fitResult, error) {
	c := 0.0
	if s.m > 0 {
		c = math.Log(s.c)
	}
	// The log-normal density is the normal density of ln y times 1/y.
	return fitNormalOn(s.d(), s.lmean, s.lss, s.m, c, -s.lsum)
}

// fitNormalOn fits a normal to d values of mean `mean` and centred sum of
// squares ss, plus m values censored at c; jac is added to the
// log-likelihood (the Jacobian of a transform).
func fitNormalOn(d, mean, ss float64, m int, c, jac float64) (fitResult, error) {
	if !(ss > 0) {
		return fitResult{}, fmt.Errorf("the values have no spread")
	}
	const halfLog2Pi = 0.91893853320467274178
	sigma := math.Sqrt(ss / d)
	if m == 0 {
		return fitResult{params: []float64{mean, sigma},
			stderr:    []float64{sigma / math.Sqrt(d), sigma / math.Sqrt(2*d)},
			logL:      -d*(halfLog2Pi+0.5) - d*math.Log(sigma) + jac,
			converged: true}, nil
	}
	mf := float64(m)
	logL := func(mu, sig float64) float64 {
		q := ss + d*(mean-mu)*(mean-mu)
		return -d*halfLog2Pi - d*math.Log(sig) - q/(2*sig*sig) + mf*logNormSurv((c-mu)/sig) + jac
	}
	f := func(x []float64) float64 { return -logL(x[0], math.Exp(x[1])) }
	grad := func(g, x []float64) {
		mu, sig := x[0], math.Exp(x[1])
		z := (c - mu) / sig
		h := millsRatio(z)
		q := ss + d*(mean-mu)*(mean-mu)
		g[0] = -(d*(mean-mu)/(sig*sig) + mf*h/sig)
		g[1] = -(-d + q/(sig*sig) + mf*h*z)
	}
	// Start from the fit that takes the censored values as observed at c.
	n := d + mf
	m0 := (d*mean + mf*c) / n
	ss0 := ss + d*(mean-m0)*(mean-m0) + mf*(c-m0)*(c-m0)
	res := bfgs(f, grad, []float64{m0, math.Log(math.Sqrt(ss0 / n))}, 1e-9*n, 500)
	mu, sig := res.x[0], math.Exp(res.x[1])
	se := stdErrors(func(x []float64) float64 { return logL(x[0], x[1]) }, []float64{mu, sig})
	return fitResult{params: []float64{mu, sig}, stderr: se, logL: logL(mu, sig),
		iterations: res.iterations, converged: res.converged}, nil
}

// logNormSurv is ln(1 − Φ(z)), accurate far in the upper tail.
func logNormSurv(z float64) float64 {
	if z < 37 {
		return math.Log(0.5 * math.Erfc(z/math.Sqrt2))
	}
	// Asymptotic: φ(z)/z · (1 − 1/z² + 3/z⁴).
	return -z*z/2 - math.Log(z) - 0.91893853320467274178 + math.Log1p(-1/(z*z)+3/(z*z*z*z))
}

// millsRatio is φ(z)/(1 − Φ(z)).
func millsRatio(z float64) float64 {
	if z < 37 {
		return math.Exp(-z*z/2-0.91893853320467274178) / (0.5 * math.Erfc(z/math.Sqrt2))
	}
	return z + 1/z - 2/(z*z*z)
}

// fitWeibull solves the profile likelihood equation of the shape k,
//
//	g(k) = 1/k + (Σ_unc ln y)/d − Σ_all y^k ln y / Σ_all y^k = 0,
//
// where "all" includes the censored values at c. g is decreasing, so a
// Newton step that leaves the bracket known so far falls back to bisection.
// The sums are taken relative to the largest value (y/ymax ≤ 1), so y^k
// never overflows.
func fitWeibull(s *sample) (fitResult, error) {
	d := s.d()
	mf := float64(s.m)
	lc := 0.0
	if s.m > 0 {
		lc = math.Log(s.c) - s.lmax
	}
	sums := func(k float64) (t0, t1, t2 float64) {
		for _, l := range s.lny {
			v := l - s.lmax
			e := math.Exp(k * v)
			t0 += e
			t1 += e * v
			t2 += e * v * v
		}
		if s.m > 0 {
			e := math.Exp(k * lc)
			t0 += mf * e
			t1 += mf * e * lc
			t2 += mf * e * lc * lc
		}
		return
	}
	meanL := s.lsum/d - s.lmax // mean of v over uncensored values
	g := func(k float64) (float64, float64, [3]float64) {
		t0, t1, t2 := sums(k)
		r1 := t1 / t0
		val := 1/k + meanL - r1
		der := -1/(k*k) - (t2/t0 - r1*r1)
		return val, der, [3]float64{t0, t1, t2}
	}
	sdl := math.Sqrt(s.lss / d)
	if !(sdl > 0) {
		return fitResult{}, fmt.Errorf("the values have no spread")
	}
	k := 1.2825498301618641 / sdl // π/√6 over the sd of ln y: the Gumbel moment estimate
	lo, hi := 0.0, math.Inf(1)
	var t [3]float64
	converged := false
	it := 0
	for it = 1; it <= 200; it++ {
		val, der, tt := g(k)
		t = tt
		if val > 0 {
			lo = k
		} else {
			hi = k
		}
		next := k - val/der
		if !(next > lo && next < hi) || math.IsNaN(next) {
			if math.IsInf(hi, 1) {
				next = 2 * k
			} else {
				next = (lo + hi) / 2
			}
		}
		if math.Abs(next-k) <= 1e-12*k {
			k = next
			converged = true
			break
		}
		k = next
	}
	if !converged {
		_, _, t = g(k)
	}
	t0, t1, t2 := t[0], t[1], t[2]
	a := math.Log(t0/d) / k // ln λ − lmax
	lambda := math.Exp(s.lmax + a)
	lnLambda := s.lmax + a
	logL := d*math.Log(k) - d*k*lnLambda + (k-1)*s.lsum - d
	// Observed information in (k, a = ln λ − lmax), using e^(−ka)·T0 = d.
	e := math.Exp(-k * a)
	hkk := -d/(k*k) - e*t2 + 2*a*e*t1 - a*a*d
	hka := k * (e*t1 - a*d)
	haa := -k * k * d
	se := nanSlice(2)
	if cov, ok := invert2(-hkk, -hka, -haa); ok {
		se[0] = math.Sqrt(cov[0])
		se[1] = lambda * math.Sqrt(cov[2])
	}
	return fitResult{params: []float64{k, lambda}, stderr: se, logL: logL, iterations: it, converged: converged}, nil
}

// invert2 inverts the symmetric 2×2 matrix [[a b] [b c]], returning its
// entries (a', b', c') when it is positive definite.
func invert2(a, b, c float64) ([3]float64, bool) {
	det := a*c - b*b
	if !(a > 0 && det > 0) {
		return [3]float64{}, false
	}
	return [3]float64{c / det, -b / det, a / det}, true
}

// trigamma is ψ'(x): the recurrence ψ'(x) = ψ'(x+1) + 1/x² up to x ≥ 8,
// then the asymptotic series 1/x + 1/(2x²) + Σ B_2k/x^(2k+1), accurate to
// better than 1e-13 there. (gonum's mathext.Zeta(2, x) gives the same,
// about ten times slower.)
func trigamma(x float64) float64 {
	s := 0.0
	for x < 8 {
		s += 1 / (x * x)
		x++
	}
	z := 1 / (x * x)
	return s + 1/x + z/2 + (z/x)*(1.0/6+z*(-1.0/30+z*(1.0/42+z*(-1.0/30+z*5.0/66))))
}

// gammaShape solves ln k − ψ(k) = s (s > 0) by Newton from Minka's
// approximation; ln k − ψ(k) decreases from +Inf to 0.
func gammaShape(s float64) (float64, int, bool) {
	k := (3 - s + math.Sqrt((s-3)*(s-3)+24*s)) / (12 * s)
	for it := 1; it <= 100; it++ {
		f := math.Log(k) - mathext.Digamma(k) - s
		df := 1/k - trigamma(k)
		next := k - f/df
		if !(next > 0) {
			next = k / 2
		}
		if math.Abs(next-k) <= 1e-13*k {
			return next, it, true
		}
		k = next
	}
	return k, 100, false
}

func fitGamma(s *sample) (fitResult, error) {
	d := s.d()
	sv := math.Log(s.mean) - s.lmean
	if !(sv > 0) {
		return fitResult{}, fmt.Errorf("the values have no spread")
	}
	k, it, conv := gammaShape(sv)
	theta := s.mean / k
	lg, _ := math.Lgamma(k)
	logL := (k-1)*s.lsum - s.sum/theta - d*lg - d*k*math.Log(theta)
	if s.m == 0 {
		tg := trigamma(k)
		se := nanSlice(2)
		if den := d * (k*tg - 1); den > 0 {
			se[0] = math.Sqrt(k / den)
			se[1] = math.Sqrt(theta * theta * tg / den)
		}
		return fitResult{params: []float64{k, theta}, stderr: se, logL: logL, iterations: it, converged: conv}, nil
	}
	mf := float64(s.m)
	ll := func(k, theta float64) float64 {
		lg, _ := math.Lgamma(k)
		return (k-1)*s.lsum - s.sum/theta - d*lg - d*k*math.Log(theta) + mf*logGammaSurv(k, s.c/theta)
	}
	f := func(x []float64) float64 { return -ll(math.Exp(x[0]), math.Exp(x[1])) }
	grad := func(g, x []float64) { fd.Gradient(g, f, x, &fd.Settings{Formula: fd.Central}) }
	// Start from the uncensored fit to the values with the censored ones at c.
	n := d + mf
	mean0 := (s.sum + mf*s.c) / n
	lmean0 := (s.lsum + mf*math.Log(s.c)) / n
	k0, _, _ := gammaShape(math.Log(mean0) - lmean0)
	res := bfgs(f, grad, []float64{math.Log(k0), math.Log(mean0 / k0)}, 1e-7*n, 500)
	k, theta = math.Exp(res.x[0]), math.Exp(res.x[1])
	se := stdErrors(func(x []float64) float64 { return ll(x[0], x[1]) }, []float64{k, theta})
	return fitResult{params: []float64{k, theta}, stderr: se, logL: ll(k, theta), iterations: res.iterations, converged: res.converged}, nil
}

// logGammaSurv is ln Q(k, x), the log of the regularized upper incomplete
// gamma function, with the leading asymptotic term where Q underflows.
func logGammaSurv(k, x float64) float64 {
	q := mathext.GammaIncRegComp(k, x)
	if q > 1e-300 {
		return math.Log(q)
	}
	lg, _ := math.Lgamma(k)
	return (k-1)*math.Log(x) - x - lg
}

func fitPareto(s *sample) (fitResult, error) {
	d := s.d()
	xm := s.y[0]
	lxm := math.Log(xm)
	den := s.lsum - d*lxm
	lc := 0.0
	if s.m > 0 {
		lc = math.Log(s.c)
		den += float64(s.m) * (lc - lxm)
	}
	if !(den > 0) {
		return fitResult{}, fmt.Errorf("the values have no spread")
	}
	alpha := d / den
	logL := d*math.Log(alpha) + d*alpha*lxm - (alpha+1)*s.lsum
	if s.m > 0 {
		logL += float64(s.m) * alpha * (lxm - lc)
	}
	// xm is the sample minimum: its error is that of the minimum of n Pareto
	// values, itself Pareto with shape n·alpha (sd ≈ xm/(n·alpha)).
	return fitResult{params: []float64{alpha, xm}, stderr: []float64{alpha / math.Sqrt(d), xm / (float64(s.n) * alpha)},
		logL: logL, converged: true}, nil
}

// stdErrors are the square roots of the diagonal of the inverse observed
// information, −H⁻¹, with H the Hessian of logL at x by central differences
// (steps relative to each parameter). NaN where H is not negative definite.
func stdErrors(logL func([]float64) float64, x []float64) []float64 {
	se, _ := numericCov(logL, x)
	return se
}

// numericCov is stdErrors with the whole covariance matrix (nil when the
// information is not positive definite).
func numericCov(logL func([]float64) float64, x []float64) ([]float64, [][]float64) {
	k := len(x)
	h := make([]float64, k)
	for i, v := range x {
		h[i] = 1e-4 * math.Max(math.Abs(v), 1e-8)
	}
	at := func(di, dj int, si, sj float64) float64 {
		y := append([]float64(nil), x...)
		y[di] += si * h[di]
		y[dj] += sj * h[dj]
		return logL(y)
	}
	f0 := logL(x)
	info := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			var v float64
			if i == j {
				v = (at(i, i, 1, 0) - 2*f0 + at(i, i, -1, 0)) / (h[i] * h[i])
			} else {
				v = (at(i, j, 1, 1) - at(i, j, 1, -1) - at(i, j, -1, 1) + at(i, j, -1, -1)) / (4 * h[i] * h[j])
			}
			info.SetSym(i, j, -v)
		}
	}
	se := nanSlice(k)
	var ch mat.Cholesky
	if !ch.Factorize(info) {
		return se, nil
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return se, nil
	}
	cov := make([][]float64, k)
	for i := range cov {
		cov[i] = make([]float64, k)
		for j := range cov[i] {
			cov[i][j] = inv.At(i, j)
		}
		if v := cov[i][i]; v > 0 {
			se[i] = math.Sqrt(v)
		}
	}
	return se, cov
}
