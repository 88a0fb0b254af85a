package generator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/gmark/gmark/internal/names"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// The applications database: the unit generators of GrenchMark's synthetic
// applications, each a table of parameters. With RandomWorkload=true (the
// default, as in the original) every parameter is drawn uniformly from the
// original's value set; with RandomWorkload=false it takes its fixed default.
// Either way a unit may fix a parameter (Supersteps=20) or give its own
// weighted list (SuperstepsWithWeights=1/3;10/1).

// AppParam is one parameter of an application: its command-line flag (the
// key in the job's params) and its WDL key.
type AppParam struct {
	Flag    string   // "supersteps": `gmark app sser --supersteps 5`
	Key     string   // "Supersteps": the OtherInfo key that fixes it
	Doc     string   // one line
	Values  []string // drawn uniformly when RandomWorkload is true
	Default string   // used when RandomWorkload is false
	// FromJob, when set, computes the value from the job instead (used by
	// swf, which replays the job's own run time and size).
	FromJob func(j *workload.Job) string
	// Check validates a value a unit gives: the range the application
	// itself accepts (apps/), so that a job never fails on its arguments.
	Check func(string) error
}

// The applications' own limits (apps/sser.go, apps/smpi.go, apps/sserio.go).
const (
	maxAppParam = math.MaxInt32 // supersteps, memory, elements, compute
	maxExchange = 32 << 20      // smpi: elements sent per superstep
	maxFileKB   = 1 << 30       // sserio: file sizes, 1 TiB
	maxSWFScale = 1e6           // swf: run-time factor
)

// AppSpec describes one application a unit generator instantiates.
type AppSpec struct {
	Name    string
	Aliases []string
	Doc     string
	Params  []AppParam
}

var (
	supersteps = AppParam{Flag: "supersteps", Key: "Supersteps", Doc: "number of supersteps N",
		Values: []string{"1", "2", "5", "10", "20", "50", "100"}, Default: "10", Check: between(1, maxAppParam)}
	memory = AppParam{Flag: "memory", Key: "Memory", Doc: "memory items M, in thousands",
		Values: []string{"10", "25", "50", "100", "250", "500", "1000", "5000"}, Default: "100", Check: between(1, maxAppParam)}
	elements = AppParam{Flag: "elements", Key: "Elements", Doc: "elements per memory item S",
		Values: []string{"3", "4", "10", "100", "500", "1000"}, Default: "10", Check: between(1, maxAppParam)}
	compute = AppParam{Flag: "compute", Key: "Compute", Doc: "computation per memory item C",
		Values: []string{"2", "10", "100", "1000"}, Default: "10", Check: between(1, maxAppParam)}
	exchange = AppParam{Flag: "exchange", Key: "Exchange", Doc: "elements exchanged per superstep X",
		Values: []string{"100", "500", "1000", "10000", "50000"}, Default: "1000", Check: between(0, maxExchange)}
	ioSizes = []string{"0", "16", "32", "64", "128", "256"}
)

func ioParam(flag, key, doc string) AppParam {
	return AppParam{Flag: flag, Key: key, Doc: doc, Values: ioSizes, Default: "64", Check: between(0, maxFileKB)}
}

var appSpecs = []*AppSpec{
	{Name: "sser", Doc: "sequential synthetic application: computation on memory",
		Params: []AppParam{supersteps, memory, elements, compute}},
	{Name: "sserio", Doc: "sequential synthetic application with input and output files",
		Params: []AppParam{supersteps, memory, elements, compute,
			ioParam("input1", "Input1", "size of input file 1, KB (0: none)"),
			ioParam("input2", "Input2", "size of input file 2, KB (0: none)"),
			ioParam("output1", "Output1", "size of output file 1, KB (0: none)"),
			ioParam("output2", "Output2", "size of output file 2, KB (0: none)"),
			ioParam("output3", "Output3", "size of output file 3, KB (0: none)")}},
	{Name: "smpi", Aliases: []string{"smpi1"}, Doc: "parallel synthetic application: computation, memory and communication over all components",
		Params: []AppParam{supersteps, memory, elements, compute, exchange}},
	{Name: "lunar", Doc: "state-space exploration of dimension S, reporting states explored and interesting states found",
		Params: []AppParam{
			{Flag: "dimension", Key: "Dimension", Doc: "dimension S of the state space",
				Values: []string{"4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16"}, Default: "8", Check: between(1, 32)},
			{Flag: "flavour", Key: "Flavour", Doc: "instance flavour: normal or large",
				Values: []string{"normal", "large"}, Default: "normal", Check: oneOf("normal", "large")}}},
	{Name: "swf", Doc: "replays a trace job: holds its processors for its run time",
		Params: []AppParam{
			{Flag: "runtime", Key: "", Doc: "run time in seconds (the job's RunTime)",
				FromJob: func(j *workload.Job) string {
					var b [24]byte // the longest: "-9223372036.854775808"
					return string(workload.AppendSeconds(b[:0], j.RunTime))
				}},
			{Flag: "procs", Key: "", Doc: "processors (the job's total)",
				FromJob: func(j *workload.Job) string { return strconv.Itoa(j.Processors()) }},
			{Flag: "scale", Key: "Scale", Doc: "run time scale factor", Default: "1", Check: swfScale},
			{Flag: "mode", Key: "Mode", Doc: "sleep, or cpu to keep the processors busy",
				Default: "sleep", Check: oneOf("sleep", "cpu")}}},
	{Name: "hello", Doc: "prints a line and exits: for overhead tests"},
}

var appIndex = names.Index(appSpecs, func(a *AppSpec) []string { return append([]string{a.Name}, a.Aliases...) }, false)

// LookupApp finds an application by name or alias.
func LookupApp(name string) (*AppSpec, bool) {
	a, ok := appIndex[name]
	return a, ok
}

// AppNames lists the application unit types, aliases included, sorted.
func AppNames() []string {
	names := make([]string, 0, len(appIndex))
	for n := range appIndex {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// optView reads a unit's options for one application: "app.Key" (how a
// composite unit passes a key to one of its node applications) wins over "Key".
type optView struct {
	o      *wdl.Options
	prefix string // "sser." or ""
}

func (v optView) get(key string) (wdl.Option, bool) {
	if v.prefix != "" {
		if opt, ok := v.o.Get(v.prefix + key); ok {
			return opt, true
		}
	}
	return v.o.Get(key)
}

// paramGen produces one parameter's value per job.
type paramGen struct {
	flag    string
	fixed   string // when choice is nil and fromJob is nil
	values  []string
	choice  *stats.Choice
	fromJob func(*workload.Job) string
}

// appMaker fills the App of a job.
type appMaker struct {
	name   string // the canonical name written to jobs
	params []paramGen
}

// prepareApp resolves how each parameter of app is chosen for a unit.
func prepareApp(app *AppSpec, v optView, random bool) (*appMaker, wdl.ErrorList) {
	var errs wdl.ErrorList
	m := &appMaker{name: app.Name}
	for _, p := range app.Params {
		g := paramGen{flag: p.Flag, fixed: p.Default, fromJob: p.FromJob}
		if p.Key != "" {
			if opt, ok := v.get(p.Key); ok {
				if err := checkParamValue(p, opt.Value); err != nil {
					errs = append(errs, wdl.Errorf(opt.Pos, "%s: %v", opt.Key, err))
				}
				g.fixed, g.fromJob = opt.Value, nil
			} else if opt, ok := v.get(p.Key + "WithWeights"); ok {
				items, err := wdl.ParseWeighted(opt.Value)
				if err != nil {
					errs = append(errs, wdl.Errorf(opt.Pos, "%s: %v", opt.Key, err))
					continue
				}
				weights := make([]float64, len(items))
				for i, it := range items {
					if err := checkParamValue(p, it.Value); err != nil {
						errs = append(errs, wdl.Errorf(opt.ItemPos(it), "%s: %v", opt.Key, err))
					}
					g.values = append(g.values, it.Value)
					weights[i] = it.Weight
				}
				g.choice, _ = stats.NewChoice(weights)
				g.fromJob = nil
			} else if random && len(p.Values) > 1 && p.FromJob == nil {
				g.values = p.Values
				g.choice, _ = stats.NewChoice(uniformWeights(len(p.Values)))
			}
		}
		m.params = append(m.params, g)
	}
	return m, errs
}

// checkParamValue rejects values the application would refuse.
func checkParamValue(p AppParam, v string) error {
	if p.Check != nil {
		return p.Check(v)
	}
	return nil
}

// between accepts whole numbers in [lo, hi].
func between(lo, hi int) func(string) error {
	return func(v string) error {
		if k, err := strconv.Atoi(v); err != nil || k < lo || k > hi {
			return fmt.Errorf("%q must be a whole number from %d to %d", wdl.Excerpt(v), lo, hi)
		}
		return nil
	}
}

func swfScale(v string) error {
	if f, err := wdl.ParseFloat(v); err != nil || f <= 0 || f > maxSWFScale {
		return fmt.Errorf("%q must be a number > 0 and at most %g", wdl.Excerpt(v), float64(maxSWFScale))
	}
	return nil
}

func oneOf(words ...string) func(string) error {
	return func(v string) error {
		for _, w := range words {
			if v == w {
				return nil
			}
		}
		return fmt.Errorf("%q is not one of %s", wdl.Excerpt(v), strings.Join(words, ", "))
	}
}

func uniformWeights(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	return w
}

// fill sets j.App, reusing j.App.Params' storage.
func (m *appMaker) fill(r *rand.Rand, j *workload.Job) {
	j.App.Name = m.name
	params := j.App.Params[:0]
	for i := range m.params {
		g := &m.params[i]
		var v string
		switch {
		case g.fromJob != nil:
			v = g.fromJob(j)
		case g.choice != nil:
			v = g.values[g.choice.Pick(r)]
		default:
			v = g.fixed
		}
		params = append(params, workload.Param{Key: g.flag, Value: v})
	}
	j.App.Params = params
}
