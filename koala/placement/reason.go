package placement

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Why a placement fails. As Nomad's scheduler records, per node, the filter
// that rejected it (AllocMetric.FilterNode), a failed placement says, per
// site, why the component it could not place does not go there. The policies
// return it instead of a bare false; the core keeps it on the queued job,
// emits it when it changes, and the API shows it.

// Code names one reason a site refuses a component.
type Code uint8

// The reasons, from the most lasting to the most passing: a site that is too
// small never takes the component, one that is busy may take it at the next
// scan. A site is given the first that applies.
const (
	// TooSmall: the site has fewer processors than the component asks for,
	// even idle ("no site big enough" when every site says so).
	TooSmall Code = iota + 1
	// Excluded: the job met errors at the site (a soft error, or the site
	// went down while the job was on it) and avoids it from then on.
	Excluded
	// Down: the site is out of service (taken down, or after repeated soft
	// errors); Detail says why.
	Down
	// Busy: the site's local resource manager has fewer idle processors
	// than the component needs (local jobs and claimed grid jobs hold them).
	Busy
	// Reserved: the local resource manager has enough idle processors (for
	// the job's total: more than the job may have), but the co-allocator
	// has placed other jobs on them (KOALA's soft reservation): they are
	// promised until those jobs claim them.
	Reserved
	// TakenByJob: the site had room, but the job's own larger components,
	// placed first, took it.
	TakenByJob
	// NoReplica: an input file (Detail) has no replica the site can read
	// it from: the grid holds none, or, for Close-to-Files, none paired
	// with the site in its history table.
	NoReplica
)

var codeNames = [...]string{TooSmall: "too_small", Excluded: "excluded", Down: "down", Busy: "busy",
	Reserved: "reserved", TakenByJob: "taken_by_job", NoReplica: "no_replica"}

// Codes lists every reason code.
func Codes() []Code {
	return []Code{TooSmall, Excluded, Down, Busy, Reserved, TakenByJob, NoReplica}
}

func (c Code) String() string {
	if int(c) < len(codeNames) && codeNames[c] != "" {
		return codeNames[c]
	}
	return "code(" + strconv.Itoa(int(c)) + ")"
}

// MarshalText writes the code's name.
func (c Code) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a code's name.
func (c *Code) UnmarshalText(b []byte) error {
	for i, n := range codeNames {
		if n != "" && n == string(b) {
			*c = Code(i)
			return nil
		}
	}
	return fmt.Errorf("unknown placement reason %q", b)
}

// Total is the Component of a reason about the job as a whole: a flexible
// job's total, or a job asking for more processors than the sites have idle
// in all.
const Total = -1

// Reason is why one site does not take one component of a job (or the job's
// total, Component = Total) at one placement try.
type Reason struct {
	Site      string
	Component int    // the component's index in the job, or Total
	Need      int    // processors the component (or the job) asks for
	Code      Code   //
	Have      int    // processors: the site's size (TooSmall) or what it has idle for the job (Busy, Reserved, TakenByJob)
	Detail    string // Down: why the site is out of service; NoReplica: the file
}

// Same tells whether two reasons say the same thing, whatever the counts of
// idle processors: the core reports a job's reasons again only when they
// change in this sense.
func (r *Reason) Same(o *Reason) bool {
	return r.Code == o.Code && r.Component == o.Component && r.Need == o.Need && r.Site == o.Site && r.Detail == o.Detail
}

// SameReasons tells whether two lists of reasons are the Same, in order.
func SameReasons(a, b []Reason) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Same(&b[i]) {
			return false
		}
	}
	return true
}

// Message says the reason in words, without the site's name.
func (r *Reason) Message() string {
	what := "component " + strconv.Itoa(r.Component)
	if r.Component == Total {
		what = "the job"
	}
	need := fmt.Sprintf("%s needs %d", what, r.Need)
	switch r.Code {
	case TooSmall:
		return fmt.Sprintf("too small: %d processors; %s", r.Have, need)
	case Excluded:
		return "excluded: the job met an error here (a soft error, or the site went down under it)"
	case Down:
		if r.Detail == "" {
			return "out of service"
		}
		return "out of service: " + r.Detail
	case Busy:
		return fmt.Sprintf("busy: %d idle; %s", r.Have, need)
	case Reserved:
		return fmt.Sprintf("soft-reserved: %d idle not promised to placed jobs; %s", r.Have, need)
	case TakenByJob:
		return fmt.Sprintf("taken by the job's larger components: %d left; %s", r.Have, need)
	case NoReplica:
		return fmt.Sprintf("no replica of input file %q reachable", r.Detail)
	}
	return r.Code.String()
}

// String is the site and the message: "fs0: busy: 12 idle; component 0 needs 64".
func (r Reason) String() string { return r.Site + ": " + r.Message() }

// reasonJSON is a Reason on the wire: the fields, and the message.
type reasonJSON struct {
	Site      string `json:"site"`
	Component int    `json:"component"`
	Need      int    `json:"need"`
	Code      Code   `json:"code"`
	Have      int    `json:"have"`
	Detail    string `json:"detail,omitempty"`
	Message   string `json:"message"`
}

// MarshalJSON writes the reason with its message.
func (r Reason) MarshalJSON() ([]byte, error) {
	return json.Marshal(reasonJSON{r.Site, r.Component, r.Need, r.Code, r.Have, r.Detail, r.Message()})
}

// UnmarshalJSON reads a reason (its message is derived, not read).
func (r *Reason) UnmarshalJSON(b []byte) error {
	var v reasonJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Reason{Site: v.Site, Component: v.Component, Need: v.Need, Code: v.Code, Have: v.Have, Detail: v.Detail}
	return nil
}

// Summary is a list of reasons on one line: "fs0: busy: 12 idle; component
// 0 needs 64. fs1: out of service: maintenance".
func Summary(rs []Reason) string {
	parts := make([]string, len(rs))
	for i := range rs {
		parts[i] = rs[i].String()
	}
	return strings.Join(parts, ". ")
}

// Failure is why a placement failed: per site, why the first component
// (largest first) that found no site does not go there, or why the job's
// total does not fit. Sites that would have taken it are left out. A
// component fixed on a site has the one reason of that site.
type Failure struct {
	Reasons []Reason
}

func (f *Failure) String() string { return Summary(f.Reasons) }

// classify is the first reason that keeps site i from giving need
// processors to the job, or 0 when it has them. left is what the site has
// idle for this job now (its idle processors, less what the job's earlier
// components took); for the job's total (total = true), a site's size is
// no reason.
func classify(site *Site, excluded bool, need, left int, total bool) Code {
	switch {
	case !total && site.Processors > 0 && site.Processors < need:
		return TooSmall
	case excluded:
		return Excluded
	case site.Down != "":
		return Down
	case left >= need:
		return 0
	case !total && site.Idle >= need:
		return TakenByJob
	case !total && site.LocalIdle >= need, total && site.LocalIdle > left:
		// A component would fit but for the soft reservations; a share of
		// the job's total is smaller for them.
		return Reserved
	}
	return Busy
}

// have is the count of processors a reason with code gives.
func have(site *Site, code Code, left int) int {
	switch code {
	case TooSmall:
		return site.Processors
	case Busy, Reserved, TakenByJob:
		return left
	}
	return 0
}

// Explain appends to dst the reasons the core's cheap checks found a job
// hopeless with, without running a policy: component (an index into
// req.Components, or Total) does not fit any site's idle processors as info
// gives them. It allocates only when dst is too short.
func Explain(dst []Reason, req *Request, info *Info, component int) []Reason {
	need, total := req.Total(), component == Total
	if !total {
		need = req.Components[component].Size
		component = req.Components[component].Index
	}
	for i := range info.Sites {
		site := &info.Sites[i]
		excluded := len(req.Exclude) > 0 && req.Exclude[site.Name]
		left := site.Idle
		if excluded {
			left = 0
		}
		if code := classify(site, excluded, need, left, total); code != 0 {
			dst = append(dst, Reason{Site: site.Name, Component: component, Need: need, Code: code, Have: have(site, code, left)})
			if code == Down {
				dst[len(dst)-1].Detail = site.Down
			}
		}
	}
	return dst
}
