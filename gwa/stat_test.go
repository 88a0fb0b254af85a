package gwa

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// checkAbsent walks decoded JSON: every null is explained by its object's
// "absent" entry, and every "absent" entry by a null.
func checkAbsent(t *testing.T, path string, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		reasons, _ := x["absent"].(map[string]any)
		for k, e := range x {
			if k == "absent" {
				continue
			}
			if e == nil {
				if r, _ := reasons[k].(string); r == "" {
					t.Errorf("%s.%s is null with no reason", path, k)
				}
			}
			checkAbsent(t, path+"."+k, e)
		}
		for k := range reasons {
			if x[k] != nil {
				t.Errorf("%s.%s has a value and a reason to be absent", path, k)
			}
		}
	case []any:
		for i, e := range x {
			checkAbsent(t, path+"["+strconv.Itoa(i)+"]", e)
		}
	}
}

// nullsAt lists the fields that are null in decoded JSON, as paths.
func nullsAt(path string, v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				out[path+"."+k] = true
			}
			nullsAt(path+"."+k, e, out)
		}
	case []any:
		for _, e := range x {
			nullsAt(path+"[]", e, out)
		}
	}
}

// trace stats: +Inf CPU-years broke --json and the
// text printed NaN%. Every statistic of a degenerate trace is now a finite
// number or absent with a reason.
func TestDegenerateTraceStatistics(t *testing.T) {
	job := func(id, submit int, wait, run, procs string, user int) string {
		return fmt.Sprintf("%d %d %s %s %s -1 -1 -1 -1 -1 1 %d 1 -1 -1 1 -1 -1\n", id, submit, wait, run, procs, user)
	}
	limits := ""
	for i := 1; i <= 50; i++ {
		limits += job(i, i, "-9223372036", "9223372036", "2147483647", i%3)
	}
	cases := []struct {
		name  string
		text  string
		nulls []string // fields that must be null (among others)
		set   []string // fields that must not be null
	}{
		{"empty", "; MaxProcs: 4\n", []string{".totals.goodput_cpu_years_per_year", ".totals.span", ".utilization.average", ".distributions.run_time.mean"}, nil},
		{"one job", job(1, 0, "5", "10", "2", 1), []string{".distributions.inter_arrival.median"},
			[]string{".totals.goodput_cpu_years_per_year", ".distributions.run_time.cv", ".users.top_by_cpu[].cpu_share"}},
		{"all equal", job(1, 0, "5", "10", "2", 1) + job(2, 0, "5", "10", "2", 1) + job(3, 0, "5", "10", "2", 1),
			[]string{".distributions.inter_arrival.cv"}, []string{".distributions.run_time.std", ".distributions.run_time.cv"}},
		{"all zeros", job(1, 0, "0", "0", "0", 1) + job(2, 0, "0", "0", "0", 2),
			[]string{".totals.goodput_cpu_years_per_year", ".utilization.average", ".distributions.run_time.cv", ".users.top_by_cpu[].cpu_share", ".distributions.parallelism.mean"},
			[]string{".distributions.run_time.mean", ".users.top_by_jobs[].job_share"}},
		{"zero-length span", "; MaxProcs: 8\n" + job(1, 100, "0", "0", "1", 1) + job(2, 100, "-1", "-1", "4", 1),
			[]string{".totals.goodput_cpu_years_per_year", ".utilization.average"}, []string{".totals.span"}},
		{"values at the limits", "; MaxProcs: 2147483647\n" + limits, nil,
			[]string{".totals.goodput_cpu_years_per_year", ".utilization.average", ".distributions.wait.mean"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(c.text), ReadOptions{Name: "t.swf", Format: SWF, Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			a, err := Analyze(r, AnalysisOptions{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for name, v := range map[string]any{"analysis": a} {
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var doc any
				if err := json.Unmarshal(b, &doc); err != nil {
					t.Fatal(err)
				}
				checkAbsent(t, "", doc)
				nulls := map[string]bool{}
				nullsAt("", doc, nulls)
				for _, f := range c.nulls {
					if !nulls[f] {
						t.Errorf("%s is not null", f)
					}
				}
				for _, f := range c.set {
					if nulls[f] {
						t.Errorf("%s is null", f)
					}
				}
			}
			// Bags-of-tasks statistics of the same trace.
			r, _ = NewReader(strings.NewReader(c.text), ReadOptions{Name: "t.swf", Format: SWF, Strict: true})
			bots, err := AnalyzeBoTs(r, []float64{0, 120}, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(bots)
			if err != nil {
				t.Fatalf("bots: %v", err)
			}
			var doc any
			json.Unmarshal(b, &doc)
			checkAbsent(t, "bots", doc)
		})
	}
}

// Stat prints n/a in the width of the verb, and its value otherwise.
func TestStatFormat(t *testing.T) {
	for _, c := range []struct {
		format string
		s      Stat
		want   string
	}{
		{"%6.2f|", known(1.5), "  1.50|"},
		{"%6.2f|", absent("x"), "   n/a|"},
		{"%-6g|", absent("x"), "n/a   |"},
		{"%g", absent("x"), "n/a"},
		{"%g", known(math.Inf(1)), "n/a"},
		{"%g", known(math.NaN()), "n/a"},
	} {
		if got := fmt.Sprintf(c.format, c.s); got != c.want {
			t.Errorf("%q of %+v: %q, want %q", c.format, c.s, got, c.want)
		}
	}
}
