package store

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// SimSeries is a run's operational time series (schema version 5): per
// interval of virtual time from 0, bin i covering [i·Interval,
// (i+1)·Interval), the jobs that arrived, started and ended, and the
// messages sent by type.
type SimSeries struct {
	Interval float64            `json:"interval_s"`
	Arrivals []int64            `json:"arrivals"`
	Starts   []int64            `json:"starts"`
	Ends     []int64            `json:"ends"`
	Messages map[string][]int64 `json:"messages"` // by type; every slice as long as Arrivals
}

// MaxSimSeriesBins is the most bins a stored series may have.
const MaxSimSeriesBins = 10_000

func (s *SimSeries) check() error {
	n := len(s.Arrivals)
	switch {
	case !(s.Interval > 0) || math.IsInf(s.Interval, 0):
		return fmt.Errorf("store: a series interval of %g s", s.Interval)
	case n > MaxSimSeriesBins:
		return fmt.Errorf("store: a series of %d bins: at most %d", n, MaxSimSeriesBins)
	case len(s.Starts) != n || len(s.Ends) != n:
		return fmt.Errorf("store: a series of %d arrival, %d start and %d end bins", n, len(s.Starts), len(s.Ends))
	}
	for t, v := range s.Messages {
		if len(v) != n {
			return fmt.Errorf("store: a series with %d bins of %s messages and %d of arrivals", len(v), t, n)
		}
	}
	return nil
}

// insertSimSeries writes a run's series: a row per bin, and a row per bin
// and message type with messages (none for a count of 0).
func (t *Tx) insertSimSeries(digest string, s *SimSeries) error {
	if err := s.check(); err != nil {
		return err
	}
	for i := range s.Arrivals {
		if _, err := t.exec("sim_series", digest, i, float64(i)*s.Interval, s.Interval, s.Arrivals[i], s.Starts[i], s.Ends[i]); err != nil {
			return err
		}
	}
	for _, typ := range slices.Sorted(maps.Keys(s.Messages)) {
		for i, n := range s.Messages[typ] {
			if n == 0 {
				continue
			}
			if _, err := t.exec("sim_series_message", digest, i, typ, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// simSeries reads the series of an experiment's runs that have one, by
// digest; none from a store before version 5. A message type is in a
// series' Messages when one bin has one; the caller knows the others.
func (s *Store) simSeries(experimentID int64) (map[string]*SimSeries, error) {
	out := map[string]*SimSeries{}
	if s.version < 5 {
		return out, nil
	}
	rows, err := s.db.Query(`SELECT digest, bin, interval_s, arrivals, starts, ends FROM sim_series
		WHERE digest IN (SELECT digest FROM sim_runs WHERE experiment_id = ?) ORDER BY digest, bin`, experimentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var d string
		var bin int
		var interval float64
		var a, st, e int64
		if err := rows.Scan(&d, &bin, &interval, &a, &st, &e); err != nil {
			return nil, err
		}
		ser := out[d]
		if ser == nil {
			ser = &SimSeries{Interval: interval, Messages: map[string][]int64{}}
			out[d] = ser
		}
		if bin != len(ser.Arrivals) || interval != ser.Interval {
			return nil, fmt.Errorf("%w: the series of run %s has bin %d (of %g s) after %d bins of %g s", ErrDamaged, d, bin, interval, len(ser.Arrivals), ser.Interval)
		}
		ser.Arrivals, ser.Starts, ser.Ends = append(ser.Arrivals, a), append(ser.Starts, st), append(ser.Ends, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	return out, s.simSeriesMessages(experimentID, out)
}

func (s *Store) simSeriesMessages(experimentID int64, series map[string]*SimSeries) error {
	rows, err := s.db.Query(`SELECT digest, bin, type, count FROM sim_series_messages
		WHERE digest IN (SELECT digest FROM sim_runs WHERE experiment_id = ?) ORDER BY digest, type, bin`, experimentID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var d, typ string
		var bin int
		var n int64
		if err := rows.Scan(&d, &bin, &typ, &n); err != nil {
			return err
		}
		ser := series[d]
		if ser == nil || bin < 0 || bin >= len(ser.Arrivals) {
			return fmt.Errorf("%w: %s messages of run %s in bin %d, which its series lacks", ErrDamaged, typ, d, bin)
		}
		if ser.Messages[typ] == nil {
			ser.Messages[typ] = make([]int64, len(ser.Arrivals))
		}
		ser.Messages[typ][bin] = n
	}
	return rows.Err()
}
