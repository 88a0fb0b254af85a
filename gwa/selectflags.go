package gwa

import (
	"fmt"
	"math"
)

// SelectionFlags are the options of a selection as a command line gives
// them ('gmark trace select'): text still to parse, and the bounds given.
// Selection parses them, each error naming its flag.
type SelectionFlags struct {
	From, To               string // submit offsets; "" not given
	MinRunTime, MaxRunTime string // "" not given
	MinProcs, MaxProcs     *int   // nil not given
	First                  int64
	Sites, Users, Status   []string
	AreaWidth              string   // "" no area
	Targets                []string // CHAR:VALUE or CHAR:pP
	SubmitScale            float64
	RunTimeScale           float64
	ProcScale              float64
	Rebase                 bool
}

// Selection parses the flags into a Selection.
func (f SelectionFlags) Selection() (Selection, error) {
	var s Selection
	if err := f.filter(&s.Filter); err != nil {
		return s, err
	}
	if f.AreaWidth != "" {
		d, err := ParseDurationSeconds(f.AreaWidth)
		if err != nil || d <= 0 {
			return s, fmt.Errorf("--area-width %q must be a duration > 0, e.g. 3h", f.AreaWidth)
		}
		s.AreaWidth, s.Rebase = d, true
	}
	for _, t := range f.Targets {
		tg, err := ParseTarget(t)
		if err != nil {
			return s, err
		}
		s.AreaTargets = append(s.AreaTargets, tg)
	}
	if len(s.AreaTargets) > 0 && s.AreaWidth == 0 {
		return s, fmt.Errorf("--target needs --area-width")
	}
	for _, sc := range []struct {
		name string
		v    float64
	}{{"submit-scale", f.SubmitScale}, {"runtime-scale", f.RunTimeScale}, {"proc-scale", f.ProcScale}} {
		if !(sc.v > 0) || math.IsInf(sc.v, 0) {
			return s, fmt.Errorf("--%s must be a finite number > 0", sc.name)
		}
	}
	s.Scale = Scale{Submit: f.SubmitScale, RunTime: f.RunTimeScale, Procs: f.ProcScale}
	s.Rebase = s.Rebase || f.Rebase
	return s, nil
}

// filter parses the filters: time bounds, sizes, first N, sites, users
// and statuses.
func (f SelectionFlags) filter(flt *Filter) error {
	for _, x := range []struct {
		name, v string
		r       *Range
		min     bool
	}{{"from", f.From, &flt.Submit, true}, {"to", f.To, &flt.Submit, false},
		{"min-runtime", f.MinRunTime, &flt.RunTime, true}, {"max-runtime", f.MaxRunTime, &flt.RunTime, false}} {
		if x.v == "" {
			continue
		}
		d, err := ParseDurationSeconds(x.v)
		if err != nil {
			return fmt.Errorf("--%s: %v", x.name, err)
		}
		if x.min {
			x.r.Min, x.r.HasMin = d, true
		} else {
			x.r.Max, x.r.HasMax = d, true
		}
	}
	if f.MinProcs != nil {
		flt.Procs.Min, flt.Procs.HasMin = float64(*f.MinProcs), true
	}
	if f.MaxProcs != nil {
		flt.Procs.Max, flt.Procs.HasMax = float64(*f.MaxProcs), true
	}
	if f.First < 0 {
		return fmt.Errorf("--first must be >= 0")
	}
	flt.FirstN, flt.Sites, flt.Users = f.First, f.Sites, f.Users
	for _, st := range f.Status {
		v, err := ParseStatus(st)
		if err != nil {
			return err
		}
		flt.Status = append(flt.Status, v...)
	}
	return nil
}
