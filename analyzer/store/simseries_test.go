package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A run's series is written with its result and read back as written,
// less the message types it has none of; its rows are immutable.
func TestSimSeries(t *testing.T) {
	s, inv := simStore(t, filepath.Join(t.TempDir(), "r.db"))
	defer s.Close()
	ctx := context.Background()
	ser := &SimSeries{Interval: 50, Arrivals: []int64{3, 0, 1}, Starts: []int64{2, 1, 0}, Ends: []int64{0, 2, 1},
		Messages: map[string][]int64{"Negotiate": {4, 0, 2}, "DMM": {0, 0, 0}}}
	err := s.Write(ctx, func(tx *Tx) error {
		return tx.InsertSimResult(SimResult{Digest: "r1", InvocationID: inv, Workload: "{}", Result: "{}", Series: ser})
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.SimResults(1)
	if err != nil {
		t.Fatal(err)
	}
	want := *ser
	want.Messages = map[string][]int64{"Negotiate": {4, 0, 2}}
	if got := res["r1"].Series; got == nil || !reflect.DeepEqual(*got, want) {
		t.Fatalf("read back %+v, want %+v", got, want)
	}
	var bins int
	var arrivals, messages string
	if err := s.DB().QueryRow(`SELECT bins, arrivals, messages FROM sim_series WHERE digest = 'r1'`).Scan(&bins, &arrivals, &messages); err != nil ||
		bins != 3 || arrivals != "[3,0,1]" || messages != `{"Negotiate":[4,0,2]}` {
		t.Errorf("stored %d bins, arrivals %s, messages %s (%v)", bins, arrivals, messages, err)
	}
	for _, q := range []string{"UPDATE sim_series SET starts = '[]'", "DELETE FROM sim_series"} {
		if _, err := s.DB().Exec(q); err == nil || !strings.Contains(err.Error(), "immutable") {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// A bad series is refused, and the result with it: the run is not
// recorded at all.
func TestSimSeriesBad(t *testing.T) {
	s, inv := simStore(t, filepath.Join(t.TempDir(), "r.db"))
	defer s.Close()
	one := []int64{1}
	for _, tc := range []struct {
		name string
		ser  SimSeries
		want string
	}{
		{"interval 0", SimSeries{Arrivals: one, Starts: one, Ends: one}, "interval of 0"},
		{"interval NaN", SimSeries{Interval: math.NaN(), Arrivals: one, Starts: one, Ends: one}, "interval of NaN"},
		{"interval +Inf", SimSeries{Interval: math.Inf(1), Arrivals: one, Starts: one, Ends: one}, "interval of +Inf"},
		{"short starts", SimSeries{Interval: 1, Arrivals: one, Ends: one}, "1 arrival, 0 start and 1 end bins"},
		{"short messages", SimSeries{Interval: 1, Arrivals: one, Starts: one, Ends: one, Messages: map[string][]int64{"DMM": {1, 2}}}, "2 bins of DMM messages"},
		{"too long", SimSeries{Interval: 1, Arrivals: make([]int64, MaxSimSeriesBins+1), Starts: make([]int64, MaxSimSeriesBins+1), Ends: make([]int64, MaxSimSeriesBins+1)}, "at most 10000"},
		{"negative count", SimSeries{Interval: 1, Arrivals: []int64{-1}, Starts: one, Ends: one}, "-1 jobs in a bin"},
		{"negative messages", SimSeries{Interval: 1, Arrivals: one, Starts: one, Ends: one, Messages: map[string][]int64{"DMM": {-2}}}, "-2 DMM messages"},
	} {
		err := s.Write(context.Background(), func(tx *Tx) error {
			return tx.InsertSimResult(SimResult{Digest: "r1", InvocationID: inv, Workload: "{}", Result: "{}", Series: &tc.ser})
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if done, err := s.SimDone([]string{"r1"}); err != nil || done["r1"] {
			t.Errorf("%s: the run is recorded (%v) without its series", tc.name, err)
		}
	}
}

// Every bin count is read back, however few bins: none, one.
func TestSimSeriesFewBins(t *testing.T) {
	for i, ser := range []*SimSeries{
		{Interval: 1, Arrivals: []int64{}, Starts: []int64{}, Ends: []int64{}, Messages: map[string][]int64{}},
		{Interval: 0.5, Arrivals: []int64{7}, Starts: []int64{0}, Ends: []int64{1}, Messages: map[string][]int64{"DMM": {9}}},
	} {
		path := filepath.Join(t.TempDir(), "r.db")
		s2, inv2 := simStore(t, path)
		if err := s2.Write(context.Background(), func(tx *Tx) error {
			return tx.InsertSimResult(SimResult{Digest: "r1", InvocationID: inv2, Workload: "{}", Result: "{}", Series: ser})
		}); err != nil {
			t.Fatal(err)
		}
		res, err := s2.SimResults(1)
		s2.Close()
		if err != nil || !reflect.DeepEqual(res["r1"].Series, ser) {
			t.Errorf("%d: read back %+v (%v), want %+v", i, res["r1"].Series, err, ser)
		}
	}
}

// FuzzSimSeriesRow: a stored series is outside bytes. Whatever a row
// holds, decodeSimSeries returns a series that could have been written (as
// long as its bin count) or ErrDamaged; it never panics.
func FuzzSimSeriesRow(f *testing.F) {
	f.Add(1.0, 2, "[1,2]", "[0,1]", "[1,0]", `{"DMM":[0,3]}`)
	f.Add(5.0, 0, "[]", "[]", "[]", "{}")
	f.Add(0.0, 1, "[1]", "[1]", "[1]", "{}")
	f.Add(1.0, 1, "[-1]", "[1]", "[1]", "null")
	f.Add(1.0, 1, "[1.5]", "[1]", "[1]", `{"x":[1,2]}`)
	f.Add(1.0, 1, "nope", "[1]", "[1]", "{}")
	f.Fuzz(func(t *testing.T, interval float64, bins int, arrivals, starts, ends, messages string) {
		s, err := decodeSimSeries(interval, bins, arrivals, starts, ends, messages)
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("%v: not ErrDamaged", err)
			}
			return
		}
		if len(s.Arrivals) != bins || s.check() != nil {
			t.Fatalf("decoded a series that could not be written: %+v", s)
		}
	})
}

// A store of version 4 (no series) reads its results without series, and
// migrates to the current version when opened for writing, its results
// kept; a run recorded after has its series.
func TestSimSeriesVersion4(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v4.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(strings.Join(migrations[:4], "") + "PRAGMA user_version = 4;" + `
		INSERT INTO sim_experiments (name, digest, created_ns, definition, runs) VALUES ('e', 'd', 1, '{}', 2);
		INSERT INTO sim_scenarios (experiment_id, idx, name, definition) VALUES (1, 0, 's', '{}');
		INSERT INTO sim_runs VALUES (1, 0, 1, 'dmm', 50, 1, 1, 'old', '{}'), (1, 1, 1, 'dmm', 50, 2, 2, 'new', '{}');
		INSERT INTO sim_invocations (experiment_id, started_ns, gmark_version, gmark_revision, go_version, host, os_arch, user, command_line, working_dir, parallel)
			VALUES (1, 1, 'v', '', 'go', 'h', 'linux/amd64', 'u', '[]', '/', 1);
		INSERT INTO sim_results VALUES ('old', 1, 1, 1, 10, 10, 0.5, 1, 2, 1, 10, 0, 100, 0, 20, '{}', '{}');`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ro.SimResults(1)
	ro.Close()
	if err != nil || len(res) != 1 || res["old"].Series != nil {
		t.Fatalf("read-only version 4: %+v %v", res, err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(); v != SchemaVersion || v < 5 {
		t.Fatalf("version %d after migration", v)
	}
	ser := &SimSeries{Interval: 1, Arrivals: []int64{1}, Starts: []int64{1}, Ends: []int64{0}, Messages: map[string][]int64{}}
	if err := s.Write(context.Background(), func(tx *Tx) error {
		return tx.InsertSimResult(SimResult{Digest: "new", InvocationID: 1, Workload: "{}", Result: "{}", Series: ser})
	}); err != nil {
		t.Fatal(err)
	}
	res, err = s.SimResults(1)
	if err != nil || len(res) != 2 || res["old"].Series != nil || !reflect.DeepEqual(res["new"].Series, ser) {
		t.Fatalf("after migration: %+v %v", res, err)
	}
}
