package store

import (
	"context"
	"errors"
	"slices"
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

// Query answers reads as text and refuses the rest with a QueryError, the
// user's to fix; nothing it refuses changes the store.
func TestQueryRows(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	tests := []struct {
		sql     string
		cols    []string
		values  [][]string
		refused bool
	}{
		{"SELECT 1 AS a, NULL AS b, 2.5 AS c, 'x' AS d", []string{"a", "b", "c", "d"}, [][]string{{"1", "NULL", "2.5", "x"}}, false},
		{"SELECT count(*) AS n FROM jobs", []string{"n"}, [][]string{{"0"}}, false},
		{"SELECT * FROM jobs WHERE 0", nil, nil, false},
		{"", nil, nil, true},
		{" ; ", nil, nil, true},
		{"DELETE FROM runs", nil, nil, true},
		{"pragma user_version=99", nil, nil, true},
		{"SELECT 1; PRAGMA query_only(0); DELETE FROM runs", nil, nil, true},
		{"SELECT * FROM no_such_table", nil, nil, true},
		{"SELEC 1", nil, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			rows, err := s.Query(ctx, tc.sql)
			var qe *QueryError
			if tc.refused {
				if !errors.As(err, &qe) {
					t.Fatalf("Query(%q) = %v, %v; want a QueryError", tc.sql, rows, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.cols != nil && !slices.Equal(rows.Columns, tc.cols) {
				t.Errorf("columns %v, want %v", rows.Columns, tc.cols)
			}
			if len(rows.Values) != len(tc.values) {
				t.Fatalf("rows %v, want %v", rows.Values, tc.values)
			}
			for i := range tc.values {
				if !slices.Equal(rows.Values[i], tc.values[i]) {
					t.Errorf("row %d: %v, want %v", i, rows.Values[i], tc.values[i])
				}
			}
		})
	}
	rows, err := s.Query(ctx, "PRAGMA user_version")
	if err != nil || len(rows.Values) != 1 || rows.Values[0][0] == "99" {
		t.Fatalf("user_version after the refused pragma: %v, %v", rows, err)
	}
}
