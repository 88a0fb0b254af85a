package gwa

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gmark/gmark/internal/outfile"
)

// MixedOpener opens one trace, or several mixed into one (each under its
// tag), afresh on every call, as Select needs. Last keeps the readers of
// the last call, in path order, for their read statistics.
type MixedOpener struct {
	paths, tags []string
	open        func(path string) (Reader, error)
	Last        []Reader
}

// NewMixedOpener checks the tags (one per path; default DefaultTags when
// several traces are mixed) and returns the opener.
func NewMixedOpener(paths, tags []string, open func(path string) (Reader, error)) (*MixedOpener, error) {
	if len(tags) > 0 && len(tags) != len(paths) {
		return nil, fmt.Errorf("--tag: %d tags for %d traces", len(tags), len(paths))
	}
	if len(tags) == 0 && len(paths) > 1 {
		tags = DefaultTags(paths)
	}
	return &MixedOpener{paths: paths, tags: tags, open: open}, nil
}

// Open opens the traces; a failure closes those already opened.
func (m *MixedOpener) Open() (Reader, error) {
	m.Last = nil
	var ins []MixInput
	for i, p := range m.paths {
		r, err := m.open(p)
		if err != nil {
			for _, in := range ins {
				in.Reader.Close()
			}
			return nil, err
		}
		m.Last = append(m.Last, r)
		if len(m.paths) == 1 {
			return r, nil
		}
		ins = append(ins, MixInput{Reader: r, Tag: m.tags[i]})
	}
	return Mix(ins), nil
}

// WriteSkipped prints the count of malformed lines a reader skipped, with
// the first few, to w (nothing when none were).
func WriteSkipped(w io.Writer, name string, s *ReadStats) {
	if len(s.NotCarried) > 0 {
		fmt.Fprintf(w, "warning: %s: gmark carries none of these fields, read and left out: %s\n", name, strings.Join(s.NotCarried, ", "))
	}
	if s.Skipped == 0 {
		return
	}
	fmt.Fprintf(w, "warning: %s: skipped %d malformed line(s) (--strict stops at the first)\n", name, s.Skipped)
	for _, e := range s.Errors {
		fmt.Fprintf(w, "  %v\n", e)
	}
	if int64(len(s.Errors)) < s.Skipped {
		fmt.Fprintf(w, "  … and %d more\n", s.Skipped-int64(len(s.Errors)))
	}
}

// CheckOutput reads the output format (named, or from the path) and checks
// the output path before any input is read: an existing file is replaced
// only with force, and a GWF-SQLite output must be a regular file.
func CheckOutput(path, named string, force bool) (Format, error) {
	f, err := OutputFormat(named, path)
	if err != nil {
		return f, err
	}
	regular := ""
	if f == SQLite {
		regular = "a GWF-SQLite database"
	}
	if f == WTA && !strings.HasSuffix(strings.ToLower(path), ".parquet") || f == WfFormat && IsDirOutput(path) {
		return f, checkOutputDir(path, force)
	}
	return f, outfile.Check(path, regular, force)
}

// ParseDeltas reads the Δ values of bag-of-tasks extraction: durations
// >= 0.
func ParseDeltas(values []string) ([]float64, error) {
	var deltas []float64
	for _, d := range values {
		v, err := ParseDurationSeconds(d)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("--delta %q must be a duration >= 0", d)
		}
		deltas = append(deltas, v)
	}
	return deltas, nil
}

// ParseCategories reads ranking category names.
func ParseCategories(names []string) ([]Category, error) {
	var cats []Category
	for _, s := range names {
		cat, err := ParseCategory(s)
		if err != nil {
			return nil, err
		}
		cats = append(cats, cat)
	}
	return cats, nil
}

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteAnalysesJSON writes analyses as JSON: one object for one trace, an
// array for several.
func WriteAnalysesJSON(w io.Writer, all []*Analysis) error {
	if len(all) == 1 {
		return writeJSON(w, all[0])
	}
	return writeJSON(w, all)
}

// WriteBoTsJSON writes a trace's bag-of-tasks statistics as JSON.
func WriteBoTsJSON(w io.Writer, trace string, res []*BoTStats) error {
	return writeJSON(w, map[string]any{"trace": trace, "bots": res})
}

// WriteRankingJSON writes a ranking as JSON.
func WriteRankingJSON(w io.Writer, ranked []RankedTrace) error { return writeJSON(w, ranked) }
