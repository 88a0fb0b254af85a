package gwa

import (
	"fmt"
	"math"
	"strings"
)

// The GWA trace ranking (thesis §3.3.3, Table 3.1, Eq. 3.1): six categories,
// each given 0 to 5 stars, and the distance between two traces' signatures.
//
// Bucket edges follow Table 3.1, closed on the upper bound (a value equal to
// an edge gets the lower star count: 100 cores is 0 stars, 101 is 1), with
// k = 1,000 and M = 1,000,000, and utilization in percent as a real number
// (so 10.5% is 1 star: the table's 0-10% / 11-20% gap is closed this way).
// Sites have no 0-star bucket in the table; a trace with no site information
// gets 0.

// Category is one ranking category.
type Category int

const (
	CatSites Category = iota
	CatCores
	CatUsers
	CatJobs
	CatUtilization
	CatReportedWork
	numCategories
)

// Categories are the six categories in the table's order.
var Categories = []Category{CatSites, CatCores, CatUsers, CatJobs, CatUtilization, CatReportedWork}

var categoryNames = [...]string{"sites", "cores", "users", "jobs", "utilization", "reported_work"}

func (c Category) String() string { return categoryNames[c] }

// ParseCategory reads a category name (sites, cores, users, jobs,
// utilization, reported_work; also "work" and "reported").
func ParseCategory(s string) (Category, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for i, n := range categoryNames {
		if s == n {
			return Category(i), nil
		}
	}
	switch s {
	case "work", "reported", "reportedwork", "reported-work":
		return CatReportedWork, nil
	case "util", "utilisation":
		return CatUtilization, nil
	case "processors", "cpus":
		return CatCores, nil
	}
	return 0, fmt.Errorf("unknown ranking category %q (sites, cores, users, jobs, utilization, reported_work)", s)
}

// starEdges are the upper bounds of stars 0 … 4 per category; above the
// last edge is 5 stars.
var starEdges = [numCategories][5]float64{
	CatSites:        {0, 1, 5, 10, 20},
	CatCores:        {100, 1000, 5000, 10000, 25000},
	CatUsers:        {50, 100, 200, 500, 1000},
	CatJobs:         {15000, 100000, 200000, 500000, 1000000},
	CatUtilization:  {10, 20, 40, 60, 75},
	CatReportedWork: {0, 1, 5, 10, 20},
}

// Stars classifies one value of a category.
func Stars(c Category, v float64) int {
	for s, edge := range starEdges[c] {
		if v <= edge {
			return s
		}
	}
	return 5
}

// TraceFacts are the values a signature is computed from. A negative value
// means unknown, and leaves its category out.
type TraceFacts struct {
	Sites        int
	Cores        int
	Users        int
	Jobs         int64
	Utilization  float64 // percent
	ReportedWork int
	// CoresEstimated says Cores is an estimate (the trace gives no system
	// size), and so is the utilization computed on it.
	CoresEstimated bool
}

// Signature is a trace's stars per category; Known says which categories
// were computed.
type Signature struct {
	Stars [numCategories]int  `json:"stars"` // sites, cores, users, jobs, utilization, reported work
	Known [numCategories]bool `json:"known"`
	// Estimated marks the categories that rest on an estimate: cores and
	// utilization when the system size was estimated.
	Estimated [numCategories]bool `json:"estimated"`
	// Value is the distance to the all-zero "sample" workload over the known
	// categories: Σ stars² / (25·|C|).
	Value float64 `json:"value"`
}

// Classify computes a signature.
func Classify(f TraceFacts) Signature {
	var s Signature
	set := func(c Category, v float64, known bool) {
		if known {
			s.Stars[c], s.Known[c] = Stars(c, v), true
		}
	}
	set(CatSites, float64(f.Sites), f.Sites >= 0)
	set(CatCores, float64(f.Cores), f.Cores >= 0)
	set(CatUsers, float64(f.Users), f.Users >= 0)
	set(CatJobs, float64(f.Jobs), f.Jobs >= 0)
	set(CatUtilization, f.Utilization, f.Utilization >= 0 && !math.IsNaN(f.Utilization))
	set(CatReportedWork, float64(f.ReportedWork), f.ReportedWork >= 0)
	if f.CoresEstimated {
		s.Estimated[CatCores], s.Estimated[CatUtilization] = s.Known[CatCores], s.Known[CatUtilization]
	}
	s.Value, _ = Distance(s.KnownCategories(), s, Signature{Known: s.Known})
	return s
}

// EstimatedCategories lists those of cats that rest on an estimate.
func (s Signature) EstimatedCategories(cats []Category) []string {
	var est []string
	for _, c := range cats {
		if s.Known[c] && s.Estimated[c] {
			est = append(est, c.String())
		}
	}
	return est
}

// KnownCategories lists the categories the signature has.
func (s Signature) KnownCategories() []Category {
	var cs []Category
	for _, c := range Categories {
		if s.Known[c] {
			cs = append(cs, c)
		}
	}
	return cs
}

// String is e.g. "sites 5, cores 4, users 3, jobs 2, utilization 5, reported_work ?";
// a category that rests on an estimate says so: "cores ** (estimated)".
func (s Signature) String() string {
	var parts []string
	for _, c := range Categories {
		v := "?"
		if s.Known[c] {
			v = strings.Repeat("*", s.Stars[c])
			if v == "" {
				v = "0"
			}
			if s.Estimated[c] {
				v += " (estimated)"
			}
		}
		parts = append(parts, c.String()+" "+v)
	}
	return strings.Join(parts, ", ")
}

// Distance is Eq. 3.1: D(C, W1, W2) = Σ_{k∈C} (c1ᵏ − c2ᵏ)² / (25·|C|), in
// [0, 1]. Every category of C must be known in both signatures.
func Distance(cs []Category, a, b Signature) (float64, error) {
	if len(cs) == 0 {
		return 0, fmt.Errorf("distance over no category")
	}
	sum := 0.0
	for _, c := range cs {
		if !a.Known[c] || !b.Known[c] {
			return 0, fmt.Errorf("category %s is unknown for one of the traces", c)
		}
		d := float64(a.Stars[c] - b.Stars[c])
		sum += d * d
	}
	return sum / (25 * float64(len(cs))), nil
}
