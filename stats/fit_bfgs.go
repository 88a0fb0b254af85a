package stats

import "math"

// A small quasi-Newton minimiser for the likelihoods that have no closed
// form (censored normal and gamma, the polishing of the mixtures).
//
// gonum's optimize package would do, but it imports gonum/stat/distmv,
// which needs golang.org/x/tools, a module this repository's go.mod does not
// list; these few lines avoid the new dependency.

// bfgsResult is where bfgs stopped.
type bfgsResult struct {
	x          []float64
	f          float64
	iterations int
	converged  bool // the gradient fell below the threshold
}

// bfgs minimises f from x0 with the BFGS update of the inverse Hessian and
// a backtracking (Armijo) line search. It stops when the largest gradient
// component is at most gtol, when two iterations in a row decrease f by less
// than 1e-10·(1+|f|) (for a log-likelihood, a change far below what the data
// can distinguish), when a line search cannot decrease f any more, or after
// maxIter iterations.
func bfgs(f func([]float64) float64, grad func(g, x []float64), x0 []float64, gtol float64, maxIter int) bfgsResult {
	n := len(x0)
	x := append([]float64(nil), x0...)
	g := make([]float64, n)
	fx := f(x)
	grad(g, x)
	h := identity(n)
	p := make([]float64, n)
	xn := make([]float64, n)
	gn := make([]float64, n)
	s := make([]float64, n)
	y := make([]float64, n)
	res := bfgsResult{x: x, f: fx}
	if math.IsNaN(fx) || math.IsInf(fx, 0) {
		return res
	}
	first := true
	small := 0
	for it := 1; it <= maxIter; it++ {
		res.iterations = it
		if maxAbs(g) <= gtol {
			res.converged = true
			break
		}
		// p = −H g; fall back to steepest descent if it is not a descent direction.
		for i := range p {
			p[i] = 0
			for j := range g {
				p[i] -= h[i][j] * g[j]
			}
		}
		slope := dot(p, g)
		if !(slope < 0) {
			h = identity(n)
			for i := range p {
				p[i] = -g[i]
			}
			slope = -dot(g, g)
		}
		step := 1.0
		if first {
			// Scale the first step to move by about 1 in the largest direction.
			step = math.Min(1, 1/math.Max(maxAbs(p), 1e-300))
		}
		var fn float64
		found := false
		for k := 0; k < 60; k++ {
			for i := range xn {
				xn[i] = x[i] + step*p[i]
			}
			fn = f(xn)
			if fn <= fx+1e-4*step*slope && !math.IsNaN(fn) {
				found = true
				break
			}
			step /= 2
		}
		if !found {
			break
		}
		grad(gn, xn)
		for i := range s {
			s[i] = xn[i] - x[i]
			y[i] = gn[i] - g[i]
		}
		sy := dot(s, y)
		if first && sy > 0 {
			// Initial inverse-Hessian scale (Nocedal & Wright 6.20).
			scale := sy / dot(y, y)
			for i := range h {
				h[i][i] = scale
			}
		}
		first = false
		if sy > 1e-12*math.Sqrt(dot(s, s)*dot(y, y)) {
			// H ← (I − ρ s yᵀ) H (I − ρ y sᵀ) + ρ s sᵀ
			rho := 1 / sy
			hy := make([]float64, n)
			for i := range h {
				for j := range y {
					hy[i] += h[i][j] * y[j]
				}
			}
			yhy := dot(y, hy)
			for i := range h {
				for j := range h[i] {
					h[i][j] += -rho*(hy[i]*s[j]+s[i]*hy[j]) + (rho*rho*yhy+rho)*s[i]*s[j]
				}
			}
		}
		improved := fx - fn
		copy(x, xn)
		copy(g, gn)
		fx = fn
		if improved <= 1e-10*(1+math.Abs(fx)) {
			small++
			if small == 2 {
				res.converged = true
				break
			}
		} else {
			small = 0
		}
	}
	res.x, res.f = x, fx
	return res
}

func identity(n int) [][]float64 {
	h := make([][]float64, n)
	for i := range h {
		h[i] = make([]float64, n)
		h[i][i] = 1
	}
	return h
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
