package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// gmark trace imbalance through the binary: the small trace's two
// partitions (alpha, beta), sized by --sizes; JSON and text agree; bad
// input exits with 2 and names the problem.
func TestTraceImbalance(t *testing.T) {
	dir := t.TempDir()
	writeSmallTrace(t, dir)
	out, stderr, code := run(t, dir, "trace", "imbalance", "--by", "partition", "--sizes", "alpha=8,beta=4", "--json", "small.swf")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var res struct {
		Groups []struct {
			Name       string  `json:"name"`
			Processors int     `json:"processors"`
			Arrivals   float64 `json:"arrivals"`
		} `json:"groups"`
		Overall struct {
			Ratio float64 `json:"ratio"`
		} `json:"overall_imbalance"`
		Hours []json.RawMessage `json:"hours"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Jobs k = 1..10 of k%3+1 processors at partition k%2+1: partition 2
	// (beta) has the odd k, 1, 3, 5, 7, 9: 2+1+3+2+1 = 9 arrivals; alpha
	// the even: 3+2+1+3+2 = 11. Loads 11/8 and 9/4: 1.636:1, beta's.
	if len(res.Groups) != 2 || res.Groups[0].Arrivals+res.Groups[1].Arrivals != 20 || len(res.Hours) != 1 {
		t.Fatalf("%+v", res)
	}
	if want := (9.0 / 4) / (11.0 / 8); res.Overall.Ratio < want-1e-9 || res.Overall.Ratio > want+1e-9 {
		t.Errorf("overall %g, want %g", res.Overall.Ratio, want)
	}
	text, _, code := run(t, dir, "trace", "imbalance", "--by", "partition", "--sizes", "alpha=8", "--sizes", "beta=4", "small.swf")
	if code != 0 || !strings.Contains(text, "overall imbalance at the end") || !strings.Contains(text, "1.6:1 (beta 2.25 against alpha 1.375)") {
		t.Errorf("text (exit %d):\n%s", code, text)
	}
	for _, bad := range [][]string{
		{"--by", "cluster", "small.swf"}, {"--sizes", "alpha", "small.swf"}, {}, {"nothing.swf"}, {"--strict", "bad.swf"},
	} {
		_, stderr, code := run(t, dir, append([]string{"trace", "imbalance"}, bad...)...)
		if code != 2 || !strings.HasPrefix(stderr, "gmark: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", bad, code, stderr)
		}
	}
}
