package core

import (
	"fmt"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// Arrival is a job to submit at a time.
type Arrival struct {
	At   time.Time
	Job  workload.Job
	Opts Options
}

// SubmitLocalJob puts a local user's job on a cluster's queue: a way to
// create background load by hand (tests, the API's admin calls).
func (c *Core) SubmitLocalJob(name string, size int, runtime time.Duration) error {
	cl, ok := c.byName[name]
	if !ok {
		return fmt.Errorf("unknown cluster %q", name)
	}
	if cl.ctl != nil {
		return fmt.Errorf("cluster %s is a Slurm cluster: its local jobs are the controller's (submit them with sbatch)", name)
	}
	if size < 1 || size > cl.cfg.Processors {
		return fmt.Errorf("a local job on %s needs 1..%d processors, not %d", name, cl.cfg.Processors, size)
	}
	if runtime < MinWallTime || runtime > grid.LongestRun {
		return fmt.Errorf("a local job's runtime must be in [%v, %v], not %v", MinWallTime, grid.LongestRun, runtime)
	}
	c.submitLocal(cl, size, runtime)
	return nil
}
