package grid

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Overrides are the command line's settings over a grid file's scheduler
// section ('gmark koala serve --policy', 'gmark run --speedup'); nil
// leaves the file's.
type Overrides struct {
	Policy       *string
	TimeScale    *float64
	ScanInterval *time.Duration
	Execution    *string // emulated or process
}

// Apply sets the overrides and checks the grid again, so that they meet
// the grid file's ranges too.
func (g *Grid) Apply(o Overrides) error {
	if o.Policy != nil {
		g.Scheduler.Policy = *o.Policy
	}
	if o.TimeScale != nil {
		if !(*o.TimeScale > 0) {
			return errors.New("--time-scale must be > 0")
		}
		g.Scheduler.TimeScale = *o.TimeScale
	}
	if o.ScanInterval != nil {
		if *o.ScanInterval <= 0 {
			return errors.New("--scan-interval must be > 0")
		}
		g.Scheduler.ScanInterval.Duration = *o.ScanInterval
	}
	if o.Execution != nil {
		if *o.Execution != "emulated" && *o.Execution != "process" {
			return errors.New("--execution must be emulated or process")
		}
		g.Scheduler.Execution = *o.Execution
	}
	if err := g.Check(); err != nil {
		return fmt.Errorf("with the command line's settings: %v", err)
	}
	return nil
}

// Params are the scheduler's settings as the grid file names them (its
// TOML keys), every one of them, with the defaults filled in: what a run's
// provenance records as the parameters in force. Durations are written as
// in the file ("1m0s"), sizes in bytes.
func (s Scheduler) Params() map[string]any {
	out := map[string]any{}
	v := reflect.ValueOf(s)
	for i := 0; i < v.NumField(); i++ {
		key, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("toml"), ",")
		if key == "" {
			continue
		}
		f := v.Field(i)
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				out[key] = nil
				continue
			}
			f = f.Elem()
		}
		switch x := f.Interface().(type) {
		case Duration:
			out[key] = x.String()
		case Size:
			out[key] = int64(x)
		default:
			out[key] = x
		}
	}
	return out
}
