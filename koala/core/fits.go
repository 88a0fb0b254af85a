package core

import (
	"fmt"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/placement"
	"github.com/gmark/gmark/workload"
)

// Fits tells why the grid g can never run the unitary job j (nil when it
// can): a component on a site the grid lacks, or larger than its site; a
// component of a job that is not flexible larger than every cluster; the
// job larger than the grid. Submit refuses such a job, and 'gmark run'
// refuses a workload that holds one before it starts (a cluster whose
// processors are not known yet, a Slurm cluster's before its controller
// is asked, counts as fitting).
//
// It builds nothing for a job that fits (the core asks it of every job it
// is given: a simulation's hundreds of thousands).
func Fits(g *grid.Grid, j *workload.Job) error {
	largest, known := 0, true
	for _, cl := range g.Clusters {
		largest = max(largest, cl.Processors)
		known = known && cl.Processors > 0
	}
	total := 0
	for _, comp := range j.Components {
		total += comp.Count
		if comp.Site != workload.AnySite {
			n, ok := siteProcessors(g, comp.Site)
			if !ok {
				var names []string
				for _, cl := range g.Clusters {
					names = append(names, cl.Name)
				}
				return fmt.Errorf("component on unknown site %q (sites: %v)", comp.Site, names)
			}
			if n > 0 && comp.Count > n {
				return fmt.Errorf("a component of %d processors cannot fit site %s (%d processors)", comp.Count, comp.Site, n)
			}
		}
	}
	if !known {
		return nil
	}
	if j.SiteType != workload.Flexible {
		for _, comp := range j.Components {
			if comp.Site == workload.AnySite && comp.Count > largest {
				return fmt.Errorf("a component of %d processors fits no site (the largest has %d)", comp.Count, largest)
			}
		}
	}
	if total > g.TotalProcessors() {
		return fmt.Errorf("the job asks for %d processors; the grid has %d", total, g.TotalProcessors())
	}
	return nil
}

// siteProcessors is the processors of the grid's cluster named site (the
// first of that name, as a map of them held the last).
func siteProcessors(g *grid.Grid, site string) (int, bool) {
	for i := len(g.Clusters) - 1; i >= 0; i-- {
		if g.Clusters[i].Name == site {
			return g.Clusters[i].Processors, true
		}
	}
	return 0, false
}

// CheckOptions checks the placement policy, priority and runner a run
// gives every job ("" is the core's default): the core refuses a job that
// names an unknown one.
func CheckOptions(policy, priority, runner string) error {
	if policy != "" {
		if _, err := placement.New(policy, nil); err != nil {
			return err
		}
	}
	if priority != "" {
		if _, err := ParsePriority(priority); err != nil {
			return err
		}
	}
	if runner != "" {
		if _, err := ParseRunner(runner); err != nil {
			return err
		}
	}
	return nil
}
