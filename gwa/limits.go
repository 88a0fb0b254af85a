package gwa

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// The ranges of the numbers a trace may hold (docs/trace.md, "Ranges").
// They are wide enough for any real trace, and for any duration a
// generated workload can hold (the heavy tails of fitted models reach
// centuries), and narrow enough that nothing derived from a record
// overflows: each time converts to a time.Duration (2^63 ns ≈ 2^33.1 s),
// and a run time times a size is at most about 2^64 processor-seconds, a
// finite float64. NaN and the infinities are never in range. The bounds are on
// magnitudes: what a negative value means (a reservation's negative wait,
// a negative run time) is the analysis's business, not the reader's.
const (
	// MaxSubmitTime bounds submit times, s: Unix times up to 2106, and
	// offsets as long.
	MaxSubmitTime = 1 << 32
	// MaxDuration bounds waits, run times, requested times, CPU times and
	// think times, s: the most whole seconds a time.Duration holds (about
	// 292 years), so that every workload's durations can be written.
	MaxDuration = math.MaxInt64 / 1_000_000_000
	// MaxProcs bounds processor counts, a job's and a system's.
	MaxProcs = 1<<31 - 1
	// MaxAmount bounds memory (KB), network and disk quantities.
	MaxAmount = 1e15
	// MaxHeaderJobs bounds a header's MaxJobs.
	MaxHeaderJobs = 1 << 53
)

// ErrOutOfRange marks a value outside the ranges above that did not come
// from a trace line (a scaled record): a bad request, not a failure.
var ErrOutOfRange = errors.New("out of range")

// fieldBound is the largest magnitude of a numeric field and its unit for
// messages.
func fieldBound(f int) (bound float64, unit string) {
	switch f {
	case fSubmitTime:
		return MaxSubmitTime, " s"
	case fWaitTime, fRunTime, fAvgCPUTimeUsed, fReqTime, fThinkTime:
		return MaxDuration, " s"
	case fNProcs, fReqNProcs:
		return MaxProcs, ""
	}
	return MaxAmount, ""
}

// checkField tells what is wrong with value v of numeric field f, or "".
// It is on the parser's hot path: a value within the smallest bound (almost
// every value) is let through without looking at the field; NaN fails the
// comparison and goes on to the full check.
func checkField(f int, v float64) string {
	if v <= MaxProcs && v >= -MaxProcs {
		return ""
	}
	return checkFieldBound(f, v)
}

func checkFieldBound(f int, v float64) string {
	bound, unit := fieldBound(f)
	if math.Abs(v) <= bound {
		return ""
	}
	return fieldName(f) + " " + formatNumber(v) + " is out of range (at most " + formatNumber(bound) + unit + " in magnitude)"
}

// formatNumber writes a number for a message: whole numbers in full up to
// 10^15, others in the shortest form.
func formatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// checkRecord tells what is wrong with a record's numbers, or "": a number
// out of its range, a status no reader accepts, or a submit offset a reader
// would take for an absolute time. Writers refuse such a record (what they
// wrote could not be read back as it was), and so does scaling.
func checkRecord(r *Record) string {
	for _, x := range [...]struct {
		f int
		v float64
	}{{fSubmitTime, r.SubmitTime}, {fWaitTime, r.WaitTime}, {fRunTime, r.RunTime}, {fNProcs, r.NProcs},
		{fAvgCPUTimeUsed, r.AvgCPUTimeUsed}, {fUsedMemory, r.UsedMemory}, {fReqNProcs, r.ReqNProcs},
		{fReqTime, r.ReqTime}, {fReqMemory, r.ReqMemory}, {fUsedNetwork, r.UsedNetwork},
		{fUsedLocalDiskSpace, r.UsedLocalDiskSpace}, {fReqNetwork, r.ReqNetwork},
		{fReqLocalDiskSpace, r.ReqLocalDiskSpace}, {fThinkTime, r.ThinkTime}} {
		if msg := checkField(x.f, x.v); msg != "" {
			return msg
		}
	}
	if r.Status < -1 || r.Status > 5 {
		return "Status " + strconv.Itoa(r.Status) + " is not one of -1 … 5"
	}
	if r.SubmitTime >= absoluteThreshold {
		return "SubmitTime " + strconv.FormatFloat(r.SubmitTime, 'f', -1, 64) + " s is an offset of 20 years or more, which reads back as an absolute Unix time"
	}
	return ""
}

// writable is checkRecord as an error for writers and transformations.
func writable(r *Record) error {
	if msg := checkRecord(r); msg != "" {
		return fmt.Errorf("job %s: %s: %w", field(r.JobID), msg, ErrOutOfRange)
	}
	return nil
}

// checkHeader tells why a writer cannot write h so that a reader reads it
// back (a time base moved out of range by a selection), or nil.
func checkHeader(h *Header) error {
	if h == nil {
		return nil
	}
	for _, x := range []struct {
		key    string
		v, max int64
	}{{"UnixStartTime", h.UnixStartTime, MaxSubmitTime}, {"MaxProcs", int64(h.MaxProcs), MaxProcs},
		{"MaxNodes", int64(h.MaxNodes), MaxProcs}, {"MaxJobs", int64(h.MaxJobs), MaxHeaderJobs}} {
		if x.v < Missing || x.v > x.max {
			return fmt.Errorf("header %s %d is out of range (0 … %d): %w", x.key, x.v, x.max, ErrOutOfRange)
		}
	}
	return nil
}
