package koalatarget

import (
	"fmt"

	"github.com/gmark/gmark/internal/srcerr"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// CheckFits checks every job that generate gives (every task of a
// composite job) against the grid the bundled core will run (core.Fits),
// before anything is written: a job naming a site the grid lacks, or
// larger than any of its clusters, would be refused at its submission,
// each of them, over the run's whole span. units are the spec's units, by
// id, at their lines. The error is a srcerr.List, one error at the line
// of each unit that makes such jobs, naming its first and how many there
// are; an error of generate is returned as it is.
func CheckFits(g *grid.Grid, gridPath string, generate func(emit func(*workload.Job) error) error, units map[int]srcerr.Pos) error {
	type misfit struct {
		first string
		n     int
	}
	misfits := map[int]*misfit{}
	check := func(j *workload.Job, unit int) {
		if err := core.Fits(g, j); err != nil {
			m := misfits[unit]
			if m == nil {
				m = &misfit{first: fmt.Sprintf("job %s: %v", j.ID, err)}
				misfits[unit] = m
			}
			m.n++
		}
	}
	err := generate(func(j *workload.Job) error {
		if j.Kind != workload.Composite {
			check(j, j.Unit)
		}
		for i := range j.Tasks {
			check(&j.Tasks[i], j.Unit)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var errs srcerr.List
	for id, m := range misfits {
		errs = append(errs, srcerr.Errorf(units[id], "unit %d: %d of its jobs cannot run on grid %s (%s); the first, %s", id, m.n, g.Name, gridPath, m.first))
	}
	errs.Sort()
	return errs.Err()
}
