package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/plots"
)

// Page is what one of gmark's HTML pages reports once loaded in headless
// Chromium at a window width: the marks its script (internal/htmlpage's
// Script) leaves on the root element, and the console messages Chromium
// logged while loading it.
type Page struct {
	Ready          bool     // the load handler ran
	Images, Loaded int      // images in the page, and those complete and decoded
	Missing        string   // the sources of the others
	Errors         int      // script and resource errors, console.error calls
	ScrollWidth    int      // the document's width
	ViewportWidth  int      // the window's, less a vertical scroll bar
	ScrollHeight   int      // the document's height
	Console        []string // every console message (the pages log none)
	Root           string   // the root element as dumped, for messages
}

// Problems says what is wrong with the page: not loaded, a horizontal
// scroll bar (the document wider than the window), an image not loaded,
// an error or a console message. None: an empty list.
func (p Page) Problems() []string {
	var out []string
	if !p.Ready {
		return []string{"the page's load handler did not run: " + p.Root}
	}
	if p.ScrollWidth < 0 || p.ViewportWidth <= 0 {
		out = append(out, fmt.Sprintf("the page did not report its width (%d px in a window of %d px)", p.ScrollWidth, p.ViewportWidth))
	}
	if p.ScrollWidth > p.ViewportWidth {
		out = append(out, fmt.Sprintf("horizontal overflow: the document is %d px wide in a window of %d px", p.ScrollWidth, p.ViewportWidth))
	}
	if p.Loaded != p.Images {
		out = append(out, fmt.Sprintf("%d of %d images loaded; missing: %s", p.Loaded, p.Images, p.Missing))
	}
	if p.Errors != 0 {
		out = append(out, fmt.Sprintf("%d errors while loading", p.Errors))
	}
	for _, m := range p.Console {
		out = append(out, "console: "+m)
	}
	return out
}

var (
	rootElement = regexp.MustCompile(`<html[^>]*>`)
	consoleLine = regexp.MustCompile(`(?m)^\[[^\]]*:CONSOLE[^\]]*\] (.*)$`)
)

// OpenPage loads the page at url in headless Chromium (Chromium's binary
// bin) in a window width px wide and reads what it reports (Page).
// Chromium's own log (--enable-logging=stderr) gives the console
// messages, whatever their level.
func OpenPage(t testing.TB, bin, url string, width int) Page {
	t.Helper()
	dom, stderr := Headless(t, bin, "--enable-logging=stderr", "--v=0", fmt.Sprintf("--window-size=%d,900", width),
		"--virtual-time-budget=10000", "--dump-dom", url)
	p := Page{Root: rootElement.FindString(dom)}
	attr := func(name string) string {
		m := regexp.MustCompile(` ` + name + `="([^"]*)"`).FindStringSubmatch(p.Root)
		if m == nil {
			return ""
		}
		return m[1]
	}
	n := func(name string) int {
		v, err := strconv.Atoi(attr(name))
		if err != nil {
			return -1
		}
		return v
	}
	p.Ready = attr("data-ready") == "1"
	p.Images, p.Loaded, p.Missing, p.Errors = n("data-images"), n("data-images-loaded"), attr("data-images-missing"), n("data-errors")
	p.ScrollWidth, p.ViewportWidth, p.ScrollHeight = n("data-scroll-width"), n("data-viewport-width"), n("data-scroll-height")
	for _, m := range consoleLine.FindAllStringSubmatch(stderr, -1) {
		p.Console = append(p.Console, strings.TrimSpace(m[1]))
	}
	return p
}

// MaxScreenshotHeight bounds a screenshot's height: a page taller than
// this is cut at its bottom.
const MaxScreenshotHeight = 16000

// Screenshot writes a PNG of the page at url, width px wide and height px
// tall (the page's height: the whole page, up to MaxScreenshotHeight), to
// path.
func Screenshot(t testing.TB, bin, url string, width, height int, path string) {
	t.Helper()
	height = min(max(height, 600), MaxScreenshotHeight)
	Headless(t, bin, "--hide-scrollbars", fmt.Sprintf("--window-size=%d,%d", width, height), "--virtual-time-budget=10000",
		"--screenshot="+path, url)
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("no screenshot of %s at %d px: %v", url, width, err)
	}
}

// Artefacts is a directory for files a test keeps for people to look at
// (screenshots): $GMARK_TEST_ARTIFACTS/sub when that is set, else
// artefacts/sub under the repository (ignored by git), made if missing
// and kept after the test.
func Artefacts(t testing.TB, sub string) string {
	t.Helper()
	base := os.Getenv("GMARK_TEST_ARTIFACTS")
	if base == "" {
		base = filepath.Join(RepoRoot(t), "artefacts")
	}
	dir := filepath.Join(base, sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

var (
	tableCell = regexp.MustCompile(`<td[^>]*>([^<]*)</td>`)
	numeric   = regexp.MustCompile(`^-?[0-9][0-9,]*(\.[0-9]+)?(e[-+]?[0-9]+)?$`)
)

// BadNumbers lists the table cells of an HTML page that hold a number not
// printed for people: neither a plain whole number nor as plots.Num
// prints it with 4 significant digits (a float residue 1.48e-16, a
// 0.30000000000000004, a 1.235e+04 where 12,346 is meant).
func BadNumbers(page string) []string {
	var bad []string
	for _, m := range tableCell.FindAllStringSubmatch(page, -1) {
		cell := strings.TrimSpace(m[1])
		if !numeric.MatchString(cell) || !strings.ContainsAny(cell, ".,e") {
			continue // not a number, or a plain whole number
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(cell, ",", ""), 64)
		if err != nil || plots.Num(v, 4) != cell {
			bad = append(bad, cell)
		}
	}
	return bad
}
