package koalatarget

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter"
)

// A run on the core records, in each job's started event, the core's
// event, which says how long the job was emulated for and why; the query
// docs/store.md gives reads it.
func TestStartedDetailSaysWhereTheRunTimeCameFrom(t *testing.T) {
	l := startCore(t)
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tg, err := New(Config{Endpoint: l.Endpoint, Token: l.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	res, err := submitter.Run(context.Background(), submitter.Config{WorkloadDir: testkit.WriteWorkload(t, testkit.RunTimeJobs()...),
		Store: st, Target: tg, Settings: submitter.Settings{Workers: 2}})
	if err != nil {
		t.Fatal(err)
	}
	conn, release, err := st.QueryConn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	rows, err := conn.QueryContext(context.Background(), `
SELECT job_id, json_extract(payload, '$.detail.runtime_source') AS source,
       json_extract(payload, '$.detail.runtime_ns') / 1e9 AS runtime_s
FROM events WHERE run_id = ? AND kind = 'started' ORDER BY id;`, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	runTimeWant := testkit.RunTimeWant(t)
	seen := map[string]bool{}
	for rows.Next() {
		var job, source string
		var secs float64
		if err := rows.Scan(&job, &source, &secs); err != nil {
			t.Fatal(err)
		}
		want := runTimeWant[job]
		if d := time.Duration(secs * 1e9); source != want.Source || (d-want.RunTime).Abs() > time.Microsecond {
			t.Errorf("%s: started %v from %q, want %v from %q", job, d, source, want.RunTime, want.Source)
		}
		seen[job] = true
	}
	if err := rows.Err(); err != nil || len(seen) != len(runTimeWant) {
		t.Errorf("started events of %v (%v), want %d", seen, err, len(runTimeWant))
	}
}
