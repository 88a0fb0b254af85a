package gwa

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// The job characteristics gmark fit models, and their extraction from a
// trace in one pass.

// FitField is one characteristic that can be extracted from a trace and
// fitted.
type FitField struct {
	Name string
	Doc  string // what it is, with its unit
	Unit string
}

var fitFields = []FitField{
	{"runtime", "run time (s)", "s"},
	{"interarrival", "time between consecutive submissions (s)", "s"},
	{"wait", "wait time (s)", "s"},
	{"size", "processors (allocated, else requested)", "processors"},
	{"cputime", "average CPU time per processor (s)", "s"},
	{"memory", "used memory per processor (KB)", "KB"},
	{"reqtime", "requested time (s)", "s"},
	{"bot-size", "jobs per bag of tasks (bags of 2 or more)", "jobs"},
	{"bot-interarrival", "time between the first submissions of consecutive bags (s)", "s"},
	{"bot-art", "average run time of a bag's jobs (s)", "s"},
	{"bot-rtv", "variance of the run times of a bag's jobs (s²)", "s²"},
}

// FitFields lists the fields, in the order of gmark fit's help.
func FitFields() []FitField { return fitFields }

// FitFieldNames lists the fields' names.
func FitFieldNames() []string {
	var n []string
	for _, f := range fitFields {
		n = append(n, f.Name)
	}
	return n
}

// LookupFitField finds a field by name.
func LookupFitField(name string) (FitField, bool) {
	for _, f := range fitFields {
		if f.Name == name {
			return f, true
		}
	}
	return FitField{}, false
}

// ParseFitFields reads a list of field names (gmark fit's --field): known
// fields, each kept once, in order; at least one.
func ParseFitFields(names []string) ([]string, error) {
	var fields []string
	for _, f := range names {
		if _, ok := LookupFitField(f); !ok {
			return nil, fmt.Errorf("--field %q: not one of %s", f, strings.Join(FitFieldNames(), ", "))
		}
		if !slices.Contains(fields, f) {
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("--field: give at least one of %s", strings.Join(FitFieldNames(), ", "))
	}
	return fields, nil
}

// PeakHours restricts the inter-arrival fields to gaps between two
// arrivals within hours [From, To) of the same day (the thesis's peak
// hours, 8-17). To == 0 keeps every gap.
type PeakHours struct{ From, To int }

// FieldOptions say which fields ReadFields extracts, and how.
type FieldOptions struct {
	Fields []string
	Delta  float64 // Δ of the bag-of-tasks fields: the largest submit gap inside a bag
	Peak   PeakHours
}

// fieldData accumulates the values of the fields while a trace is read.
type fieldData struct {
	want      map[string]bool
	data      map[string][]float64
	submits   []float64
	botStarts []float64
	bots      *BoTAnalyzer
}

func newFieldData(o FieldOptions) *fieldData {
	fd := &fieldData{want: map[string]bool{}, data: map[string][]float64{}}
	for _, f := range o.Fields {
		fd.want[f] = true
	}
	if fd.want["bot-size"] || fd.want["bot-interarrival"] || fd.want["bot-art"] || fd.want["bot-rtv"] {
		fd.bots = NewBoTAnalyzer(o.Delta, func(b *Batch) {
			fd.data["bot-size"] = append(fd.data["bot-size"], float64(b.Size))
			fd.botStarts = append(fd.botStarts, b.Start)
			if b.RunN > 0 {
				fd.data["bot-art"] = append(fd.data["bot-art"], b.MeanRunTime())
				s := b.RunTimeStd()
				fd.data["bot-rtv"] = append(fd.data["bot-rtv"], s*s)
			}
		})
	}
	return fd
}

func recorded(v float64) bool { return v != Missing && !math.IsNaN(v) }

// add takes one record's values: the unknown ones are left out, and so are
// negative times.
func (fd *fieldData) add(rec *Record) {
	put := func(field string, v float64, ok bool) {
		if ok && fd.want[field] {
			fd.data[field] = append(fd.data[field], v)
		}
	}
	put("runtime", rec.RunTime, recorded(rec.RunTime) && rec.RunTime >= 0)
	put("wait", rec.WaitTime, recorded(rec.WaitTime))
	if fd.want["size"] {
		p := rec.Procs()
		put("size", p, p > 0)
	}
	put("cputime", rec.AvgCPUTimeUsed, recorded(rec.AvgCPUTimeUsed) && rec.AvgCPUTimeUsed >= 0)
	put("memory", rec.UsedMemory, recorded(rec.UsedMemory) && rec.UsedMemory >= 0)
	put("reqtime", rec.ReqTime, recorded(rec.ReqTime) && rec.ReqTime >= 0)
	if fd.want["interarrival"] {
		fd.submits = append(fd.submits, rec.SubmitTime)
	}
	if fd.bots != nil {
		fd.bots.Add(rec)
	}
}

// ReadFields reads r to its end and returns the values of each field of o
// (a field the trace does not record has none). progress, when not nil, is
// called with the number of records read so far, every 4096 records and
// at the end. An error of r is returned as it is.
func ReadFields(r Reader, o FieldOptions, progress func(int64)) (map[string][]float64, error) {
	if progress == nil {
		progress = func(int64) {}
	}
	fd := newFieldData(o)
	if fd.bots != nil {
		r = InSubmitOrder(r, 0) // bags-of-tasks follow the submit order
	}
	var n int64
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		n++
		if n%4096 == 0 {
			progress(n)
		}
		fd.add(&rec)
	}
	progress(n)
	if fd.bots != nil {
		fd.bots.Result()
	}
	peak := newPeakFilter(r.Header(), o.Peak)
	if fd.want["interarrival"] {
		fd.data["interarrival"] = gaps(fd.submits, peak)
	}
	if fd.want["bot-interarrival"] {
		fd.data["bot-interarrival"] = gaps(fd.botStarts, peak)
	}
	return fd.data, nil
}

// peakFilter tells whether two arrivals lie in the peak hours of the same
// day, in the trace's time zone when its time base is known.
type peakFilter struct {
	from, to int
	base     int64
	loc      *time.Location
}

func newPeakFilter(h *Header, peak PeakHours) *peakFilter {
	if peak.To == 0 {
		return nil
	}
	p := &peakFilter{from: peak.From, to: peak.To, base: h.UnixStartTime, loc: time.UTC}
	if l, err := time.LoadLocation(h.TimeZone); err == nil && h.TimeZone != "" {
		p.loc = l
	}
	return p
}

func (p *peakFilter) keep(a, b float64) bool {
	ta := time.Unix(p.base+int64(math.Floor(a)), 0).In(p.loc)
	tb := time.Unix(p.base+int64(math.Floor(b)), 0).In(p.loc)
	if ta.YearDay() != tb.YearDay() || ta.Year() != tb.Year() {
		return false
	}
	return ta.Hour() >= p.from && ta.Hour() < p.to && tb.Hour() >= p.from && tb.Hour() < p.to
}

// gaps are the differences between consecutive times, sorted first; with
// a peak filter, only those between two arrivals it keeps.
func gaps(t []float64, peak *peakFilter) []float64 {
	slices.Sort(t)
	var out []float64
	for i := 1; i < len(t); i++ {
		if peak != nil && !peak.keep(t[i-1], t[i]) {
			continue
		}
		out = append(out, t[i]-t[i-1])
	}
	return out
}
