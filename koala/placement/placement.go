// Package placement holds the co-allocator's placement policies: given a
// job's components and what the information service says about the sites,
// choose an execution site for every component, and a file site for each of
// its input files, or fail. Placement is atomic: every component or none.
//
// Policies are pure functions of their inputs (Close-to-Files also keeps its
// history table), so they are tested on hand-worked cases and reused by the
// live core and the simulator alike.
package placement

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gmark/gmark/workload"
)

// Site is what the co-allocator knows about one execution site.
type Site struct {
	Name string
	// Idle is the number of processors the co-allocator may give: idle in the
	// local resource manager, minus processors KOALA already placed jobs on
	// (its internal soft reservation); 0 for a site out of service.
	Idle int

	// Why Idle is what it is, for the reasons of a failed placement (the
	// policies do not read them; zero values mean unknown):
	Processors int    // the site's size
	LocalIdle  int    // idle in the local resource manager, before soft reservations
	Down       string // why the site is out of service; "" when it is in
}

// File is an input file of a job.
type File struct {
	Name string
	Size int64 // bytes
}

// Info is the information service's answer for one placement: sites (sorted
// by name), replicas (replica information provider) and bandwidth (network
// information provider).
type Info struct {
	Sites     []Site
	Replicas  func(file string) []string
	Bandwidth func(from, to string) float64 // bytes/s; +Inf within a site
}

// Component is one component to place.
type Component struct {
	Index int    // position in the job
	Size  int    // processors
	Site  string // a fixed site, or "" for the policy to choose
}

// Request is a job to place.
type Request struct {
	Components []Component
	Files      []File
	// Flexible jobs give only their total (the sum of the component sizes);
	// the policy chooses the number, sizes and sites of the components.
	Flexible bool
	// Exclude lists sites the job must avoid (where it met soft errors).
	Exclude map[string]bool
}

// Total is the number of processors the request asks for.
func (r *Request) Total() int {
	n := 0
	for _, c := range r.Components {
		n += c.Size
	}
	return n
}

// Assignment is where one component goes.
type Assignment struct {
	Index     int
	Size      int
	Site      string
	FileSites []string      // the replica each input file is read from, in the request's file order
	Transfer  time.Duration // estimated time to bring the files to Site
}

// Result is a placement of a whole job.
type Result struct {
	Assignments []Assignment
	// FTT is the file transfer time of the job: the largest over components.
	FTT time.Duration
}

// Policy places jobs.
type Policy interface {
	Name() string
	// Place returns a placement of every component, or, when some
	// component finds no site, a Failure that says why, site by site. It
	// must not change info.
	Place(req *Request, info *Info) (Result, *Failure)
}

// Names of the policies, as jobs and grid.toml name them.
const (
	WorstFit                 = "WF"
	CloseToFiles             = "CF"
	ClusterMinimization      = "CM"
	FlexibleClusterMinimizer = "FCM"
)

// Spec is a placement policy as gmark knows it: its name (as jobs, grid
// files and flags write it), the other names it is accepted under, one
// line of documentation, how to make a fresh instance of it over the
// named sites, and (Scope, nil for none) on which workloads it cannot
// differ from Worst-Fit: the words that follow "policy X has nothing to
// act on: ", or "" when it can (NothingToActOn; flexible is the note on
// the flexible jobs every policy splits alike, to end the reason with).
// Policies lists every policy; the usage strings of the command line,
// New, Names and the errors of an unknown name all come from it.
type Spec struct {
	Name    string
	Aliases []string
	Doc     string
	New     func(sites []string) Policy
	Scope   func(s workload.PlacementScope, flexible string) string
}

// Policies is the table of the placement policies, in the order they are
// listed. The four of the KOALA papers are here; a new policy adds itself
// from its own file: func init() { Policies = append(Policies, Spec{…}) }.
var Policies = []Spec{
	{WorstFit, []string{"worst-fit", "worstfit"}, "Worst-Fit: every component on the cluster with the most idle processors",
		func([]string) Policy { return &worstFit{} }, nil},
	{CloseToFiles, []string{"close-to-files", "closetofiles"}, "Close-to-Files: the cluster that minimizes the transfer of the input files",
		func(sites []string) Policy { return NewCloseToFiles(AllPairs(sites)) }, scopeCF},
	{ClusterMinimization, []string{"cluster-minimization"}, "Cluster Minimization: a job's components on as few clusters as possible",
		func([]string) Policy { return &clusterMin{} }, scopeCM(ClusterMinimization)},
	{FlexibleClusterMinimizer, []string{"flexible-cluster-minimization"}, "Flexible Cluster Minimization: flexible jobs split over as few clusters as possible",
		func([]string) Policy { return &flexClusterMin{} }, scopeCM(FlexibleClusterMinimizer)},
}

// Lookup is the policy of a name or alias, case ignored.
func Lookup(name string) (Spec, bool) {
	for _, p := range Policies {
		if strings.EqualFold(name, p.Name) || slices.ContainsFunc(p.Aliases, func(a string) bool { return strings.EqualFold(name, a) }) {
			return p, true
		}
	}
	return Spec{}, false
}

// New returns a fresh instance of the named policy (Close-to-Files keeps a
// history table, so the core holds one instance per policy). Names and
// aliases are case-insensitive.
func New(name string, sites []string) (Policy, error) {
	if p, ok := Lookup(name); ok {
		return p.New(sites), nil
	}
	names := Names()
	return nil, fmt.Errorf("unknown placement policy %q (%s or %s)", name, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// Names lists the policies.
func Names() []string {
	out := make([]string, len(Policies))
	for i, p := range Policies {
		out[i] = p.Name
	}
	return out
}

// List is the policies' names for a usage string: "WF, CF, CM, FCM".
func List() string { return strings.Join(Names(), ", ") }

// state is the working copy of idle counts during one placement: components
// of the same job take processors from it, so later components see what the
// earlier ones left ("remaining" idle processors).
type state struct {
	info *Info
	idle []int
	req  *Request
}

func newState(req *Request, info *Info) *state {
	s := &state{info: info, idle: make([]int, len(info.Sites)), req: req}
	for i, site := range info.Sites {
		s.idle[i] = site.Idle
		if req.Exclude[site.Name] {
			s.idle[i] = 0
		}
	}
	return s
}

func (s *state) index(name string) int {
	i := sort.Search(len(s.info.Sites), func(i int) bool { return s.info.Sites[i].Name >= name })
	if i < len(s.info.Sites) && s.info.Sites[i].Name == name {
		return i
	}
	return -1
}

// transfer is the time to bring every input file to site, each from its
// best replica (the transfers run in parallel, so the slowest counts), and
// the replicas chosen. A file without replicas cannot be transferred
// (unreachable names it).
func (s *state) transfer(site string) (time.Duration, []string, bool) {
	var worst float64
	var from []string
	for _, f := range s.req.Files {
		best, bestSite := math.Inf(1), ""
		for _, r := range s.info.Replicas(f.Name) {
			t := 0.0
			if r != site {
				t = float64(f.Size) / s.info.Bandwidth(r, site)
			}
			if t < best || t == best && r < bestSite {
				best, bestSite = t, r
			}
		}
		if bestSite == "" {
			return 0, nil, false
		}
		from = append(from, bestSite)
		worst = math.Max(worst, best)
	}
	return secondsToDuration(worst), from, true
}

// unreachable is the first input file that cannot be brought to site (as
// transfer finds it), or "".
func (s *state) unreachable(site string) string {
	for _, f := range s.req.Files {
		ok := false
		for _, r := range s.info.Replicas(f.Name) {
			if r == site || float64(f.Size)/s.info.Bandwidth(r, site) < math.Inf(1) {
				ok = true
				break
			}
		}
		if !ok {
			return f.Name
		}
	}
	return ""
}

// fail is why component c found no site, given what the job's earlier
// components left (s.idle). refuse, when not nil, is the policy's own
// reason to pass over a site that has the processors and the files: the
// name of a file it will not read there.
func (s *state) fail(c Component, refuse func(site string) string) *Failure {
	f := &Failure{Reasons: make([]Reason, 0, len(s.info.Sites))}
	for i := range s.info.Sites {
		site := &s.info.Sites[i]
		if c.Site != "" && site.Name != c.Site {
			continue // a fixed component has the one reason of its site
		}
		code, detail := classify(site, s.req.Exclude[site.Name], c.Size, s.idle[i], false), ""
		if code == Down {
			detail = site.Down
		}
		if code == 0 { // the processors are there: the files are not
			if detail = s.unreachable(site.Name); detail == "" && refuse != nil {
				detail = refuse(site.Name)
			}
			if detail == "" {
				continue // the site would have done: the policy chose another
			}
			code = NoReplica
		}
		f.Reasons = append(f.Reasons, Reason{Site: site.Name, Component: c.Index, Need: c.Size, Code: code,
			Have: have(site, code, s.idle[i]), Detail: detail})
	}
	return f
}

// secondsToDuration rounds up to the millisecond, saturating at the longest
// Duration: a petabyte over a slow link must not wrap to a negative time.
func secondsToDuration(s float64) time.Duration {
	ms := math.Ceil(s * 1000)
	if !(ms < float64(math.MaxInt64/int64(time.Millisecond))) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// ordered returns the components by decreasing size: large components are
// placed first, which raises their chance of success (both CF and WF do this).
// Equal sizes keep the job's order.
func ordered(req *Request) []Component {
	comps := append([]Component(nil), req.Components...)
	sort.SliceStable(comps, func(i, j int) bool { return comps[i].Size > comps[j].Size })
	return comps
}

// assign records a component on site index i.
func (s *state) assign(res *Result, c Component, i int) bool {
	site := s.info.Sites[i].Name
	t, from, ok := s.transfer(site)
	if !ok {
		return false
	}
	s.idle[i] -= c.Size
	res.Assignments = append(res.Assignments, Assignment{Index: c.Index, Size: c.Size, Site: site, FileSites: from, Transfer: t})
	if t > res.FTT {
		res.FTT = t
	}
	return true
}

// placeFixed puts a fixed component on its site, if it fits.
func (s *state) placeFixed(res *Result, c Component) bool {
	i := s.index(c.Site)
	if i < 0 || s.idle[i] < c.Size {
		return false
	}
	return s.assign(res, c, i)
}

// placeEach is the loop every policy shares: components largest first, a
// fixed component on its site, every other on the site choose returns (an
// index into info.Sites, or -1 when none will do). All or nothing. refuse
// is the policy's reason to pass over a site (see fail), or nil.
func placeEach(req *Request, info *Info, choose func(s *state, c Component) int, refuse func(site string) string) (Result, *Failure) {
	s := newState(req, info)
	var res Result
	for _, c := range ordered(req) {
		if c.Site != "" {
			if !s.placeFixed(&res, c) {
				return Result{}, s.fail(c, refuse)
			}
			continue
		}
		i := choose(s, c)
		if i < 0 || !s.assign(&res, c, i) {
			return Result{}, s.fail(c, refuse)
		}
	}
	sort.Slice(res.Assignments, func(i, j int) bool { return res.Assignments[i].Index < res.Assignments[j].Index })
	return res, nil
}

// worstFit puts each component, largest first, on the site with the most
// remaining idle processors (ties: the alphabetically first site), and reads
// each file from the replica with the least transfer time. It balances load.
type worstFit struct{}

func (*worstFit) Name() string { return WorstFit }

func (*worstFit) Place(req *Request, info *Info) (Result, *Failure) {
	if req.Flexible {
		return splitFlexible(req, info)
	}
	return placeEach(req, info, mostIdle, nil)
}

// mostIdle is the site with the most remaining idle processors that fits c.
func mostIdle(s *state, c Component) int {
	best := -1
	for i := range s.idle {
		if s.idle[i] >= c.Size && (best < 0 || s.idle[i] > s.idle[best]) {
			best = i
		}
	}
	return best
}

// clusterMin (Cluster Minimization, Sönmez, Mohamed and Epema, e-Science
// 2006) packs a job into as few clusters as it can, to cut wide-area
// communication: clusters are taken in decreasing order of idle processors
// (ties alphabetical) and each component, largest first, goes to the first
// cluster in that order where it still fits (first-fit decreasing). The
// reference records this policy from memory of the paper only; this is the
// reading implemented.
type clusterMin struct{}

func (*clusterMin) Name() string { return ClusterMinimization }

func (*clusterMin) Place(req *Request, info *Info) (Result, *Failure) {
	if req.Flexible {
		return splitFlexible(req, info)
	}
	var order []int // fixed by the idle counts before the first component
	return placeEach(req, info, func(s *state, c Component) int {
		if order == nil {
			order = byIdle(s)
		}
		for _, i := range order {
			if s.idle[i] >= c.Size {
				return i
			}
		}
		return -1
	}, nil)
}

// byIdle lists site indexes by decreasing idle processors, ties alphabetical.
func byIdle(s *state) []int {
	order := make([]int, len(s.idle))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return s.idle[order[a]] > s.idle[order[b]] })
	return order
}

// flexClusterMin (Flexible Cluster Minimization) is for flexible jobs, which
// give only a total: it takes clusters in decreasing order of idle processors
// and carves from each a component of min(idle, remaining) processors until
// the total is covered, so the job spans the fewest clusters. Other jobs are
// placed as by Cluster Minimization.
type flexClusterMin struct{}

func (*flexClusterMin) Name() string { return FlexibleClusterMinimizer }

func (*flexClusterMin) Place(req *Request, info *Info) (Result, *Failure) {
	if !req.Flexible {
		return (&clusterMin{}).Place(req, info)
	}
	return splitFlexible(req, info)
}

// splitFlexible is FCM's split, used for every flexible job: WF, CF and CM
// only place components that are already sized (reference §3.5). Components
// are numbered from 0 in the order carved. A failure is about the job's
// total: the sites' idle processors do not add up to it, or a file cannot
// reach a site that would take a part.
func splitFlexible(req *Request, info *Info) (Result, *Failure) {
	s := newState(req, info)
	left := req.Total()
	var res Result
	for k, i := range byIdle(s) {
		if left == 0 {
			break
		}
		take := min(s.idle[i], left)
		if take == 0 {
			break
		}
		if !s.assign(&res, Component{Index: k, Size: take}, i) {
			name := info.Sites[i].Name
			return Result{}, &Failure{Reasons: []Reason{{Site: name, Component: Total, Need: req.Total(),
				Code: NoReplica, Detail: s.unreachable(name)}}}
		}
		left -= take
	}
	if left > 0 {
		return Result{}, &Failure{Reasons: Explain(nil, req, info, Total)}
	}
	return res, nil // carved in order: indexes already ascend
}
