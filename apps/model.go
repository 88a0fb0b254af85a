package apps

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// The run-time model: how long `gmark app NAME ARGS...` runs, from its
// parameters alone, without running it. A scheduler that emulates jobs (the
// bundled core) uses it for a job that states no run time, so that a hello
// job is over in milliseconds and an sser job of 10¹¹ element updates takes
// its tens of seconds.
//
// Each application counts the work its parsed flags ask for (Work: element
// updates, bytes allocated, elements exchanged, states explored, …); the
// work's cost is the sum of each count times its price (Costs), measured on
// one machine by running the applications (TestCalibrate in
// model_calibrate_test.go; the measured and modelled times are side by side
// in docs/apps.md). The model is for one process on a processor of its own:
// every process of a parallel job runs at once, so the job takes what one
// process takes.

// Work counts what one process of a run does, in the units Costs prices.
type Work struct {
	Starts     float64 // processes started and ended (1): exec, runtime start-up, summary
	AllocBytes float64 // memory allocated and written once (bsp apps: ≤ --max-memory)
	Items      float64 // item visits: N × M×1000
	Sweeps     float64 // item sweeps: N × M×1000 × C
	Updates    float64 // element updates: N × M×1000 × S × C
	InputKB    float64 // sserio: input KB staged (the job's directory is new) and read
	OutputKB   float64 // sserio: output KB written
	Peers      float64 // smpi: the other processes met and connected to, P − 1
	Messages   float64 // smpi: exchanges with a peer, N × (P − 1)
	Elements   float64 // smpi: elements received, N × X × (P − 1)
	States     float64 // lunar: states explored per worker
	Held       float64 // swf: seconds held, runtime × scale (exact, no price)
}

// Costs are the prices of Work, in seconds per unit.
type Costs struct {
	Start     float64 // per process
	AllocByte float64 // per byte allocated
	Item      float64 // per item visit
	Sweep     float64 // per item sweep
	Update    float64 // per element update
	InputKB   float64 // per input KB
	OutputKB  float64 // per output KB
	Peer      float64 // per peer met
	Message   float64 // per exchange with a peer
	Element   float64 // per element received
	State     float64 // per state explored
}

// Calibrated are the costs measured on the machine gmark was calibrated on
// (2-core AMD EPYC, Go 1.26, Linux; `go test ./apps -run TestCalibrate
// -calibrate -v` measures a machine and prints its own).
var Calibrated = Costs{
	Start:     4.59e-3,
	AllocByte: 0.342e-9,
	Item:      0, // the fit finds no cost per item beyond its sweeps'
	Sweep:     1.03e-9,
	Update:    0.385e-9,
	InputKB:   1.20e-6,
	OutputKB:  0.374e-6,
	Peer:      2.50e-3,
	Message:   130e-6,
	Element:   13.9e-9,
	State:     6.81e-9,
}

// Seconds is the work's run time at the given costs.
func (w Work) Seconds(c Costs) float64 {
	return w.Held + w.Starts*c.Start + w.AllocBytes*c.AllocByte + w.Items*c.Item + w.Sweeps*c.Sweep +
		w.Updates*c.Update + w.InputKB*c.InputKB + w.OutputKB*c.OutputKB + w.Peers*c.Peer +
		w.Messages*c.Message + w.Elements*c.Element + w.States*c.State
}

// ErrUnknownApp is the error of Plan and RunTime for a name that is not a
// gmark application.
var ErrUnknownApp = errors.New("not a gmark application")

// Plan reads the command line of one process of a job of procs processes
// (args: the flags, as workload.App.Args writes them) as the application
// would, and returns the work it asks for and its --walltime (0: none).
// Flags the application would refuse give its *UsageError.
func Plan(name string, args []string, procs int) (Work, time.Duration, error) {
	a := registry[name]
	if a == nil {
		return Work{}, 0, fmt.Errorf("%q: %w (the applications are %v)", name, ErrUnknownApp, Names())
	}
	fs := newFlagSet(a.name)
	inst := a.define(fs)
	var c common
	defineCommon(fs, &c)
	if err := fs.parse(args); err != nil {
		if errors.Is(err, errHelp) {
			return Work{}, 0, &UsageError{App: a.name, Msg: "--help prints help: no work"}
		}
		return Work{}, 0, err
	}
	return inst.work(max(procs, 1)), c.walltime, nil
}

// RunTime is the model's run time of `gmark app NAME ARGS...` as one of
// procs processes of a job, at the Calibrated costs: Plan's work, cut at
// the --walltime, saturated at the longest time.Duration.
func RunTime(name string, args []string, procs int) (time.Duration, error) {
	w, wall, err := Plan(name, args, procs)
	if err != nil {
		return 0, err
	}
	d := seconds(w.Seconds(Calibrated))
	if wall > 0 && wall < d {
		d = wall
	}
	return d, nil
}

// seconds converts to a Duration, saturating (a NaN, impossible from valid
// flags, is 0).
func seconds(s float64) time.Duration {
	switch v := s * float64(time.Second); {
	case !(v > 0):
		return 0
	case v >= math.MaxInt64:
		return math.MaxInt64
	default:
		return time.Duration(v)
	}
}

// work is the work of sser's supersteps (and of sserio's and smpi's).
func (p *bspParams) work() Work {
	items := float64(p.items) * 1000
	n, s, c := float64(p.supersteps), float64(p.elements), float64(p.compute)
	// The allocation as kernel.New makes it: whole items, at most
	// --max-memory, at least one item.
	itemBytes := p.elements * 8
	slots := min(p.items*1000, max(1, p.maxMemory/itemBytes))
	return Work{Starts: 1, AllocBytes: float64(slots * itemBytes), Items: n * items, Sweeps: n * items * c,
		Updates: n * items * s * c}
}

func sserioWork(p bspParams, in [2]int64, out [3]int64) Work {
	w := p.work()
	for _, kb := range in {
		w.InputKB += float64(kb)
	}
	for _, kb := range out {
		w.OutputKB += float64(kb)
	}
	return w
}

// smpiWork: sser's work, plus, in a job of more than one process, meeting
// the others and an exchange with each of them every superstep.
func smpiWork(p bspParams, x int64, procs int) Work {
	w := p.work()
	if procs > 1 {
		peers := float64(procs - 1)
		w.Peers = peers
		w.Messages = float64(p.supersteps) * peers
		w.Elements = float64(p.supersteps) * float64(x) * peers
	}
	return w
}

// lunarWork: the states of the space of dimension dim. Flavour large runs
// one worker per processor of its host (GOMAXPROCS), but a job's processes
// hold one processor each (the launcher starts one per processor, and each
// explores the whole space): its workers share that processor, so large
// takes as long as normal (measured: 2 processes of large on 2 processors,
// 0.20 s for dimension 14; one of normal, 0.20 s). The flavour only helps a
// process that has its host's other processors to itself.
func lunarWork(dim int) Work {
	return Work{Starts: 1, States: LunarStates(dim)}
}

// lunarStates are the states lunar explores for dimensions 1 to 16,
// counted by running it (`gmark app lunar --dimension S`).
var lunarStates = [...]float64{1, 2, 5, 16, 53, 152, 551, 2056, 8393, 35538, 166925, 856188, 4674889,
	27358552, 171129071, 1141190302}

// LunarStates is the number of states lunar explores in dimension dim:
// counted for 1 to 16. Beyond, it is extrapolated: the growth from one
// dimension to the next rises by about 0.4 per dimension (× 5.46, 5.85,
// 6.26 and 6.67 from 12 to 16), so dimension 17 is 16's × 7.07, 18 is
// 17's × 7.47, and so on.
func LunarStates(dim int) float64 {
	n := len(lunarStates)
	if dim < 1 {
		return 0
	}
	if dim <= n {
		return lunarStates[dim-1]
	}
	ratio := func(d int) float64 { return lunarStates[d-1] / lunarStates[d-2] }
	last := ratio(n)
	step := (last - ratio(n-3)) / 3 // the mean rise over the last three dimensions
	s := lunarStates[n-1]
	for k := n + 1; k <= dim; k++ {
		s *= last + step*float64(k-n)
	}
	return s
}
