package apps

import (
	"flag"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
)

var calibrate = flag.Bool("calibrate", false, "TestCalibrate: run the applications and fit the run-time model's costs")

// calibration are the runs TestCalibrate measures: every kind of work at
// sizes from milliseconds to a few seconds. The model is for processes on
// processors of their own: on a 2-core machine, jobs of more than 3
// processes would measure the machine's contention instead.
var calibration = []struct {
	app   string
	args  string
	procs int // 0: GOMAXPROCS (lunar's large flavour)
}{
	{"hello", "", 1},
	{"hello", "", 2},
	{"sser", "--supersteps 1 --memory 10 --elements 3 --compute 2", 1},
	{"sser", "--supersteps 10 --memory 100 --elements 10 --compute 10", 1},
	{"sser", "--supersteps 10 --memory 100 --elements 3 --compute 10", 1},
	{"sser", "--supersteps 5 --memory 100 --elements 4 --compute 100", 1},
	{"sser", "--supersteps 5 --memory 1000 --elements 4 --compute 10", 1},
	{"sser", "--supersteps 100 --memory 10 --elements 3 --compute 2", 1},
	{"sser", "--supersteps 100 --memory 10 --elements 4 --compute 10", 1},
	{"sser", "--supersteps 10 --memory 1000 --elements 10 --compute 2", 1},
	{"sser", "--supersteps 1 --memory 1000 --elements 100 --compute 2", 1},
	{"sser", "--supersteps 5 --memory 1000 --elements 100 --compute 2", 1},
	{"sser", "--supersteps 2 --memory 10 --elements 1000 --compute 100", 1},
	{"sser", "--supersteps 10 --memory 25 --elements 500 --compute 10", 1},
	{"sser", "--supersteps 1 --memory 5000 --elements 3 --compute 2", 1},
	{"sser", "--supersteps 1 --memory 5000 --elements 10 --compute 2", 1},
	{"sser", "--supersteps 20 --memory 250 --elements 4 --compute 2", 1},
	{"sser", "--supersteps 50 --memory 10 --elements 1000 --compute 2", 1},
	{"sser", "--supersteps 1 --memory 100 --elements 10 --compute 1000", 1},
	{"sser", "--supersteps 2 --memory 50 --elements 3 --compute 1000", 1},
	{"sser", "--supersteps 1 --memory 1000 --elements 1000 --compute 2", 1},
	{"sserio", "--supersteps 1 --memory 10 --elements 10 --compute 2 --input1 0 --input2 0 --output1 0 --output2 0 --output3 0", 1},
	{"sserio", "--supersteps 1 --memory 10 --elements 10 --compute 2 --input1 256 --input2 256 --output1 0 --output2 0 --output3 0", 1},
	{"sserio", "--supersteps 1 --memory 10 --elements 10 --compute 2 --input1 0 --input2 0 --output1 256 --output2 256 --output3 256", 1},
	{"sserio", "--supersteps 1 --memory 10 --elements 10 --compute 2 --input1 256 --input2 256 --output1 256 --output2 256 --output3 256", 1},
	{"sserio", "--supersteps 10 --memory 100 --elements 10 --compute 10", 1},
	{"smpi", "--supersteps 10 --memory 10 --elements 10 --compute 2 --exchange 100", 2},
	{"smpi", "--supersteps 100 --memory 10 --elements 10 --compute 2 --exchange 100", 2},
	{"smpi", "--supersteps 10 --memory 10 --elements 10 --compute 2 --exchange 100000", 2},
	{"smpi", "--supersteps 50 --memory 10 --elements 10 --compute 2 --exchange 10000", 2},
	{"smpi", "--supersteps 10 --memory 10 --elements 10 --compute 2 --exchange 1000000", 2},
	{"smpi", "--supersteps 10 --memory 100 --elements 10 --compute 10 --exchange 1000", 2},
	{"smpi", "--supersteps 10 --memory 10 --elements 10 --compute 2 --exchange 1000", 3},
	{"smpi", "--supersteps 10 --memory 10 --elements 10 --compute 2 --exchange 100000", 3},
	{"smpi", "--supersteps 50 --memory 10 --elements 10 --compute 2 --exchange 10000", 3},
	{"lunar", "--dimension 8", 1},
	{"lunar", "--dimension 11", 1},
	{"lunar", "--dimension 12", 1},
	{"lunar", "--dimension 13", 1},
	{"lunar", "--dimension 14", 1},
	{"lunar", "--dimension 15", 1},
	{"lunar", "--dimension 14 --flavour large", 0},
	{"lunar", "--dimension 15 --flavour large", 0},
	{"swf", "--runtime 0.1", 1},
	{"swf", "--runtime 0.5", 1},
	{"swf", "--runtime 0.25 --mode cpu", 1},
}

// TestCalibrate measures the calibration runs (the least of five runs
// each), fits the costs by non-negative least squares on relative errors,
// and prints the measured and modelled times side by side (the table of
// docs/apps.md) and the fitted costs. Only with -calibrate:
//
//	go test ./apps -run TestCalibrate -calibrate -v
//
// Run it on an idle machine; paste the costs into Calibrated.
func TestCalibrate(t *testing.T) {
	if !*calibrate {
		t.Skip("measures the applications for a few minutes: give -calibrate")
	}
	works := make([]Work, len(calibration))
	measured := make([]float64, len(calibration))
	for i, c := range calibration {
		procs := c.procs
		if procs == 0 {
			procs = runtime.GOMAXPROCS(0)
		}
		w, _, err := Plan(c.app, words(c.args), procs)
		if err != nil {
			t.Fatal(err)
		}
		works[i] = w
		measured[i], _ = fastest(t, 5, c.app, words(c.args), procs)
		t.Logf("%s %s P=%d: %.4fs", c.app, c.args, procs, measured[i])
	}
	fit := fitCosts(works, measured)
	var b strings.Builder
	fmt.Fprintf(&b, "| app | parameters | P | measured | model (Calibrated) | model (this fit) |\n|---|---|---|---|---|---|\n")
	for i, c := range calibration {
		procs := c.procs
		if procs == 0 {
			procs = runtime.GOMAXPROCS(0)
		}
		fmt.Fprintf(&b, "| %s | `%s` | %d | %s | %s | %s |\n", c.app, c.args, procs, secs(measured[i]),
			secs(works[i].Seconds(Calibrated)), secs(works[i].Seconds(fit)))
	}
	t.Logf("\n%s", b.String())
	t.Logf("relative error: Calibrated %s, this fit %s", relErrors(works, measured, Calibrated), relErrors(works, measured, fit))
	t.Logf("fitted costs:\n%s", costsLiteral(fit))
}

func secs(s float64) string {
	switch {
	case s < 0.1:
		return fmt.Sprintf("%.1f ms", 1000*s)
	default:
		return fmt.Sprintf("%.3f s", s)
	}
}

// relErrors summarises |model − measured| / measured: median and largest.
func relErrors(works []Work, measured []float64, c Costs) string {
	errs := make([]float64, len(works))
	for i, w := range works {
		errs[i] = math.Abs(w.Seconds(c)-measured[i]) / measured[i]
	}
	sort.Float64s(errs)
	return fmt.Sprintf("median %.0f%%, largest %.0f%%", 100*errs[len(errs)/2], 100*errs[len(errs)-1])
}

// TestWorkAndCostsAlign: fitCosts and Seconds pair the i-th field of Work
// with the i-th of Costs (Work has one more, Held, with no price).
func TestWorkAndCostsAlign(t *testing.T) {
	wt, ct := reflect.TypeFor[Work](), reflect.TypeFor[Costs]()
	if wt.NumField() != ct.NumField()+1 || wt.Field(wt.NumField()-1).Name != "Held" {
		t.Fatalf("Work has %d fields, Costs %d", wt.NumField(), ct.NumField())
	}
	var w Work
	wv := reflect.ValueOf(&w).Elem()
	for i := range ct.NumField() {
		if !strings.HasPrefix(wt.Field(i).Name, ct.Field(i).Name) {
			t.Errorf("field %d: Work.%s, Costs.%s", i, wt.Field(i).Name, ct.Field(i).Name)
		}
		wv.Field(i).SetFloat(float64(i + 1))
	}
	var c Costs
	cv := reflect.ValueOf(&c).Elem()
	want := 0.0
	for i := range ct.NumField() {
		cv.Field(i).SetFloat(float64(100 * (i + 1)))
		want += float64((i + 1) * 100 * (i + 1))
	}
	if got := w.Seconds(c); got != want {
		t.Errorf("Seconds %v, want %v", got, want)
	}
}

// fitCosts solves min Σ ((w_i · c − m_i) / m_i)² over c ≥ 0, Held taken as
// known, by cyclic coordinate descent on the normal equations (eleven
// unknowns: it converges in a few thousand sweeps).
func fitCosts(works []Work, measured []float64) Costs {
	k := reflect.TypeFor[Costs]().NumField()
	rows := make([][]float64, len(works))
	rhs := make([]float64, len(works))
	for i, w := range works {
		v := reflect.ValueOf(w)
		rows[i] = make([]float64, k)
		for j := range k {
			rows[i][j] = v.Field(j).Float() / measured[i]
		}
		rhs[i] = (measured[i] - w.Held) / measured[i]
	}
	// Columns scaled to unit norm, so one step size suits all.
	scale := make([]float64, k)
	for j := range k {
		for i := range rows {
			scale[j] += rows[i][j] * rows[i][j]
		}
		scale[j] = math.Sqrt(scale[j])
		if scale[j] == 0 {
			scale[j] = 1
		}
		for i := range rows {
			rows[i][j] /= scale[j]
		}
	}
	gram := make([][]float64, k)
	atb := make([]float64, k)
	for a := range k {
		gram[a] = make([]float64, k)
		for i := range rows {
			atb[a] += rows[i][a] * rhs[i]
			for b := range k {
				gram[a][b] += rows[i][a] * rows[i][b]
			}
		}
	}
	x := make([]float64, k)
	for range 20000 {
		for j := range k {
			if gram[j][j] == 0 {
				continue
			}
			g := -atb[j]
			for b := range k {
				g += gram[j][b] * x[b]
			}
			x[j] = max(0, x[j]-g/gram[j][j])
		}
	}
	var c Costs
	cv := reflect.ValueOf(&c).Elem()
	for j := range k {
		cv.Field(j).SetFloat(x[j] / scale[j])
	}
	return c
}

func costsLiteral(c Costs) string {
	var b strings.Builder
	v := reflect.ValueOf(c)
	for i := range v.NumField() {
		fmt.Fprintf(&b, "\t%s: %.3g,\n", v.Type().Field(i).Name, v.Field(i).Float())
	}
	return b.String()
}

// TestFitCosts: the fit finds costs that made the times, and never a
// negative one.
func TestFitCosts(t *testing.T) {
	truth := Costs{Start: 0.003, AllocByte: 0.5e-9, Item: 2e-9, Sweep: 1e-9, Update: 0.4e-9, InputKB: 3e-6,
		OutputKB: 4e-6, Peer: 0.01, Message: 40e-6, Element: 10e-9, State: 8e-9}
	var works []Work
	for _, c := range calibration {
		w, _, err := Plan(c.app, words(c.args), max(c.procs, 2))
		if err != nil {
			t.Fatal(err)
		}
		works = append(works, w)
	}
	measured := make([]float64, len(works))
	for i, w := range works {
		measured[i] = w.Seconds(truth)
	}
	fit := fitCosts(works, measured)
	want, got := reflect.ValueOf(truth), reflect.ValueOf(fit)
	for i := range want.NumField() {
		if w, g := want.Field(i).Float(), got.Field(i).Float(); math.Abs(g-w) > 1e-3*w {
			t.Errorf("%s: fitted %g, true %g", want.Type().Field(i).Name, g, w)
		}
	}
	// Times no costs can make: the fit stays at 0, not below.
	zero := fitCosts([]Work{{Starts: 1}, {Starts: 2}}, []float64{-1, -2})
	if zero.Start != 0 {
		t.Errorf("negative times: fitted %v", zero.Start)
	}
}
