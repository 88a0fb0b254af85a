package store

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// simFactsSQL reads a run's figures as ScanSimJobFacts read them before
// it parsed the payloads itself: every figure by json_extract.
func simFactsSQL(s *Store, runID string) ([]SimJobFacts, error) {
	rows, err := s.db.Query(`SELECT job_id,
		COALESCE(json_extract(payload, '$.placement_ns'), 0), COALESCE(json_extract(payload, '$.ftt_ns'), 0),
		COALESCE(json_extract(payload, '$.placement_tries'), 0), COALESCE(json_extract(payload, '$.claim_tries'), 0),
		COALESCE(json_extract(payload, '$.restarts'), 0)
		FROM events WHERE run_id = ? AND job_id <> '' AND kind IN ('started', 'failed', 'cancelled')
		AND json_extract(payload, '$.claim_tries') IS NOT NULL ORDER BY id`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SimJobFacts
	for rows.Next() {
		var f SimJobFacts
		if err := rows.Scan(&f.JobID, &f.PlacementNS, &f.FTTNS, &f.PlacementTries, &f.ClaimTries, &f.Restarts); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

func simFacts(s *Store, runID string) ([]SimJobFacts, error) {
	var out []SimJobFacts
	err := s.ScanSimJobFacts(runID, func(f SimJobFacts) error {
		out = append(out, f)
		return nil
	})
	return out, err
}

// addSimEvents adds a run (a copy of r1) with one event per payload, of
// kind started, jobs j0, j1, …
func addSimEvents(t testing.TB, s *Store, runID string, payloads ...string) {
	t.Helper()
	if _, err := s.DB().Exec(`INSERT INTO runs SELECT ?, scenario_id, created_ns, workload_dir, workload_sha256, jobs, tasks,
		target, settings, provenance_sha256 FROM runs WHERE id = 'r1'`, runID); err != nil {
		t.Fatal(err)
	}
	for i, p := range payloads {
		if _, err := s.DB().Exec(`INSERT INTO events (run_id, job_id, attempt, time_ns, kind, payload) VALUES (?, ?, 1, 1, 'started', ?)`,
			runID, fmt.Sprintf("j%d", i), p); err != nil {
			t.Fatal(err)
		}
	}
}

const goodSimPayload = `{"claim_tries":2,"end_ns":946686600775000000,"ftt_ns":7,"placement_ns":1500000000,"placement_tries":3,"reason":"","restarts":1,"runtime_source":"job","start_ns":946686600000000000}`

// TestScanSimJobFacts: the figures read from the payloads are those
// json_extract reads, for the payloads gmark writes and for those it does
// not (where the reader hands over to json_extract).
func TestScanSimJobFacts(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	cases := []struct {
		name     string
		payloads []string
		want     int // events with figures
	}{
		{"none", nil, 0},
		{"one", []string{goodSimPayload}, 1},
		{"no figures", []string{`{}`, `{"reason":"x"}`}, 0},
		{"claim_tries null", []string{`{"claim_tries":null,"restarts":2}`}, 0},
		{"only claim_tries", []string{`{"claim_tries":0}`}, 1},
		{"booleans", []string{`{"claim_tries":true,"restarts":false}`}, 1},
		{"first key wins", []string{`{"claim_tries":1,"claim_tries":5,"restarts":2,"restarts":null}`}, 1},
		{"nested and spaced", []string{` { "x" : [1, {"claim_tries": 9}, "a\"b\\u00e9"], "claim_tries" : -4 , "ftt_ns":-9223372036854775808 } `}, 1},
		{"in a nested object only", []string{`{"detail":{"claim_tries":3}}`}, 0},
		{"a real number, then good ones", []string{goodSimPayload, `{"claim_tries":2.0}`, goodSimPayload}, 3},
		{"JSON5, then a good one", []string{`{claim_tries: 3, restarts: 0x10,}`, goodSimPayload}, 2},
		{"max int64", []string{`{"claim_tries":1,"placement_ns":9223372036854775807}`}, 1},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := fmt.Sprintf("sp%d", i)
			addSimEvents(t, s, run, c.payloads...)
			want, werr := simFactsSQL(s, run)
			got, err := simFacts(s, run)
			if werr != nil || err != nil {
				t.Fatalf("errors: json_extract %v, ScanSimJobFacts %v", werr, err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("ScanSimJobFacts read\n%+v\njson_extract\n%+v", got, want)
			}
			if len(got) != c.want {
				t.Fatalf("%d events with figures, want %d", len(got), c.want)
			}
		})
	}
	if _, err := simFacts(s, "no-such-run"); err != nil {
		t.Fatal(err)
	}
}

// TestParseSimPayload: malformed objects are refused, never read.
func TestParseSimPayload(t *testing.T) {
	for _, p := range []string{``, `[]`, `1`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":01}`, `{"a":1}x`, `{"a":"\x01"}`,
		`{"a":"\q"}`, `{"a":"\u12"}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":tru}`, `{"claim_tries":"3"}`,
		`{"claim_tries":99999999999999999999}`, strings.Repeat("[", 2000)} {
		if _, err := parseSimPayload([]byte(p)); err == nil {
			t.Errorf("%q: no error", p)
		}
	}
	v, err := parseSimPayload([]byte(goodSimPayload))
	if err != nil || v.v != [5]int64{1500000000, 7, 3, 2, 1} || v.set != [5]bool{true, true, true, true, true} {
		t.Fatalf("%+v %v", v, err)
	}
}

// FuzzScanSimJobFacts: whatever an event's payload holds, ScanSimJobFacts
// reads the figures json_extract reads, or both fail. The one difference
// allowed is documented: a payload whose claim_tries key is spelled with
// escapes is not read.
func FuzzScanSimJobFacts(f *testing.F) {
	for _, p := range []string{goodSimPayload, `{"claim_tries":1,"claim_tries":null}`, `{claim_tries:1}`, `{"claim_tries":1e2}`,
		`{"claim_tries":[1],"restarts":{"a":[]}}`, `{"claim_tries":"x"}`} {
		f.Add(p)
	}
	s := openTemp(f)
	seed(f, s)
	var runs atomic.Int64
	f.Fuzz(func(t *testing.T, payload string) {
		if !strings.Contains(payload, "claim_tries") {
			return
		}
		run := fmt.Sprintf("f%d", runs.Add(1))
		addSimEvents(t, s, run, payload, goodSimPayload)
		want, werr := simFactsSQL(s, run)
		got, err := simFacts(s, run)
		if (werr == nil) != (err == nil) {
			t.Fatalf("json_extract: %v; ScanSimJobFacts: %v", werr, err)
		}
		if err == nil && !slices.Equal(got, want) {
			t.Fatalf("ScanSimJobFacts read\n%+v\njson_extract\n%+v", got, want)
		}
	})
}
