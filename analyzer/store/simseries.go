package store

import (
	"encoding/json"
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
		return fmt.Errorf("a series interval of %g s", s.Interval)
	case n > MaxSimSeriesBins:
		return fmt.Errorf("a series of %d bins: at most %d", n, MaxSimSeriesBins)
	case len(s.Starts) != n || len(s.Ends) != n:
		return fmt.Errorf("a series of %d arrival, %d start and %d end bins", n, len(s.Starts), len(s.Ends))
	}
	for _, t := range slices.Sorted(maps.Keys(s.Messages)) {
		v := s.Messages[t]
		if len(v) != n {
			return fmt.Errorf("a series with %d bins of %s messages and %d of arrivals", len(v), t, n)
		}
		for _, c := range v {
			if c < 0 {
				return fmt.Errorf("a series with %d %s messages in a bin", c, t)
			}
		}
	}
	for _, v := range [][]int64{s.Arrivals, s.Starts, s.Ends} {
		for _, c := range v {
			if c < 0 {
				return fmt.Errorf("a series with %d jobs in a bin", c)
			}
		}
	}
	return nil
}

// insertSimSeries writes a run's series: one row, its counts as JSON
// arrays, the message types with no message left out.
func (t *Tx) insertSimSeries(digest string, s *SimSeries) error {
	if err := s.check(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	msgs := map[string][]int64{}
	for typ, v := range s.Messages {
		if slices.ContainsFunc(v, func(c int64) bool { return c != 0 }) {
			msgs[typ] = v
		}
	}
	var cols [4][]byte
	for i, v := range []any{nonNil(s.Arrivals), nonNil(s.Starts), nonNil(s.Ends), msgs} {
		cols[i], _ = json.Marshal(v) // integers: cannot fail
	}
	_, err := t.exec("sim_series", digest, s.Interval, len(s.Arrivals), string(cols[0]), string(cols[1]), string(cols[2]), string(cols[3]))
	return err
}

func nonNil(v []int64) []int64 {
	if v == nil {
		return []int64{}
	}
	return v
}

// decodeSimSeries reads a stored series row; a row the writer could not
// have written (SQLite takes anything in a column) is ErrDamaged.
func decodeSimSeries(interval float64, bins int, arrivals, starts, ends, messages string) (*SimSeries, error) {
	s := &SimSeries{Interval: interval}
	for _, c := range []struct {
		text string
		into any
	}{{arrivals, &s.Arrivals}, {starts, &s.Starts}, {ends, &s.Ends}, {messages, &s.Messages}} {
		if err := json.Unmarshal([]byte(c.text), c.into); err != nil {
			return nil, fmt.Errorf("%w: a series: %v", ErrDamaged, err)
		}
	}
	if s.Messages == nil {
		s.Messages = map[string][]int64{}
	}
	if s.Arrivals == nil {
		s.Arrivals = []int64{}
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	if len(s.Arrivals) != bins {
		return nil, fmt.Errorf("%w: a series of %d bins with %d", ErrDamaged, bins, len(s.Arrivals))
	}
	return s, nil
}

// simSeries reads the series of an experiment's runs that have one, by
// digest; none from a store before version 5. A message type is in a
// series' Messages when one bin has one; the caller knows the others.
func (s *Store) simSeries(experimentID int64) (map[string]*SimSeries, error) {
	out := map[string]*SimSeries{}
	if s.version < 5 {
		return out, nil
	}
	rows, err := s.db.Query(`SELECT digest, interval_s, bins, arrivals, starts, ends, messages FROM sim_series
		WHERE digest IN (SELECT digest FROM sim_runs WHERE experiment_id = ?)`, experimentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var d, a, st, e, m string
		var interval float64
		var bins int
		if err := rows.Scan(&d, &interval, &bins, &a, &st, &e, &m); err != nil {
			return nil, err
		}
		ser, err := decodeSimSeries(interval, bins, a, st, e, m)
		if err != nil {
			return nil, fmt.Errorf("the run %s: %w", d, err)
		}
		out[d] = ser
	}
	return out, rows.Err()
}
