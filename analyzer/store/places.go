package store

import "fmt"

// JobPlace is where a top-level job sits in its workload: the unit that
// made it and its submit offset from the workload's start.
type JobPlace struct {
	JobID    string
	Unit     int
	OffsetNS int64
}

// ScanJobPlaces calls fn for every top-level job row of a run, in job id
// order, with its unit and submit offset (a replay's fidelity report sorts
// a run's jobs by the trace unit they replay, and places them in the
// workload's time).
func (s *Store) ScanJobPlaces(runID string, fn func(JobPlace) error) error {
	rows, err := s.db.Query(`SELECT job_id, unit, offset_ns FROM jobs WHERE run_id = ? AND parent_id = '' ORDER BY job_id`, runID)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p JobPlace
		if err := rows.Scan(&p.JobID, &p.Unit, &p.OffsetNS); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if err := fn(p); err != nil {
			return err
		}
	}
	return rows.Err()
}
