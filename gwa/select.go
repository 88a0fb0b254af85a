package gwa

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Selection is a complete trace selection: filters, an optional
// representative area, and scaling, in that order:
//
//  1. the filters other than FirstN;
//  2. the area selection over the filtered trace (a first pass), whose
//     window then restricts the submit times;
//  3. FirstN;
//  4. rebasing (submit times from the selection's start: the area's start,
//     else the window's From, else the first selected job) and scaling.
type Selection struct {
	Filter      Filter
	AreaWidth   float64 // seconds; 0 selects no area
	AreaTargets []Target
	Scale       Scale
	Rebase      bool
}

// Select opens the selection. open must return a fresh reader of the whole
// input each time: area selection reads it twice. The area result is nil
// without area selection.
func Select(open func() (Reader, error), s Selection) (Reader, *AreaResult, error) {
	r, w, err := SelectOpened(open, s)
	if err != nil {
		return nil, nil, err
	}
	return r, w.Area, nil
}

// Opened is what opening a selection found besides its records.
type Opened struct {
	Area *AreaResult // nil without area selection
	// Origin is the trace time the selection's submit offsets count from:
	// the area's start, else the window's From, else the first selected
	// job's submit time (0 when nothing is selected, or without Rebase).
	Origin float64
	// Resolved is the selection with its area folded into the submit
	// window: it reads the same records, from the same origin, with no
	// area selection (a record of what was replayed).
	Resolved Selection
}

// SelectOpened opens the selection as Select does, and says where its
// window lies in the trace.
func SelectOpened(open func() (Reader, error), s Selection) (Reader, *Opened, error) {
	// The window, the first N jobs and the origin are the submit order's,
	// whatever the order of the lines.
	open = OpenInSubmitOrder(open)
	w := &Opened{Resolved: s}
	f := s.Filter
	if s.AreaWidth > 0 {
		r, err := open()
		if err != nil {
			return nil, nil, err
		}
		pre := f
		pre.FirstN = 0
		w.Area, err = SelectArea(Filtered(r, pre), s.AreaWidth, s.AreaTargets)
		r.Close()
		if err != nil {
			return nil, nil, err
		}
		win := Range{Min: w.Area.Best.Start, Max: w.Area.Best.End, HasMin: true, HasMax: true}
		f.Submit = intersect(f.Submit, win)
		w.Resolved.Filter.Submit = f.Submit
		w.Resolved.AreaWidth, w.Resolved.AreaTargets = 0, nil
	}
	r, err := open()
	if err != nil {
		return nil, nil, err
	}
	r = Filtered(r, f)
	if !s.Rebase && s.Scale.Identity() {
		return r, w, nil
	}
	switch {
	case !s.Rebase:
	case w.Area != nil:
		w.Origin = w.Area.Best.Start
	case f.Submit.HasMin:
		w.Origin = f.Submit.Min
	default:
		p := &peeked{Reader: r}
		first, err := p.peek()
		if err != nil && !isEOF(err) {
			r.Close()
			return nil, nil, err
		}
		if err == nil {
			w.Origin = first.SubmitTime
		}
		r = p
	}
	return Transform(r, w.Origin, s.Scale), w, nil
}

func intersect(a, b Range) Range {
	out := a
	if b.HasMin && (!out.HasMin || b.Min > out.Min) {
		out.Min, out.HasMin = b.Min, true
	}
	if b.HasMax && (!out.HasMax || b.Max < out.Max) {
		out.Max, out.HasMax = b.Max, true
	}
	return out
}

// peeked is a reader that can look one record ahead.
type peeked struct {
	Reader
	rec  Record
	err  error
	have bool
}

func (p *peeked) peek() (Record, error) {
	if !p.have {
		p.rec, p.err = p.Reader.Next()
		p.have = true
	}
	return p.rec, p.err
}

func (p *peeked) Next() (Record, error) {
	if p.have {
		p.have = false
		return p.rec, p.err
	}
	return p.Reader.Next()
}

// staleKeys are the header keys that describe a trace's records as a whole:
// a selection that drops, moves or scales records makes them wrong, and a
// streamed writer cannot know their new values when it writes the header.
var staleKeys = []string{"MaxJobs", "MaxRecords", "EndTime"}

// Header is the header to write a selection with, from h, the header of
// the selected stream (its time base already moved by rebasing), and the
// names of the sources: h's lines with a note naming the sources and the
// selection, and, unless the selection keeps every job as it was, without
// the lines staleKeys name (MaxJobs, MaxRecords, EndTime), which no longer
// describe it; with rebasing, StartTime is rewritten from the new time base.
func (s Selection) Header(h *Header, sources []string) *Header {
	out := *h
	out.Lines = nil
	same := s.Filter.Empty() && s.AreaWidth == 0 && !s.Rebase && s.Scale.Identity()
	for _, l := range h.Lines {
		k, _, _ := strings.Cut(l, ":")
		k = strings.TrimSpace(k)
		switch {
		case !same && slices.Contains(staleKeys, k):
			continue
		case s.Rebase && k == "StartTime" && h.UnixStartTime != 0:
			l = "StartTime: " + time.Unix(h.UnixStartTime, 0).In(zone(h.TimeZone)).Format("Mon Jan 02 15:04:05 MST 2006")
		}
		out.Lines = append(out.Lines, l)
	}
	if !same {
		out.MaxJobs = 0
	}
	out.Lines = append(out.Lines, "Note: selected by gmark from "+strings.Join(sources, ", ")+": "+s.Describe())
	return &out
}

// zone is the time zone a trace names, UTC when it names none gmark can
// load.
func zone(name string) *time.Location {
	if loc, err := time.LoadLocation(name); err == nil && name != "" {
		return loc
	}
	return time.UTC
}

// Describe is a one-line account of a selection, for output headers.
func (s Selection) Describe() string {
	var parts []string
	f := s.Filter
	if f.Submit.Set() {
		parts = append(parts, "submit "+f.Submit.String())
	}
	if f.RunTime.Set() {
		parts = append(parts, "runtime "+f.RunTime.String())
	}
	if f.Procs.Set() {
		parts = append(parts, "procs "+f.Procs.String())
	}
	if len(f.Sites) > 0 {
		parts = append(parts, "sites "+strings.Join(f.Sites, ";"))
	}
	if len(f.Users) > 0 {
		parts = append(parts, "users "+strings.Join(f.Users, ";"))
	}
	if len(f.Status) > 0 {
		parts = append(parts, fmt.Sprintf("status %v", f.Status))
	}
	if s.AreaWidth > 0 {
		var ts []string
		for _, t := range s.AreaTargets {
			ts = append(ts, t.String())
		}
		parts = append(parts, fmt.Sprintf("area %gs %s", s.AreaWidth, strings.Join(ts, ";")))
	}
	if f.FirstN > 0 {
		parts = append(parts, fmt.Sprintf("first %d", f.FirstN))
	}
	if !s.Scale.Identity() {
		parts = append(parts, fmt.Sprintf("scale submit %g runtime %g procs %g", one(s.Scale.Submit), one(s.Scale.RunTime), one(s.Scale.Procs)))
	}
	if len(parts) == 0 {
		return "all jobs"
	}
	return strings.Join(parts, ", ")
}

func one(f float64) float64 {
	if f == 0 {
		return 1
	}
	return f
}

// Copy writes every record of r to w and returns how many it wrote.
// progress, when not nil, is called every 64 Ki records.
func Copy(w Writer, r Reader, progress func(int64)) (int64, error) {
	var n int64
	_, err := ForEach(r, func(rec *Record) error {
		if err := w.Write(rec); err != nil {
			return err
		}
		n++
		if progress != nil && n&0xffff == 0 {
			progress(n)
		}
		return nil
	})
	return n, err
}

// durationUnits are the units of ParseDurationSeconds, largest first: the
// order the terms of a compound duration ("7d1h") take.
var durationUnits = []struct {
	suffix string
	mult   float64
}{{"w", 7 * 86400}, {"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}, {"ms", 0.001}}

// ParseDurationSeconds reads "90", "90s", "2m", "3h", "1.5d" as seconds,
// and compound durations, terms from the largest unit down, each unit at
// most once: "7d1h", "1h30m", "2w3.5d", "-1m30s" (a sign comes first and
// applies to the whole). At most MaxDuration in magnitude (so that it
// converts to a time.Duration, and compares with any time a trace holds).
func ParseDurationSeconds(s string) (float64, error) {
	body := strings.TrimSpace(s)
	bad := fmt.Errorf("%q is not a duration (a number with an optional unit ms, s, m, h, d or w, or terms from the largest unit down such as 7d1h or 1h30m)", s)
	sign := 1.0
	if strings.HasPrefix(body, "-") || strings.HasPrefix(body, "+") {
		if body[0] == '-' {
			sign = -1
		}
		body = body[1:]
	}
	var total float64
	if v, ok := parseNumber([]byte(body)); ok && body != "" && body[0] != '-' && body[0] != '+' {
		total = v // a bare number: seconds
	} else {
		terms, last := 0, -1
		for body != "" {
			n := numberPrefix(body)
			if n == 0 {
				return 0, bad
			}
			num, rest := body[:n], body[n:]
			unit := -1
			for i, u := range durationUnits {
				// "ms" before "m": the longest unit that the rest starts with.
				if strings.HasPrefix(rest, u.suffix) && (unit < 0 || len(u.suffix) > len(durationUnits[unit].suffix)) {
					unit = i
				}
			}
			v, ok := parseNumber([]byte(num))
			if unit < 0 || unit <= last || !ok {
				return 0, bad
			}
			total += v * durationUnits[unit].mult
			body, last, terms = rest[len(durationUnits[unit].suffix):], unit, terms+1
		}
		if terms == 0 {
			return 0, bad
		}
	}
	if math.IsInf(total, 0) || math.IsNaN(total) {
		return 0, bad
	}
	if total > MaxDuration {
		return 0, fmt.Errorf("%q is out of range (at most %d s, about 292 years, in magnitude)", s, int64(MaxDuration))
	}
	return sign * total, nil
}

// numberPrefix is the length of the unsigned decimal number s starts with
// (digits, a point, an exponent with its sign).
func numberPrefix(s string) int {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c >= '0' && c <= '9' || c == '.':
		case (c == 'e' || c == 'E') && i > 0 && i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '-' || s[i+1] == '+'):
		case (c == '-' || c == '+') && i > 0 && (s[i-1] == 'e' || s[i-1] == 'E'):
		default:
			return i
		}
		i++
	}
	return i
}
