package record

import (
	"encoding/json"
	"time"
)

// ComponentStart is the value of an AnnotationComponentStart: component
// Component of attempt Attempt of job Job started at StartNS on Site. Every
// target that co-allocates writes one per component it learns started, so
// the report measures co-allocation the same way on every target.
type ComponentStart struct {
	Job       string `json:"job"`
	Attempt   int    `json:"attempt"`
	Component int    `json:"component"` // in the order of the job's components
	Site      string `json:"site,omitempty"`
	// StartNS is when it started, Unix nanoseconds on the clock of the
	// scheduler that started it.
	StartNS int64 `json:"start_ns"`
	// ClockScale is how many times faster than the wall clock that clock
	// runs (the bundled core's time_scale); 0 means 1.
	ClockScale float64 `json:"clock_scale,omitempty"`
	// Clock says, for the report, whose time StartNS is ("Slurm's
	// start_time of the component's Slurm job (whole seconds)").
	Clock string `json:"clock"`
}

// NewComponentStart is the record of component comp of attempt attempt of
// job job, started at start on site, by clock's time.
func NewComponentStart(job string, attempt, comp int, site string, start time.Time, clock string) ComponentStart {
	return ComponentStart{Job: job, Attempt: attempt, Component: comp, Site: site, StartNS: start.UnixNano(), Clock: clock}
}

// Value is the annotation's value: the record as JSON.
func (c ComponentStart) Value() string {
	b, _ := json.Marshal(c)
	return string(b)
}

// Seconds is the start in seconds on a clock at the wall clock's pace
// (origin arbitrary: only differences between the starts of one run mean
// anything).
func (c ComponentStart) Seconds() float64 {
	s := float64(c.StartNS) / 1e9
	if c.ClockScale > 0 {
		s /= c.ClockScale
	}
	return s
}
