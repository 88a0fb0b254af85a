package store

import (
	"context"
	"database/sql"
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
	var rows, msgRows int
	if err := s.DB().QueryRow(`SELECT (SELECT count(*) FROM sim_series), (SELECT count(*) FROM sim_series_messages)`).Scan(&rows, &msgRows); err != nil || rows != 3 || msgRows != 2 {
		t.Errorf("%d series rows, %d message rows (%v); want 3, 2", rows, msgRows, err)
	}
	for _, q := range []string{"UPDATE sim_series SET starts = 0", "DELETE FROM sim_series", "UPDATE sim_series_messages SET count = 9", "DELETE FROM sim_series_messages"} {
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
		{"negative count", SimSeries{Interval: 1, Arrivals: []int64{-1}, Starts: one, Ends: one}, "CHECK constraint"},
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
