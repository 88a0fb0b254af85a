package core

import (
	"fmt"
	"time"
)

// The core's own tests drive it with this loop, the simplest stepping of
// NextEvent and Advance: the tests of this package cannot import package
// sim (it imports this one), whose engine runs the core everywhere else
// ('gmark koala simulate', 'gmark sim': central's "core" model).

// Simulate drives the core in simulated time: it submits each arrival at its
// time (arrivals must be in time order) and jumps from event to event until
// every submitted job has ended, or until the deadline. It returns the
// submission errors, one per refused job.
func (c *Core) Simulate(arrivals []Arrival, deadline time.Time) []error {
	var errs []error
	i := 0
	for {
		if i == len(arrivals) && c.Active() == 0 {
			return errs
		}
		next, ok := c.NextEvent()
		if i < len(arrivals) && (!ok || !arrivals[i].At.After(next)) {
			next, ok = arrivals[i].At, true
		}
		if !ok || next.After(deadline) {
			c.Advance(deadline)
			return errs
		}
		c.Advance(next)
		for i < len(arrivals) && !arrivals[i].At.After(c.now) {
			if _, err := c.Submit(arrivals[i].Job, arrivals[i].Opts); err != nil {
				errs = append(errs, fmt.Errorf("job %s: %v", arrivals[i].Job.ID, err))
			}
			i++
		}
	}
}
