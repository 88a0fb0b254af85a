package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/htmlpage"
)

// OpenPage finds each kind of problem on a page that has it, and none on
// a page that has none: the check can fail.
func TestOpenPageFindsProblems(t *testing.T) {
	bin := Chromium(t)
	dir := t.TempDir()
	// A 1 × 1 PNG.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
		"\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
	if err := os.WriteFile(filepath.Join(dir, "dot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, body string
		want       string // in a problem; "" for none
	}{
		{"clean", `<p>text</p><img src="dot.png" alt="">`, ""},
		{"wide", `<div style="width:1500px">wide</div>`, "horizontal overflow: the document is 15"},
		{"wide but scrolling on its own", `<div style="overflow-x:auto"><div style="width:3000px">wide</div></div>`, ""},
		{"missing image", `<img src="nope.png" alt="">`, "0 of 1 images loaded; missing: nope.png"},
		{"console.error", `<script>console.error("boom")</script>`, "1 errors while loading"},
		{"console.log", `<script>console.log("chatty")</script>`, `console: "chatty"`},
		{"a script error", `<script>undefinedFunction()</script>`, "errors while loading"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".html")
			html := "<!DOCTYPE html><html><head><script>" + string(htmlpage.Script) + "</script></head><body>" + c.body + "</body></html>"
			if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
				t.Fatal(err)
			}
			p := OpenPage(t, bin, "file://"+page, 1280)
			problems := strings.Join(p.Problems(), "\n")
			switch {
			case c.want == "" && problems != "":
				t.Errorf("problems on a clean page:\n%s", problems)
			case c.want != "" && !strings.Contains(problems, c.want):
				t.Errorf("problems %q, want one with %q", problems, c.want)
			}
			if !p.Ready || p.ViewportWidth < 1200 || p.ViewportWidth > 1280 || p.ScrollHeight <= 0 {
				t.Errorf("page %+v", p)
			}
		})
	}
}

// BadNumbers flags the numbers plots.Num would not print, and only those.
func TestBadNumbers(t *testing.T) {
	for _, c := range []struct {
		cell string
		bad  bool
	}{
		{"1.480e-16", true}, {"0.30000000000000004", true}, {"1.235e+04", true}, {"12346.5", true}, {"3.14159", true},
		{"0", false}, {"12,346", false}, {"3.142", false}, {"2.5e-6", false}, {"188041", false}, {"–", false}, {"R1", false},
		{"100.0%", false}, {"", false},
	} {
		got := len(BadNumbers("<table><tr><td>"+c.cell+"</td></tr></table>")) > 0
		if got != c.bad {
			t.Errorf("%q: bad %v, want %v", c.cell, got, c.bad)
		}
	}
}
