package gwa

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Stat is a statistic that a trace may leave undefined: the mean of no
// values, a rate over no time, a share of nothing. It is a finite Value, or
// absent with the reason why; never NaN or an infinity, which JSON cannot
// hold and which read as numbers in text. In JSON an absent Stat is null,
// and the object holding it lists the reason under "absent"; in text it
// prints as "n/a".
type Stat struct {
	Value float64
	Why   string // non-empty: absent, and why
}

// Reasons for absent statistics, shared so that they read alike.
const (
	whyNoJobs     = "the trace has no jobs"
	whyNoValues   = "no job has a value"
	whyZeroMean   = "the mean is 0"
	whyNoSpan     = "the trace spans no time (its first submission is its last end)"
	whyNoSize     = "the system size is unknown (none was given, the header has no MaxProcs or MaxNodes, and no job ran)"
	whyNoSizes    = "no job has a known size"
	whyNoParallel = "no job is parallel"
	whyNoCPU      = "no CPU time was consumed"
	whyNotFinite  = "not a finite number"
	whyNoRunTimes = "none of its jobs has a known run time"
	whyNoWaits    = "none of its jobs has a known wait"
	whyNoneRan    = "no job ran"
	whyUnordered  = "the trace is not in submit order and has more jobs than the memory budget of exact statistics keeps: the gaps between consecutive submissions are not known"
)

// known is v as a Stat: absent when it is not finite.
func known(v float64) Stat {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Stat{Why: whyNotFinite}
	}
	return Stat{Value: v}
}

// absent is a Stat with no value.
func absent(why string) Stat { return Stat{Why: why} }

// ratio is a/b, absent with why when b is 0.
func ratio(a, b float64, why string) Stat {
	if b == 0 {
		return absent(why)
	}
	return known(a / b)
}

// OK tells whether the statistic has a value.
func (s Stat) OK() bool { return s.Why == "" }

// Or is the value, or def when absent.
func (s Stat) Or(def float64) float64 {
	if s.OK() {
		return s.Value
	}
	return def
}

// MarshalJSON writes the value, or null.
func (s Stat) MarshalJSON() ([]byte, error) {
	if !s.OK() {
		return []byte("null"), nil
	}
	return json.Marshal(s.Value)
}

// UnmarshalJSON reads a value or null (whose reason is in the holding
// object's "absent", which this cannot see).
func (s *Stat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = absent("absent")
		return nil
	}
	*s = Stat{}
	return json.Unmarshal(b, &s.Value)
}

// Format prints the value under the verb and flags given, or "n/a" in the
// same width.
func (s Stat) Format(f fmt.State, verb rune) {
	if !s.OK() {
		w, ok := f.Width()
		if !ok {
			w = 0
		}
		if f.Flag('-') {
			fmt.Fprintf(f, "%-*s", w, "n/a")
		} else {
			fmt.Fprintf(f, "%*s", w, "n/a")
		}
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), s.Value)
}

// withAbsent marshals v, a struct, adding an "absent" object that gives the
// reason of each of its Stat fields that is absent, under the field's JSON
// name. Types with Stat fields call it from their MarshalJSON with v of a
// method-less copy of their type, so that the reasons never drift from the
// fields.
func withAbsent(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	rv := reflect.ValueOf(v)
	rt := rv.Type()
	reasons := map[string]string{}
	for i := 0; i < rt.NumField(); i++ {
		sf := rt.Field(i)
		if sf.Type != reflect.TypeOf(Stat{}) {
			continue
		}
		s := rv.Field(i).Interface().(Stat)
		if s.OK() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" {
			name = sf.Name
		}
		reasons[name] = s.Why
	}
	if len(reasons) == 0 {
		return b, nil
	}
	r, err := json.Marshal(reasons)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte("}"))
	if !bytes.Equal(b, []byte("{")) {
		b = append(b, ',')
	}
	b = append(b, `"absent":`...)
	b = append(b, r...)
	return append(b, '}'), nil
}
