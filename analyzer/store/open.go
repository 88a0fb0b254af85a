package store

import "database/sql"

// OpenRecords are the records of a run that a resume works from: those of
// the jobs and tasks that have no final row yet, the rows of the tasks of
// composite jobs that have none, and the run's schedule events. Records of
// finished jobs are not read, so a resume's memory grows with what was in
// flight, not with what the run had done (ScanFinalTops lists the ids of
// the finished top-level jobs).
type OpenRecords struct {
	Submissions []Submission // of jobs and tasks without a row, in the order made
	Results     []Result     // of those submissions, in the order recorded
	TaskRows    []Job        // rows of the tasks of composite jobs without a row
	Events      []Event      // of jobs and tasks without a row, and the run's run-start and run-resume events, in order
}

// noRow is true of a record (alias x) whose job has no final row.
const noRow = `NOT EXISTS (SELECT 1 FROM jobs j WHERE j.run_id = x.run_id AND j.job_id = x.job_id)`

// OpenRecords reads the records of run runID that a resume needs.
func (s *Store) OpenRecords(runID string) (OpenRecords, error) {
	var o OpenRecords
	err := s.queryEach(`SELECT key, run_id, job_id, parent_id, attempt, scheduled_ns, intent_ns
		FROM submissions x WHERE run_id = ? AND `+noRow+` ORDER BY rowid`, runID, func(rows *sql.Rows) error {
		var x Submission
		err := rows.Scan(&x.Key, &x.RunID, &x.JobID, &x.ParentID, &x.Attempt, &x.ScheduledNS, &x.IntentNS)
		o.Submissions = append(o.Submissions, x)
		return err
	})
	if err != nil {
		return o, err
	}
	err = s.queryEach(`SELECT r.key, r.run_id, r.ok, r.submit_ns, r.delay_ns, r.done_ns, r.target_id, r.output, r.exit_status,
		r.tries, r.error, r.recovered FROM submission_results r JOIN submissions x ON x.key = r.key
		WHERE r.run_id = ? AND `+noRow+` ORDER BY r.rowid`, runID, func(rows *sql.Rows) error {
		x, err := scanResult(rows)
		o.Results = append(o.Results, x)
		return err
	})
	if err != nil {
		return o, err
	}
	err = s.queryEach(`SELECT `+jobColumns+` FROM jobs WHERE run_id = ? AND parent_id != ''
		AND NOT EXISTS (SELECT 1 FROM jobs p WHERE p.run_id = jobs.run_id AND p.job_id = jobs.parent_id) ORDER BY rowid`,
		runID, func(rows *sql.Rows) error {
			j, err := scanJob(rows)
			o.TaskRows = append(o.TaskRows, j)
			return err
		})
	if err != nil {
		return o, err
	}
	err = s.queryEach(`SELECT id, run_id, job_id, attempt, time_ns, kind, payload FROM events x WHERE run_id = ?
		AND (job_id = '' AND kind IN ('run-start', 'run-resume') OR job_id != '' AND `+noRow+`) ORDER BY id`,
		runID, func(rows *sql.Rows) error {
			var e Event
			err := rows.Scan(&e.ID, &e.RunID, &e.JobID, &e.Attempt, &e.TimeNS, &e.Kind, &e.Payload)
			o.Events = append(o.Events, e)
			return err
		})
	return o, err
}

// ScanFinalTops calls fn with the id of each top-level job of run runID
// that has a final row.
func (s *Store) ScanFinalTops(runID string, fn func(jobID string) error) error {
	return s.queryEach(`SELECT job_id FROM jobs WHERE run_id = ? AND parent_id = ''`, runID, func(rows *sql.Rows) error {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		return fn(id)
	})
}

// queryEach runs q with one argument and calls fn on each row.
func (s *Store) queryEach(q string, arg any, fn func(*sql.Rows) error) error {
	rows, err := s.db.Query(q, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func scanResult(rows *sql.Rows) (Result, error) {
	var x Result
	var ok, rec int
	var submit, delay, exit sql.NullInt64
	err := rows.Scan(&x.Key, &x.RunID, &ok, &submit, &delay, &x.DoneNS, &x.TargetID, &x.Output, &exit, &x.Tries, &x.Error, &rec)
	x.OK, x.Recovered = ok == 1, rec == 1
	x.SubmitNS, x.DelayNS, x.ExitStatus = fromNull(submit), fromNull(delay), ptrFromNull(exit)
	return x, err
}
