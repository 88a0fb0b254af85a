package core

// A job's outputs (workload.Job.Outputs: a workflow task's files) are
// held, once it has finished, at the sites it ran on: the replicas of the
// grid file's [[file]] tables and these together are what placement sees,
// so a task that reads a file its predecessor wrote can be placed where
// the file is (Close-to-Files) or pays its transfer from there.

// produce records the outputs of a job that finished at its sites.
func (c *Core) produce(j *Job) { c.produceAt(j, j.Sites()) }

// produceAt records the outputs of a job that finished at sites; a site
// the grid does not have (a restored job's, the grid file changed since)
// is left out.
func (c *Core) produceAt(j *Job, sites []string) {
	if len(j.Spec.Outputs) == 0 || len(sites) == 0 {
		return
	}
	if c.produced == nil {
		c.produced = map[string][]string{}
	}
	for _, f := range j.Spec.Outputs {
		for _, s := range sites {
			if _, ok := c.grid.Cluster(s); !ok {
				continue
			}
			if !containsSite(c.produced[f.Name], s) && !containsSite(c.grid.Replicas(f.Name), s) {
				c.produced[f.Name] = append(c.produced[f.Name], s)
			}
		}
	}
	c.infoGen++ // files appeared: reasons found without them are stale
}

// replicas are the sites holding a file: the grid's, then those jobs
// wrote it at.
func (c *Core) replicas(name string) []string {
	base := c.grid.Replicas(name)
	extra := c.produced[name]
	if len(extra) == 0 {
		return base
	}
	return append(base[:len(base):len(base)], extra...)
}

func containsSite(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
