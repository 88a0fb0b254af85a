package gwa

import (
	"fmt"
	"strconv"
	"strings"
)

// Format is a trace file format.
type Format string

const (
	SWF    Format = "swf"    // Parallel Workloads Archive, 18 fields, ';' comments
	GWF    Format = "gwf"    // Grid Workloads Archive text, 29 fields, '#' comments
	SQLite Format = "sqlite" // GWF-SQLite: table Jobs
)

// ParseFormat reads a format name: swf, gwf, sqlite (or db3), wf (the
// workflow variant of GWF).
func ParseFormat(s string) (Format, bool) {
	switch strings.ToLower(s) {
	case "swf":
		return SWF, true
	case "gwf":
		return GWF, true
	case "sqlite", "db3", "gwf-sqlite", "db":
		return SQLite, true
	case "wf", "workflow", "gwf-wf":
		return Workflow, true
	case "wfformat", "wfcommons", "json":
		return WfFormat, true
	case "wta", "parquet":
		return WTA, true
	}
	return "", false
}

// InputFormat reads --input-format: a format name (ParseFormat), or ""
// for detection.
func InputFormat(s string) (Format, error) {
	if s == "" {
		return "", nil
	}
	f, ok := ParseFormat(s)
	if !ok {
		return "", fmt.Errorf("--input-format %q: swf, gwf, wf, sqlite, wfformat or wta", s)
	}
	return f, nil
}

// HasWorkflows tells whether a format holds workflows: tasks with their
// dependencies (GWF's workflow variant, WfFormat, the WTA's parquet).
func HasWorkflows(f Format) bool { return f == Workflow || f == WfFormat || f == WTA }

// Header is what a trace says about itself in its leading comment lines.
type Header struct {
	Format Format
	// Lines are the comment lines before the first record, verbatim but for
	// the comment mark and its following space (and a CRLF line end), and
	// for a line break inside a line (a bare CR, or a GWF-SQLite
	// gmark_header row's), which is a space, as writers write it: the
	// spaces that pad a PWA header's columns stay. GWF's column-name line and
	// SWF's identifier tables (gmark-KIND lines) are not among them. Writers
	// copy them, so conversions keep them.
	Lines []string
	// UnixStartTime is the time base: submit times are offsets from it.
	// 0 when unknown (times are then only relative).
	UnixStartTime int64
	TimeZone      string // TimeZoneString, e.g. Europe/London
	MaxProcs      int    // MaxProcs (or a GWF "Processors" line); 0 when unknown
	MaxNodes      int
	MaxJobs       int
	// Partitions maps SWF partition numbers to names ("; Partition: 1 name").
	Partitions map[string]string
	// SWFFields says the records carry SWF's fields 17 and 18 (preceding job,
	// think time); GWF text keeps them as two extra named columns.
	SWFFields bool
	// Columns are the GWF text column names in file order, when the file
	// named them.
	Columns []string
	// AbsoluteBase is set when submit times were absolute Unix times and were
	// made offsets from UnixStartTime on reading.
	AbsoluteBase bool
}

// Value returns the value of the first "Key: value" header line for key.
func (h *Header) Value(key string) (string, bool) {
	for _, l := range h.Lines {
		k, v, ok := strings.Cut(l, ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// SiteName is the name of a site for display: a partition's name when the
// header names it, else the site itself.
func (h *Header) SiteName(site string) string {
	if n, ok := h.Partitions[site]; ok && n != "" {
		return n
	}
	return site
}

// addLine records one comment line and reads the keys gmark understands.
// It returns what is wrong with the value of such a key, or "": the line
// is then malformed, and left out like a malformed record.
func (h *Header) addLine(line string) (bad string) {
	line = oneLine(line)
	defer func() {
		if bad == "" {
			h.Lines = append(h.Lines, line)
		}
	}()
	k, v, ok := strings.Cut(line, ":")
	if !ok {
		return ""
	}
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	// number reads the value's first word as a whole number in [lo, hi]
	// (values often go on with a remark: "MaxProcs: 1024 (512 nodes)").
	number := func(lo, hi int64) (int64, string) {
		first := ""
		if f := strings.Fields(v); len(f) > 0 {
			first = f[0]
		}
		n, err := strconv.ParseInt(first, 10, 64)
		if n == Missing && err == nil {
			return 0, "" // unknown, as in the records
		}
		if err != nil || n < lo || n > hi {
			return 0, k + ": " + strconv.Quote(first) + " is not a whole number from " + strconv.FormatInt(lo, 10) + " to " + strconv.FormatInt(hi, 10)
		}
		return n, ""
	}
	var n int64
	switch k {
	case "UnixStartTime":
		if n, bad = number(0, MaxSubmitTime); bad == "" && h.UnixStartTime == 0 {
			h.UnixStartTime = n
		}
	case "TimeZoneString":
		h.TimeZone = v
	case "MaxProcs", "Processors":
		if n, bad = number(0, MaxProcs); bad == "" && h.MaxProcs == 0 {
			h.MaxProcs = int(n)
		}
	case "MaxNodes":
		if n, bad = number(0, MaxProcs); bad == "" {
			h.MaxNodes = int(n)
		}
	case "MaxJobs":
		if n, bad = number(0, MaxHeaderJobs); bad == "" {
			h.MaxJobs = int(n)
		}
	case "Partition":
		num, name, _ := strings.Cut(v, " ")
		if h.Partitions == nil {
			h.Partitions = map[string]string{}
		}
		h.Partitions[num] = strings.TrimSpace(name)
	}
	return bad
}

// hasKey tells whether a header line sets key.
func (h *Header) hasKey(key string) bool {
	_, ok := h.Value(key)
	return ok
}

// writerLines are the header lines a writer emits: the trace's own, with
// the time base, system size and zone lines brought up to date (a selection
// moves the time base; absolute times set it), plus those learnt some other
// way.
func (h *Header) writerLines() []string {
	if h == nil {
		return nil
	}
	fields := []struct {
		keys  []string
		value string
	}{
		{[]string{"UnixStartTime"}, strconv.FormatInt(h.UnixStartTime, 10)},
		{[]string{"MaxProcs", "Processors"}, strconv.Itoa(h.MaxProcs)},
		{[]string{"TimeZoneString"}, h.TimeZone},
	}
	set := []bool{h.UnixStartTime != 0, h.MaxProcs != 0, h.TimeZone != ""}
	seen := make([]bool, len(fields))
	lines := make([]string, 0, len(h.Lines)+3)
	for _, l := range h.Lines {
		k, v, ok := strings.Cut(l, ":")
		if ok {
			k = strings.TrimSpace(k)
			for i, f := range fields {
				for _, key := range f.keys {
					if k == key && !seen[i] {
						seen[i] = true
						if first, _, _ := strings.Cut(strings.TrimSpace(v), " "); set[i] && first != f.value {
							l = key + ": " + f.value
						}
					}
				}
			}
		}
		lines = append(lines, l)
	}
	for i, f := range fields {
		if set[i] && !seen[i] {
			lines = append(lines, f.keys[0]+": "+f.value)
		}
	}
	return lines
}
