// Package wdl reads GrenchMark's workload description language: the text
// format "text/wl-spec", in its 7-column v1.0 and 9-column v1.1 layouts, and
// the Key=Value extension files it includes. It produces a Spec, never jobs;
// the generator turns a Spec into a workload.
//
// The grammar, with examples, is in docs/wdl.md. Every error is reported as
// "file:line:col: message".
package wdl

import (
	"strings"

	"github.com/gmark/gmark/stats"
)

// Spec is a parsed workload description.
type Spec struct {
	File     string   // the path it was read from
	Version  string   // the layout: "1.0" (7 columns) or "1.1" (9 columns)
	Units    []*Unit  // in file order
	Includes []string // external files read, in the order first read
	Warnings ErrorList
}

// SiteType is how a unit's components are placed. The GrenchMark names are
// canonical; KOALA's request-type names are accepted as aliases.
type SiteType string

const (
	Single      SiteType = "single"
	Unordered   SiteType = "unordered"    // KOALA non-fixed
	Ordered     SiteType = "ordered"      // KOALA fixed
	SemiOrdered SiteType = "semi-ordered" // KOALA semi-fixed
	Flexible    SiteType = "flexible"     // KOALA flexible: only the total is given
)

var siteTypeNames = map[string]SiteType{
	"single":       Single,
	"unordered":    Unordered,
	"nonfixed":     Unordered,
	"non-fixed":    Unordered,
	"ordered":      Ordered,
	"fixed":        Ordered,
	"semi-ordered": SemiOrdered,
	"semiordered":  SemiOrdered,
	"semifixed":    SemiOrdered,
	"semi-fixed":   SemiOrdered,
	"flexible":     Flexible,
}

// ParseSiteType reads a site type in either vocabulary, ignoring case.
func ParseSiteType(s string) (SiteType, bool) {
	t, ok := siteTypeNames[strings.ToLower(s)]
	return t, ok
}

// Unknown marks a "?" amount or total: to be worked out from the others.
const Unknown = -1

// AnySite is the "*" site: wherever the scheduler likes.
const AnySite = "*"

// SiteAmount is one "site:amount" entry of SiteInfo.
type SiteAmount struct {
	Site   string // a site name or AnySite
	Amount int    // processors, or Unknown
	Pos    Pos
}

// Unit is one line of the WDL: a unit of the workload that generates NTimes
// jobs (or, for wl: units, a workload of its own).
type Unit struct {
	Pos       Pos  // start of the line
	ID        int  // unique; assigned as (largest so far + 1) when written "?"
	AutoID    bool // the ID was "?" or the layout has no ID column
	Composite bool // GeneratorType contains "composite"
	NTimes    int  // how many jobs (composite jobs, workload instances) the unit makes
	Type      string
	Workload  bool // Type was written with the "wl:" prefix: a workload generator
	// Template is the path of a workflow (a WfFormat instance) written as
	// the type "wf:PATH": every job of the unit is a composite job of its
	// DAG; Type is then "wf".
	Template string
	SiteType SiteType
	Total    int // processors in all, or Unknown
	Sites    []SiteAmount
	Arrival  Arrival
	Options  *Options
	Cols     Columns // where each column starts, for errors found later
}

// Columns holds the position of each column of a unit's line.
type Columns struct {
	ID, Generator, NTimes, Type, SiteType, Total, SiteInfo, Arrival, OtherInfo Pos
}

// FullType is the unit type as written, with the "wl:" prefix when it had one.
func (u *Unit) FullType() string {
	if u.Workload {
		return "wl:" + u.Type
	}
	if u.Template != "" {
		return "wf:" + u.Template
	}
	return u.Type
}

// Arrival is a unit's inter-arrival time distribution, in seconds.
type Arrival struct {
	Text string // as written
	Dist stats.Distribution
	Pos  Pos
}
