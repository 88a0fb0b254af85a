package koalatarget

import (
	"fmt"

	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// CheckFits generates the workload of spec with gen, writing nothing, and
// checks every job (every task of a composite job) against the grid the
// bundled core will run (core.Fits): a job naming a site the grid lacks,
// or larger than any of its clusters, would be refused at its submission,
// each of them, over the run's whole span. The error is a wdl.ErrorList,
// one error at the line of each unit that makes such jobs, naming its
// first and how many there are.
func CheckFits(g *grid.Grid, gridPath string, spec *wdl.Spec, gen *generator.Generator) error {
	type unitMisfit struct {
		first string
		n     int
	}
	misfits := map[int]*unitMisfit{}
	check := func(j *workload.Job, id string, unit int) {
		if err := core.Fits(g, j); err != nil {
			m := misfits[unit]
			if m == nil {
				m = &unitMisfit{first: fmt.Sprintf("job %s: %v", id, err)}
				misfits[unit] = m
			}
			m.n++
		}
	}
	_, err := gen.Generate(func(j *workload.Job) error {
		if j.Kind == workload.Composite {
			for i := range j.Tasks {
				check(&j.Tasks[i], j.Tasks[i].ID, j.Unit)
			}
			return nil
		}
		check(j, j.ID, j.Unit)
		return nil
	})
	if err != nil {
		return err
	}
	var errs wdl.ErrorList
	for _, u := range spec.Units {
		if m := misfits[u.ID]; m != nil {
			errs = append(errs, wdl.Errorf(u.Pos, "unit %d: %d of its jobs cannot run on grid %s (%s); the first, %s",
				u.ID, m.n, g.Name, gridPath, m.first))
		}
	}
	return errs.Err()
}
