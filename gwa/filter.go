package gwa

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Range is an interval of values; an unset bound is open. Submit windows
// are half-open, [Min, Max); other ranges are closed, [Min, Max].
type Range struct {
	Min, Max       float64
	HasMin, HasMax bool
}

// Set tells whether either bound is set.
func (r Range) Set() bool { return r.HasMin || r.HasMax }

func (r Range) contains(v float64, halfOpen bool) bool {
	if r.HasMin && v < r.Min {
		return false
	}
	if r.HasMax && (v > r.Max || halfOpen && v == r.Max) {
		return false
	}
	return true
}

func (r Range) String() string {
	f := func(v float64, has bool) string {
		if !has {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return f(r.Min, r.HasMin) + ".." + f(r.Max, r.HasMax)
}

// Filter selects records (thesis §5.6.2's filters, the GWA toolbox's
// F-A7). A record is kept when it passes every set criterion; then FirstN
// keeps the first N records so kept.
type Filter struct {
	Submit  Range    // submit-time window, [Min, Max), offsets from the time base
	RunTime Range    // run time, [Min, Max]; an unknown run time fails a set range
	Procs   Range    // size (allocated, else requested processors); unknown fails
	Sites   []string // site ids or names (partition names from the SWF header)
	Users   []string
	Status  []int // -1, 0 (failed), 1 (completed), 2-4 (partial), 5 (cancelled)
	FirstN  int64 // 0: all
}

// Empty tells whether the filter keeps everything.
func (f *Filter) Empty() bool {
	return !f.Submit.Set() && !f.RunTime.Set() && !f.Procs.Set() && len(f.Sites) == 0 && len(f.Users) == 0 &&
		len(f.Status) == 0 && f.FirstN == 0
}

// matcher is a compiled filter.
type matcher struct {
	f      Filter
	hdr    *Header
	sites  map[string]bool
	users  map[string]bool
	status map[int]bool
}

func newMatcher(f Filter, h *Header) *matcher {
	m := &matcher{f: f, hdr: h}
	set := func(xs []string) map[string]bool {
		if len(xs) == 0 {
			return nil
		}
		s := map[string]bool{}
		for _, x := range xs {
			s[x] = true
		}
		return s
	}
	m.sites, m.users = set(f.Sites), set(f.Users)
	if len(f.Status) > 0 {
		m.status = map[int]bool{}
		for _, s := range f.Status {
			m.status[s] = true
		}
	}
	return m
}

func (m *matcher) keep(r *Record) bool {
	f := &m.f
	if !f.Submit.contains(r.SubmitTime, true) {
		return false
	}
	if rt, known := r.KnownRunTime(); f.RunTime.Set() && (!known || !f.RunTime.contains(rt, false)) {
		return false
	}
	if f.Procs.Set() {
		p := r.Procs()
		if p <= 0 || !f.Procs.contains(p, false) {
			return false
		}
	}
	if m.sites != nil {
		s := r.Site()
		if !m.sites[s] && !m.sites[m.hdr.SiteName(s)] {
			return false
		}
	}
	if m.users != nil && !m.users[r.UserID] {
		return false
	}
	if m.status != nil && !m.status[r.Status] {
		return false
	}
	return true
}

// filtered is a Reader that passes only the records a Filter keeps.
type filtered struct {
	Reader
	m    *matcher
	kept int64
}

// Filtered wraps r so it returns only the records f keeps.
func Filtered(r Reader, f Filter) Reader {
	if f.Empty() {
		return r
	}
	return &filtered{Reader: r, m: newMatcher(f, r.Header())}
}

func (fr *filtered) Next() (Record, error) {
	for {
		if fr.m.f.FirstN > 0 && fr.kept >= fr.m.f.FirstN {
			return Record{}, errEOF
		}
		rec, err := fr.Reader.Next()
		if err != nil {
			return rec, err
		}
		if fr.m.keep(&rec) {
			fr.kept++
			return rec, nil
		}
	}
}

// ParseStatus reads a status name or number: completed (1), failed (0),
// cancelled (5), partial (2, 3, 4 — all three), unknown (-1).
func ParseStatus(s string) ([]int, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "completed", "complete", "ok", "success":
		return []int{1}, nil
	case "failed", "fail":
		return []int{0}, nil
	case "cancelled", "canceled":
		return []int{5}, nil
	case "partial":
		return []int{2, 3, 4}, nil
	case "unknown":
		return []int{-1}, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < -1 || n > 5 {
		return nil, fmt.Errorf("unknown status %q (completed, failed, cancelled, partial, unknown, or a number -1..5)", s)
	}
	return []int{n}, nil
}

// Scale multiplies times and sizes (thesis §5.4.1 and §5.6.2): a factor of
// 0 means 1 (unchanged).
type Scale struct {
	// Submit multiplies submit offsets (from the selection's start): 0.1
	// makes arrivals ten times as dense.
	Submit float64
	// RunTime multiplies run time, requested time and CPU time.
	RunTime float64
	// Procs multiplies allocated and requested processors, rounded to the
	// nearest whole number and at least 1.
	Procs float64
	// Exact keeps the products of scaled times as they are. Otherwise a
	// scaled time is rounded to the nearest whole second, and a positive
	// run, requested or CPU time to at least 1 s, as sizes are rounded to
	// whole processors: SWF holds whole seconds, and 534 × 0.1 is
	// 53.400000000000006 in floating point, noise rather than a time.
	// trace select rounds; wl:trace keeps the exact products (a workload's
	// times are not limited to whole seconds, and rounding arrivals
	// compressed to tenths of a second would bunch them).
	Exact bool
}

// Identity tells whether the scale changes nothing.
func (s Scale) Identity() bool {
	return (s.Submit == 0 || s.Submit == 1) && (s.RunTime == 0 || s.RunTime == 1) && (s.Procs == 0 || s.Procs == 1)
}

// scaledSubmit is a submit offset times f (rounded unless exact).
func scaledSubmit(v, f float64, exact bool) float64 {
	if f == 0 || f == 1 || v == Missing {
		return v
	}
	if exact {
		return v * f
	}
	return math.Round(v * f)
}

// scaledTime is a duration times f (rounded unless exact, a positive one
// to at least 1 s). A negative duration is unknown and stays as it is.
func scaledTime(v, f float64, exact bool) float64 {
	if f == 0 || f == 1 || v < 0 {
		return v
	}
	if exact {
		return v * f
	}
	x := math.Round(v * f)
	if v > 0 && x < 1 {
		x = 1
	}
	return x
}

func scaledProcs(v, f float64) float64 {
	if f == 0 || f == 1 || v <= 0 {
		return v
	}
	return math.Max(1, math.Round(v*f))
}

// Apply scales one record (its submit offset as it is: rebase first).
func (s Scale) Apply(r *Record) {
	r.SubmitTime = scaledSubmit(r.SubmitTime, s.Submit, s.Exact)
	r.RunTime = scaledTime(r.RunTime, s.RunTime, s.Exact)
	r.ReqTime = scaledTime(r.ReqTime, s.RunTime, s.Exact)
	r.AvgCPUTimeUsed = scaledTime(r.AvgCPUTimeUsed, s.RunTime, s.Exact)
	r.NProcs = scaledProcs(r.NProcs, s.Procs)
	r.ReqNProcs = scaledProcs(r.ReqNProcs, s.Procs)
}

// transformed rebases and scales the records of a reader.
type transformed struct {
	Reader
	origin float64
	scale  Scale
	hdr    Header
}

// Transform returns r with submit times made offsets from origin (the
// selection's start), then scaled by s. The header's time base moves to
// origin (rounded to the second), so time-of-day analyses still hold for an
// unscaled selection.
func Transform(r Reader, origin float64, s Scale) Reader {
	if origin == 0 && s.Identity() {
		return r
	}
	t := &transformed{Reader: r, origin: origin, scale: s, hdr: *r.Header()}
	if t.hdr.UnixStartTime != 0 {
		t.hdr.UnixStartTime += int64(math.Round(origin))
	}
	return t
}

func (t *transformed) Header() *Header { return &t.hdr }

func (t *transformed) Next() (Record, error) {
	rec, err := t.Reader.Next()
	if err != nil {
		return rec, err
	}
	rec.SubmitTime -= t.origin
	t.scale.Apply(&rec)
	// A scale can push a number out of range (a run time times 10^6): that
	// is an error, not a silently overflowing duration downstream.
	if err := writable(&rec); err != nil {
		return Record{}, fmt.Errorf("after rebasing and scaling, %w", err)
	}
	return rec, nil
}
