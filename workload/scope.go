package workload

// PlacementScope counts what a workload leaves a scheduler's placement
// policy to decide: a workload whose components are all pinned to sites, or
// whose jobs read no input files, gives Worst-Fit and Close-to-Files nothing
// to tell them apart, and a comparison of the two shows no difference.
// koala/placement.NothingToActOn reads it; the manifest records it, so a
// report over the results store can tell too. The jobs counted are those a
// scheduler places: unitary jobs and the tasks of composite ones.
type PlacementScope struct {
	Jobs int `json:"jobs"`
	// Free jobs leave the scheduler a site to choose: a component on no
	// fixed site (AnySite), or a flexible job.
	Free int `json:"free"`
	// Flexible jobs give only their total (every policy splits them alike).
	Flexible int `json:"flexible"`
	// Spread counts the free jobs, not flexible, with two or more components
	// on no fixed site; Files those that read input files.
	Spread int `json:"spread"`
	Files  int `json:"files"`
}

// Add counts j (a composite job by its tasks).
func (s *PlacementScope) Add(j *Job) {
	if j.Kind == Composite {
		for i := range j.Tasks {
			s.Add(&j.Tasks[i])
		}
		return
	}
	s.Jobs++
	if j.SiteType == Flexible {
		s.Free++
		s.Flexible++
		return
	}
	free := 0
	for _, c := range j.Components {
		if c.Site == AnySite {
			free++
		}
	}
	if free == 0 {
		return
	}
	s.Free++
	if free > 1 {
		s.Spread++
	}
	if len(j.Files) > 0 {
		s.Files++
	}
}
