package gwa

import (
	"fmt"
	"strings"
	"testing"
)

// waitTrace builds an SWF text from (submit, wait, run, procs, user) rows;
// −1 is unknown.
func waitTrace(rows ...[5]float64) string {
	var b strings.Builder
	b.WriteString("; UnixStartTime: 1000000000\n")
	for i, r := range rows {
		fmt.Fprintf(&b, "%d %g %g %g %g -1 -1 %g -1 -1 1 %g 1 -1 -1 1 -1 -1\n", i+1, r[0], r[1], r[2], r[3], r[3], r[4])
	}
	return b.String()
}

func TestInFlight(t *testing.T) {
	text := waitTrace(
		[5]float64{0, 10, 50, 1, 1},   // 1: runs 10–60: running at 30
		[5]float64{5, 5, 10, 1, 1},    // 2: runs 10–20: ended before 30
		[5]float64{20, 30, 40, 2, 2},  // 3: queued 20–50: queued at 30
		[5]float64{25, 5, 0, 1, 1},    // 4: starts and ends at 30: not in flight
		[5]float64{26, 4, 9, 1, 1},    // 5: starts exactly at 30: running, all 9 s left
		[5]float64{28, -1, 100, 1, 1}, // 6: wait unknown, might run at 30: unknown
		[5]float64{1, -1, 3, 1, 1},    // 7: wait unknown, but ended by 4 at the latest: not in flight
		[5]float64{29, 10, -1, 1, 1},  // 8: run unknown, starts at 39: queued
		[5]float64{2, 1, -1, 1, 1},    // 9: run unknown, started at 3: unknown
		[5]float64{30, 0, 10, 1, 1},   // 10: submitted at 30: the window's, not in flight
		[5]float64{15, 0, 20, 1, 2},   // 11: runs 15–35, user 2
	)
	cases := []struct {
		name    string
		f       Filter
		at      float64
		want    string // id:running or queued:remaining
		unknown int
	}{
		{"at 30", Filter{}, 30, "1:R30,11:R5,3:Q40,5:R9,8:Q-1", 2},
		{"user 1 only, submit window and first N ignored", Filter{Users: []string{"1"}, FirstN: 1, Submit: Range{Min: 25, HasMin: true}}, 30,
			"1:R30,5:R9,8:Q-1", 2},
		{"at 0: nothing before", Filter{}, 0, "", 0},
		{"after every end", Filter{Users: []string{"2"}}, 1000, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(text), ReadOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			jobs, unknown, err := InFlight(r, c.f, c.at)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i := range jobs {
				state := "Q"
				if jobs[i].Running {
					state = "R"
				}
				got = append(got, fmt.Sprintf("%s:%s%g", jobs[i].JobID, state, jobs[i].Remaining(c.at)))
			}
			if g := strings.Join(got, ","); g != c.want || unknown != c.unknown {
				t.Errorf("in flight %q (%d unknown), want %q (%d unknown)", g, unknown, c.want, c.unknown)
			}
		})
	}
}

// TestSelectOpened: the origin of each kind of selection, and the resolved
// selection reads the same records from the same origin.
func TestSelectOpened(t *testing.T) {
	text := trace(
		[6]float64{100, 60, 1, 1, 1, 1}, [6]float64{150, 60, 1, 1, 1, 1}, [6]float64{3700, 60, 1, 1, 1, 1},
		[6]float64{3800, 60, 1, 1, 1, 1}, [6]float64{3900, 60, 1, 1, 1, 1}, [6]float64{7400, 60, 1, 1, 1, 1},
	)
	open := func() (Reader, error) { return NewReader(strings.NewReader(text), ReadOptions{Strict: true}) }
	cases := []struct {
		name   string
		sel    Selection
		origin float64
		ids    string
	}{
		{"first job", Selection{Rebase: true}, 100, "1,2,3,4,5,6"},
		{"from", Selection{Filter: Filter{Submit: Range{Min: 120, Max: 3850, HasMin: true, HasMax: true}}, Rebase: true}, 120, "2,3,4"},
		{"busiest hour", Selection{AreaWidth: 3600, AreaTargets: []Target{{Char: CharArrivals, Value: 100, Percentile: true}}, Rebase: true}, 3700, "3,4,5"},
		{"busiest hour, first two", Selection{Filter: Filter{FirstN: 2}, AreaWidth: 3600, AreaTargets: []Target{{Char: CharArrivals, Value: 100, Percentile: true}},
			Scale: Scale{Submit: 0.5}, Rebase: true}, 3700, "3,4"},
		{"no rebase", Selection{Filter: Filter{Submit: Range{Min: 120, HasMin: true}}}, 0, "2,3,4,5,6"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, o, err := SelectOpened(open, c.sel)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := drain(r)
			if err != nil {
				t.Fatal(err)
			}
			if o.Origin != c.origin || ids(recs) != c.ids {
				t.Fatalf("origin %g, jobs %s; want %g, %s", o.Origin, ids(recs), c.origin, c.ids)
			}
			if o.Resolved.AreaWidth != 0 {
				t.Fatalf("the resolved selection selects an area: %+v", o.Resolved)
			}
			r2, o2, err := SelectOpened(open, o.Resolved)
			if err != nil {
				t.Fatal(err)
			}
			again, err := drain(r2)
			if err != nil {
				t.Fatal(err)
			}
			if o2.Origin != o.Origin || fmt.Sprint(again) != fmt.Sprint(recs) {
				t.Errorf("the resolved selection reads from %g: %s, want from %g: %s", o2.Origin, ids(again), o.Origin, ids(recs))
			}
		})
	}
}
