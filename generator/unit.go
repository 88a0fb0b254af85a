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

// maxOffset bounds submit times: a workload spanning more than a century is
// a mistake in the spec (e.g. C(1e12)), not a benchmark.
const maxOffset = 100 * 365 * 24 * time.Hour

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
	runDist     stats.Distribution
	users       []string
	userChoice  *stats.Choice
	groups      []string
	groupChoice *stats.Choice
	files       []workload.File
	fileChoice  *stats.Choice
}

func prepareAttrs(o *wdl.Options, random bool) (*attrs, wdl.ErrorList) {
	var errs wdl.ErrorList
	add := func(err error) {
		if e, ok := err.(*wdl.Error); ok {
			errs = append(errs, e)
		}
	}
	a := &attrs{wallFixed: defaultWallTime}
	if m, ok, err := o.Float("RunTimeInMinutes", 0); err != nil {
		add(err)
	} else if ok {
		a.wallFixed, a.wallGiven = minutes(m), true
	} else if items, ok, err := o.Weighted("RunTimeInMinutesWithWeights"); err != nil {
		add(err)
	} else if ok {
		opt, _ := o.Get("RunTimeInMinutesWithWeights")
		w := make([]float64, len(items))
		for i, it := range items {
			m, err := wdl.ParseFloat(it.Value)
			if err != nil || m <= 0 {
				errs = append(errs, wdl.Errorf(opt.ItemPos(it), "RunTimeInMinutesWithWeights: %q must be a number of minutes > 0", it.Value))
			}
			a.wallVals = append(a.wallVals, minutes(m))
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
			if err != nil {
				errs = append(errs, wdl.Errorf(opt.Pos, "RunTime: %v", err))
			}
			a.runDist = d
		} else if d, err := wdl.ParseDuration(opt.Value); err != nil {
			errs = append(errs, wdl.Errorf(opt.Pos, "RunTime: %v (a duration, or a distribution such as LogNorm(4,1))", err))
		} else {
			a.runFixed = d
		}
	} else if opt, ok := o.Get("Model"); ok {
		// The run time of a Model= fit file (docs/models.md), when it has one.
		d, err := modelDist(opt, "runtime")
		if err != nil {
			errs = append(errs, err.(*wdl.Error))
		}
		a.runDist = d
	}
	a.users, a.userChoice = weightedStrings(o, "User", "UsersWithWeights", &errs)
	a.groups, a.groupChoice = weightedStrings(o, "Group", "GroupsWithWeights", &errs)
	names, fileChoice := weightedStrings(o, "InputFile", "InputFilesWithWeights", &errs)
	a.fileChoice = fileChoice
	for _, nv := range names {
		f, err := parseFile(nv)
		if err != nil {
			opt, ok := o.Get("InputFile")
			if !ok {
				opt, _ = o.Get("InputFilesWithWeights")
			}
			errs = append(errs, wdl.Errorf(opt.Pos, "%s: %v", opt.Key, err))
		}
		a.files = append(a.files, f)
	}
	return a, errs
}

func isFamilyName(s string) bool {
	_, ok := stats.LookupFamily(s)
	return ok
}

func minutes(m float64) time.Duration { return wdl.SecondsToDuration(m * 60) }

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

// parseFile reads "name:size" (size with an optional unit, e.g. data:2GB).
func parseFile(s string) (workload.File, error) {
	name, size, ok := strings.Cut(s, ":")
	if !ok || name == "" {
		return workload.File{}, fmt.Errorf("input file %q must be name:size, e.g. dataset-1:2GB", s)
	}
	n, err := wdl.ParseBytes(size)
	if err != nil {
		return workload.File{}, fmt.Errorf("input file %q: %v", s, err)
	}
	return workload.File{Name: name, Size: n}, nil
}

// fill sets the shared attributes of j.
func (a *attrs) fill(r *rand.Rand, j *workload.Job) {
	j.WallTime = a.wallFixed
	if a.wallChoice != nil {
		j.WallTime = a.wallVals[a.wallChoice.Pick(r)]
	}
	j.RunTime = a.runFixed
	if a.runDist != nil {
		j.RunTime = wdl.SecondsToDuration(math.Max(0, a.runDist.Rand(r)))
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
	j.Files = j.Files[:0]
	if a.fileChoice != nil {
		j.Files = append(j.Files, a.files[a.fileChoice.Pick(r)])
	}
}

// arrivals is a unit's arrival process: the first job at StartAt, each next
// one an inter-arrival time later. Negative samples (a normal distribution can
// give them) count as 0.
type arrivals struct {
	dist  stats.Distribution
	r     *rand.Rand
	t     time.Duration
	k     int
	scale float64 // inter-arrival times are multiplied by it (TargetLoad); 0 means 1
}

func (a *arrivals) next() (time.Duration, error) {
	if a.k > 0 {
		dt := a.dist.Rand(a.r)
		if !(dt > 0) { // also NaN
			dt = 0
		}
		if a.scale > 0 {
			dt *= a.scale
		}
		if dt > maxOffset.Seconds() || a.t+wdl.SecondsToDuration(dt) > maxOffset {
			return 0, fmt.Errorf("arrival times pass %d years", int(maxOffset.Hours()/24/365))
		}
		a.t += wdl.SecondsToDuration(dt)
	}
	a.k++
	return a.t, nil
}
