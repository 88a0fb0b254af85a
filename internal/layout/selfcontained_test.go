package layout

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// What a reader of the repository cannot follow: a file outside it (the
// workspace's ../shared, an absolute path, a trace on someone's disk), the
// tracker's issues, a working session, or the notes gmark was built from
// (cited by their file names, "003b-models.md", or ids, "003b §2"). The
// repository cites its sources by title and authors (docs/references.md).
var outsideRefs = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\.\./shared\b`), "a path outside the repository (../shared)"},
	{regexp.MustCompile(`(^|[\s"'=(\x60])/(work|home|root|Users|mnt|scratch)/`), "an absolute path on someone's machine"},
	{regexp.MustCompile(`(^|[\s"'=(\x60])/[^\s"'\x60)]*\.(swf|gwf|wf|db3|sqlite)(\.gz)?\b`), "an absolute path to a trace outside the repository"},
	{regexp.MustCompile(`(?i)\bissues?\b|\bissue's\b`), "an issue of the tracker (its number or its words are not the reader's)"},
	{regexp.MustCompile(`(^|[\s(\[,;])#\d+\b`), "an issue reference (#N)"},
	{regexp.MustCompile(`(?i)\bthis session\b|\bsession's\b`), "a working session the reader did not see"},
	{regexp.MustCompile(`\b00[0-4][a-d]?(-00[0-4])?-[a-z0-9-]+\.(md|txt)\b`), "a source note outside the repository (cite the source: docs/references.md)"},
	{regexp.MustCompile(`\b00[0-4][a-d]?\b ?(§|P\d|B\d)|\bseeds? 00[0-4]\b`), "a source note outside the repository (cite the source: docs/references.md)"},
	{regexp.MustCompile(`\bDESIGN(\.md)?\b`), "the workspace's design notes (the repository's map is docs/architecture.md)"},
	{regexp.MustCompile(`\bP\d{1,2}\b|(?i)\bthe reference\b|\breference's\b|\breference (§|note)`), "a label of a source note outside the repository (cite the source: docs/references.md)"},
}

// userDocs are the files a user of the repository reads: the README,
// CONTRIBUTING.md, docs/ and the shipped examples (built into gmark and
// written out by 'gmark examples write').
func userDocs(t *testing.T, root string) []string {
	t.Helper()
	paths := []string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}
	for _, dir := range []string{"docs", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch ext := filepath.Ext(p); {
			case d.IsDir(), ext == ".go", ext == ".png", ext == ".svg", ext == ".gz", ext == ".swf", ext == ".gwf":
				return nil
			}
			paths = append(paths, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// The repository's documentation and examples are self-contained: they
// name no file outside the repository and no issue, session or source
// note a reader cannot see.
func TestDocsAreSelfContained(t *testing.T) {
	root := repoRoot(t)
	paths := userDocs(t, root)
	if len(paths) < 20 {
		t.Fatalf("found only %d documents: is the walk looking at the repository?", len(paths))
	}
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		for n, line := range fileLines(t, p) {
			for _, r := range outsideRefs {
				if m := r.re.FindString(line); m != "" {
					t.Errorf("%s:%d: %s: %q", rel, n+1, r.what, strings.TrimSpace(m))
				}
			}
		}
	}
}

// issueNumber is an issue of the tracker by number, in a comment or a
// string of the code.
var issueNumber = regexp.MustCompile(`(?i)\bissues? #?\d+|\bissue #?\d+'s\b|\(#\d+\)`)

// The code's comments and strings (help, errors, messages) name no issue
// by number either: the tracker is not where a reader of the code or a
// user of gmark looks.
func TestCodeNamesNoIssueNumbers(t *testing.T) {
	root := repoRoot(t)
	seen := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if filepath.Ext(p) != ".go" || rel == filepath.Join("internal", "layout", "selfcontained_test.go") {
			return nil // this file's cases name issues on purpose
		}
		seen++
		for n, line := range fileLines(t, p) {
			if m := issueNumber.FindString(line); m != "" {
				t.Errorf("%s:%d: names an issue by number: %q", rel, n+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 100 {
		t.Fatalf("found only %d Go files", seen)
	}
}

// The patterns catch what they are for, and pass over what is not.
func TestOutsideRefPatterns(t *testing.T) {
	for _, c := range []struct {
		line string
		hit  bool
	}{
		{"File=../shared/traces/LCG.swf.gz,AreaWidth=3h", true},
		{`trace = "/work/shared/traces/LCG.swf.gz"`, true},
		{"gmark trace stats /data/traces/das2.gwf", true},
		{"This page covers issue 8: fitting", true},
		{"the issue's 57.7 s", true},
		{"Issues #16 and #17", true},
		{"(see #16)", true},
		{"in this session 91.2 s", true},
		{"`../shared/reference/003b-models.md`", true},
		{"(003b P12)", true},
		{"the reference 003b §2", true},
		{"reference `001-002-coalloc.md` B7", true},
		{"gmark trace stats LCG.swf.gz", false},
		{"a job id `#1` would make its line a comment", false},
		{"slurm_conf = \"/etc/slurm/fs3.conf\"", false},
		{"`ExternalFile=/dev/zero`", false},
		{"1,003 jobs, 0.004 s, 2,002 pairs", false},
		{"colour #1f77b4", false},
		{"(Pinchak's placeholder thesis, seed 004, §5.3)", true},
		{"the hourly table's sum (P12)", true},
		{"the reference's option C reading", true},
		{"(reference §1.6, P4)", true},
		{"the p95 wait, 95th percentile", false},
		{"docs/references.md lists the sources", false},
		{"those of the whole job (DESIGN);", true},
		{"as all its configuration (DESIGN.md)", true},
		{"## Heading 2", false},
	} {
		hit := false
		for _, r := range outsideRefs {
			hit = hit || r.re.MatchString(c.line)
		}
		if hit != c.hit {
			t.Errorf("%q: flagged %v, want %v", c.line, hit, c.hit)
		}
	}
	for _, c := range []struct {
		line string
		hit  bool
	}{
		{"// Issue 14: the quick start on real Slurm", true},
		{"// Item 7 of issue 11: gmark submit", true},
		{"// (issue 15, item 6; DGSim's Table 6.1)", true},
		{`"see issue #12"`, true},
		{"// the core issues a claim", false},
		{"// an issue with the clock", false},
	} {
		if got := issueNumber.MatchString(c.line); got != c.hit {
			t.Errorf("%q: flagged %v, want %v", c.line, got, c.hit)
		}
	}
}

func fileLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return lines
}

var (
	mdHeading = regexp.MustCompile(`^#+ (.*)`)
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	notSlug   = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// slug is the anchor GitHub gives a heading: lower case, punctuation
// dropped, spaces as hyphens.
func slug(heading string) string {
	return strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(heading)), ""), " ", "-")
}

// anchors are the headings' anchors of a Markdown file (a repeated heading
// gets -1, -2, … as GitHub numbers them).
func anchors(t *testing.T, path string) map[string]bool {
	out, seen := map[string]bool{}, map[string]int{}
	for _, line := range fileLines(t, path) {
		if m := mdHeading.FindStringSubmatch(line); m != nil {
			s := slug(m[1])
			if n, dup := seen[s]; dup {
				seen[s] = n + 1
				s += "-" + strconv.Itoa(n+1)
			} else {
				seen[s] = 0
			}
			out[s] = true
		}
	}
	return out
}

// Every link between the repository's pages leads somewhere: its file
// exists, and its anchor is a heading there (a heading renamed takes its
// links with it).
func TestDocLinksResolve(t *testing.T) {
	root := repoRoot(t)
	var pages []string
	for _, p := range userDocs(t, root) {
		if filepath.Ext(p) == ".md" {
			pages = append(pages, p)
		}
	}
	cache := map[string]map[string]bool{}
	for _, p := range pages {
		rel, _ := filepath.Rel(root, p)
		fence := false
		for n, line := range fileLines(t, p) {
			if strings.HasPrefix(line, "```") {
				fence = !fence
			}
			if fence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				link := m[1]
				if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(link, "#")
				target := p
				if file != "" {
					target = filepath.Join(filepath.Dir(p), file)
				}
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s:%d: link %s: no such file", rel, n+1, link)
					continue
				}
				if anchor == "" || filepath.Ext(target) != ".md" {
					continue
				}
				if cache[target] == nil {
					cache[target] = anchors(t, target)
				}
				if !cache[target][anchor] {
					t.Errorf("%s:%d: link %s: no heading #%s in %s", rel, n+1, link, anchor, filepath.Base(target))
				}
			}
		}
	}
}
