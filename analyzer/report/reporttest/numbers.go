package reporttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/report"
)

// The checks of the numbers a report prints, for the tests of reports of
// degenerate runs (no job ran, every job failed): no number is negative,
// infinite or beyond absurd.

// CheckJSONNumbers walks every number of a JSON document: finite, not
// negative and not beyond absurd; a time (a key ending in ns: Unix
// nanoseconds) is one of this century, or absent.
func CheckJSONNumbers(t testing.TB, doc []byte, absurd float64) {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("json: %v", err)
	}
	var walk func(v any, path, key string)
	walk = func(v any, path, key string) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(e, path+"."+k, k)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s[%d]", path, i), key)
			}
		case json.Number:
			f, err := x.Float64()
			lk := strings.ToLower(key)
			switch {
			case err != nil || math.IsInf(f, 0) || math.IsNaN(f):
				t.Errorf("json %s = %s", path, x)
			case strings.HasSuffix(lk, "ns") && lk != "delay_ns":
				if f < 9e17 || f > 4.1e18 { // 1998 to 2100
					t.Errorf("json %s = %s: not a time", path, x)
				}
			case f < 0 || f > absurd:
				t.Errorf("json %s = %s", path, x)
			}
		}
	}
	walk(v, "", "")
}

var (
	// Things made of digits that are not figures: dates and times, digests
	// and other hexadecimal ids, ranges of job indices.
	notFigures = regexp.MustCompile(`\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z| UTC)?)?|\b[0-9a-f]{12,}\b|\b\d+-\d+\b|go1\.\d+(\.\d+)?`)
	figure     = regexp.MustCompile(`(^|[^\w.-])(-?)(\d[\d,]*(\.\d+)?([eE][-+]?\d+)?)`)
)

// CheckTextNumbers checks every number of a text: not negative, not
// beyond absurd, and no NaN or infinity spelled out. Dates, times, digests
// and ranges of job indices are not figures and are skipped.
func CheckTextNumbers(t testing.TB, name, text string, absurd float64) {
	t.Helper()
	for _, bad := range []string{"NaN", "Inf", "∞"} {
		if strings.Contains(text, bad) {
			t.Errorf("%s: %q printed", name, bad)
		}
	}
	text = notFigures.ReplaceAllString(text, " ")
	for _, m := range figure.FindAllStringSubmatch(text, -1) {
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[3], ",", ""), 64)
		if err != nil {
			continue
		}
		if m[2] == "-" && v != 0 || v > absurd {
			t.Errorf("%s: %s%s", name, m[2], m[3])
		}
	}
}

var (
	scriptOrStyle = regexp.MustCompile(`(?s)<(script|style|pre)[^>]*>.*?</(script|style|pre)>`)
	tag           = regexp.MustCompile(`<[^>]*>`)
)

// PageText is the text a reader of an HTML page sees, without its <pre>
// blocks: the runs' recorded configurations (a max_output of 104,857,600
// bytes), settings a run was given, not figures it measured.
func PageText(page string) string {
	return html.UnescapeString(tag.ReplaceAllString(scriptOrStyle.ReplaceAllString(page, " "), " "))
}

// CheckFigureData checks the data of every figure of the report in dir
// (its figures/*.csv). A line across an axis of categories (runs, sites)
// runs from the left edge of the first category, at x = −0.5: a place on
// the axis, not a figure.
func CheckFigureData(t testing.TB, dir string, absurd float64) {
	t.Helper()
	csvs, _ := filepath.Glob(filepath.Join(dir, report.FiguresDir, "*.csv"))
	for _, f := range csvs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		CheckTextNumbers(t, filepath.Base(f), strings.ReplaceAll(string(b), ",-0.5,", ",edge,"), absurd)
	}
}
