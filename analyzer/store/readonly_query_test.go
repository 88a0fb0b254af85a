package store

import (
	"context"
	"testing"
)

// SQL from outside runs on a connection where SQLite compiles reads only:
// no statement, pragma or trick in a multi-statement text writes.
func TestQueryConnRefusesWrites(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	tests := []struct {
		sql     string
		allowed bool
	}{
		{"SELECT count(*) FROM jobs", true},
		{"WITH x(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM x WHERE n < 3) SELECT * FROM x", true},
		{"PRAGMA table_info(jobs)", true},
		{"SELECT * FROM pragma_table_info('jobs')", true},
		{"PRAGMA user_version", true},
		{"PRAGMA user_version = 99", false},
		{"PRAGMA query_only = 0", false},
		{"PRAGMA wal_checkpoint", false},
		{"PRAGMA writable_schema = 1", false},
		{"SELECT 1; PRAGMA query_only(0); DELETE FROM runs", false},
		{"DELETE FROM runs", false},
		{"INSERT INTO annotations SELECT * FROM annotations", false},
		{"CREATE TEMP TABLE t(x)", false},
		{"ATTACH DATABASE ':memory:' AS m", false},
		{"DROP TABLE runs", false},
		{"VACUUM", false},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			conn, release, err := s.QueryConn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			rows, err := conn.QueryContext(ctx, tc.sql)
			if err == nil {
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
			}
			switch {
			case tc.allowed && err != nil:
				t.Errorf("refused: %v", err)
			case !tc.allowed && !IsNotAuthorized(err):
				t.Errorf("not refused by the authorizer: %v", err)
			}
		})
	}
	// The pool's connections serve gmark's own statements again after
	// release (a temporary table changes nothing in the file).
	_, release, err := s.QueryConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	release()
	for i := range 4 {
		if _, err := s.DB().ExecContext(ctx, "CREATE TEMP TABLE IF NOT EXISTS scratch(x)"); err != nil {
			t.Fatalf("statement %d after release: %v", i, err)
		}
	}
}
