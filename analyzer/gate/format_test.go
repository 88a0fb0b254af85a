package gate

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// The success rate prints as the report prints it, a percentage ("100.0%"),
// not as the fraction 1; a change from 0 as points.
func TestSuccessRateAsPercent(t *testing.T) {
	r := &Result{Rows: []Row{
		{Metric: "success-rate", Better: "higher", Baseline: 1, New: 0.8, Change: -0.2, Relative: -0.2, Test: "none", Verdict: "REGRESSION"},
		{Metric: "success-rate", Better: "higher", Baseline: 0, New: 0.5, Change: 0.5, Relative: math.Inf(1), Test: "none", Verdict: "improved"},
		{Metric: "mean-wait", Unit: "s", Better: "lower", Baseline: 1, New: 2, Change: 1, Relative: 1, Test: "none", Verdict: "ok"},
	}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	var rows []string
	for _, l := range lines {
		if strings.HasPrefix(l, "success-rate") || strings.HasPrefix(l, "mean-wait") {
			rows = append(rows, strings.Join(strings.Fields(l), " "))
		}
	}
	want := []string{"success-rate higher 100.0% 80.0% -20.0% – – REGRESSION", "success-rate higher 0.0% 50.0% +50.0 points – – improved", "mean-wait lower 1 s 2 s +100.0% – – ok"}
	if !slices.Equal(rows, want) {
		t.Errorf("rows\n%q\nwant\n%q", rows, want)
	}
}
