package generator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// Random stream purposes. Each unit draws each kind of value from its own
// stream, so that changing how one attribute is drawn leaves the others as
// they were (and adding a unit leaves other units alone).
const (
	purposeArrival   = "arrival"
	purposeApp       = "app"
	purposePlacement = "placement"
	purposeAttrs     = "attributes"
	purposeDAG       = "dag"
)

// wallTimeMinutes is GrenchMark's value set for the maximum wall time, and
// defaultWallTime the limit used when RandomWorkload=false.
var (
	wallTimeMinutes = []string{"2", "5", "10", "15"}
	defaultWallTime = 15 * time.Minute
)

// attrs are the job attributes every unit kind shares: wall time, expected run
// time, user and group, and input files.
type attrs struct {
	wallFixed   time.Duration
	wallVals    []time.Duration
	wallChoice  *stats.Choice
	wallGiven   bool
	runFixed    time.Duration
	runGiven    bool // RunTime= is a fixed duration (RunTime=0s: a known 0 s)
	runDist     stats.Distribution
	runKey      string // where runDist came from, for errors: "RunTime" or "Model [runtime]"
	users       []string
	userChoice  *stats.Choice
	groups      []string
	groupChoice *stats.Choice
	files       *inputFiles
}

func prepareAttrs(o *wdl.Options, random bool) (*attrs, wdl.ErrorList) {
	var errs wdl.ErrorList
	add := func(err error) {
		if e, ok := err.(*wdl.Error); ok {
			errs = append(errs, e)
		}
	}
	a := &attrs{wallFixed: defaultWallTime}
	if m, ok, err := o.Float("RunTimeInMinutes", 0, maxMinutes); err != nil {
		add(err)
	} else if ok {
		a.wallFixed, _ = minutes(m)
		a.wallGiven = true
	} else if items, ok, err := o.Weighted("RunTimeInMinutesWithWeights"); err != nil {
		add(err)
	} else if ok {
		opt, _ := o.Get("RunTimeInMinutesWithWeights")
		w := make([]float64, len(items))
		for i, it := range items {
			m, err := wdl.ParseFloat(it.Value)
			d, derr := minutes(m)
			if err != nil || m <= 0 || derr != nil {
				errs = append(errs, wdl.Errorf(opt.ItemPos(it), "RunTimeInMinutesWithWeights: %q must be a number of minutes > 0 and at most %d (100 years)", wdl.Excerpt(it.Value), maxMinutes))
			}
			a.wallVals = append(a.wallVals, d)
			w[i] = it.Weight
		}
		a.wallChoice, _ = stats.NewChoice(w)
		a.wallGiven = true
	} else if random {
		for _, m := range wallTimeMinutes {
			v, _ := strconv.Atoi(m)
			a.wallVals = append(a.wallVals, time.Duration(v)*time.Minute)
		}
		a.wallChoice, _ = stats.NewChoice(uniformWeights(len(a.wallVals)))
	}
	if opt, ok := o.Get("RunTime"); ok {
		if strings.ContainsRune(opt.Value, '(') || isFamilyName(opt.Value) {
			d, err := wdl.ParseDistributionIn(opt.Value, wdl.DistContext{Dir: filepath.Dir(opt.Pos.File)})
			if err == nil {
				err = wdl.RunTimes.CheckDist(d)
			}
			if err != nil {
				errs = append(errs, wdl.Errorf(opt.Pos, "RunTime: %v", err))
			}
			a.runDist, a.runKey = d, "RunTime"
		} else if d, err := wdl.ParseDuration(opt.Value); err != nil {
			errs = append(errs, wdl.Errorf(opt.Pos, "RunTime: %v (a duration, or a distribution such as LogNorm(4,1))", err))
		} else {
			a.runFixed, a.runGiven = d, true
		}
	} else if opt, ok := o.Get("Model"); ok {
		// The run time of a Model= fit file (docs/models.md), when it has one.
		d, err := modelDist(opt, "runtime", wdl.RunTimes)
		if err != nil {
			errs = append(errs, err.(*wdl.Error))
		}
		a.runDist, a.runKey = d, "Model [runtime]"
	}
	a.users, a.userChoice = weightedStrings(o, "User", "UsersWithWeights", &errs)
	a.groups, a.groupChoice = weightedStrings(o, "Group", "GroupsWithWeights", &errs)
	files, ferrs := prepareInputFiles(o)
	a.files = files
	errs = append(errs, ferrs...)
	return a, errs
}

func isFamilyName(s string) bool {
	_, ok := stats.LookupFamily(s)
	return ok
}

// maxMinutes is MaxSeconds in minutes: the longest wall time.
const maxMinutes = wdl.MaxSeconds / 60

func minutes(m float64) (time.Duration, error) { return wdl.Durations.Duration(m * 60) }

// weightedStrings reads either Key=value or KeyWithWeights=v/w;….
func weightedStrings(o *wdl.Options, key, wkey string, errs *wdl.ErrorList) ([]string, *stats.Choice) {
	if v, ok := o.String(key); ok {
		c, _ := stats.NewChoice([]float64{1})
		return []string{v}, c
	}
	items, ok, err := o.Weighted(wkey)
	if err != nil {
		*errs = append(*errs, err.(*wdl.Error))
		return nil, nil
	}
	if !ok {
		return nil, nil
	}
	vals := make([]string, len(items))
	w := make([]float64, len(items))
	for i, it := range items {
		vals[i], w[i] = it.Value, it.Weight
	}
	c, _ := stats.NewChoice(w)
	return vals, c
}

// fill sets the shared attributes of j. Its error is a run time that could
// not be drawn in range (docs/wdl.md#distributions-and-their-draws).
func (a *attrs) fill(r *rand.Rand, j *workload.Job) error {
	j.WallTime = a.wallFixed
	if a.wallChoice != nil {
		j.WallTime = a.wallVals[a.wallChoice.Pick(r)]
	}
	j.RunTime, j.ZeroRunTime = a.runFixed, a.runGiven && a.runFixed == 0
	if a.runDist != nil {
		secs, err := wdl.RunTimes.Draw(a.runDist, r)
		if err != nil {
			return fmt.Errorf("job %s: %s: %v; change the distribution so that its draws stay in range", j.ID, a.runKey, err)
		}
		j.RunTime, _ = wdl.RunTimes.Duration(secs) // in range: Draw checked it
		j.ZeroRunTime = j.RunTime == 0             // a draw of 0 (a fit's values set apart at 0) is 0 s, not unknown
	}
	// A drawn limit shorter than the job's known run time would kill it; unless
	// the unit fixed the limit, raise it to the run time in whole minutes.
	if !a.wallGiven && j.RunTime > j.WallTime {
		j.WallTime = (j.RunTime + time.Minute - 1).Truncate(time.Minute)
	}
	j.User, j.Group = "", ""
	if a.userChoice != nil {
		j.User = a.users[a.userChoice.Pick(r)]
	}
	if a.groupChoice != nil {
		j.Group = a.groups[a.groupChoice.Pick(r)]
	}
	a.files.fill(r, j)
	return nil
}

// arrivals is a unit's arrival process: the first job at StartAt, each next
// one an inter-arrival time later.
type arrivals struct {
	dist  stats.Distribution
	r     *rand.Rand
	t     time.Duration
	k     int
	scale float64 // inter-arrival times are multiplied by it (TargetLoad); 0 means 1
}

func (a *arrivals) next() (time.Duration, error) {
	if a.k > 0 {
		dt, err := drawInterArrival(a.dist, a.r)
		if err != nil {
			return 0, err
		}
		if a.scale > 0 {
			dt *= a.scale
		}
		// Each step is rounded to the millisecond, then added.
		step, err := wdl.Durations.Duration(dt)
		if err != nil || a.t+step > wdl.MaxDuration {
			return 0, errArrivalsTooLate
		}
		a.t += step
	}
	a.k++
	return a.t, nil
}

// drawInterArrival draws an inter-arrival time in seconds. Negative draws
// (a normal can give them) count as 0, as in GrenchMark, and the rare draw
// past the limit of durations is drawn again (docs/wdl.md); NaN is an error.
func drawInterArrival(d stats.Distribution, r *rand.Rand) (float64, error) {
	v, err := wdl.InterArrivals.Draw(d, r)
	if err != nil {
		return 0, fmt.Errorf("the inter-arrival time: %v; change the distribution so that its draws stay in range", err)
	}
	return math.Max(0, v), nil
}

// errArrivalsTooLate ends a unit whose submit times pass the limit.
var errArrivalsTooLate = fmt.Errorf("arrival times pass %d years, the limit of submit offsets: give fewer jobs or shorter inter-arrival times", wdl.MaxSeconds/(365*86400))

// submitOffset converts a submit time in seconds from the workload start to
// an offset, or errArrivalsTooLate past MaxSeconds.
func submitOffset(secs float64) (time.Duration, error) {
	if !(secs <= wdl.MaxSeconds) {
		return 0, errArrivalsTooLate
	}
	return wdl.Durations.Duration(secs)
}
