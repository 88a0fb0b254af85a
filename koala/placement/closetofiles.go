package placement

import (
	"sort"
	"time"
)

// Pair is an (execution site, file site) pair of Close-to-Files' history table.
type Pair struct{ Exec, File string }

// History is Close-to-Files' table of (execution site, file site) pairs worth
// estimating transfer times for. It spares CF from testing every pair of a
// large grid; it must be seeded, since an empty table stays empty.
type History map[Pair]bool

// AllPairs seeds a table with every pair of sites, as in the thesis's
// experiments.
func AllPairs(sites []string) History {
	h := History{}
	for _, e := range sites {
		for _, f := range sites {
			h[Pair{e, f}] = true
		}
	}
	return h
}

// closeToFiles is the Close-to-Files policy (Mohamed and Epema, Cluster 2004;
// thesis Algorithm 1). For each component, largest first:
//
//  1. the job's file sites (sites holding a replica of every input file)
//     with enough idle processors are candidates; the alphabetically first is
//     chosen, and the component reads its files locally;
//  2. otherwise, among the history table's pairs (E, F) where E has enough
//     idle processors and F holds a replica, the execution site with the
//     least estimated transfer time is chosen (ties: alphabetical), and (E,
//     F') is recorded for every file site F' of the job;
//  3. otherwise the job cannot be placed now.
//
// With several input files, a pair (E, F) stands for E reading each file
// from its best replica, the transfer time being that of the slowest file.
// Jobs without input files have no file sites: CF places them as Worst-Fit.
type closeToFiles struct {
	history History
}

// NewCloseToFiles returns CF with the given (seeded) history table.
func NewCloseToFiles(h History) Policy { return &closeToFiles{history: h} }

func (*closeToFiles) Name() string { return CloseToFiles }

func (cf *closeToFiles) Place(req *Request, info *Info) (Result, *Failure) {
	if req.Flexible {
		return splitFlexible(req, info)
	}
	if len(req.Files) == 0 {
		return (&worstFit{}).Place(req, info)
	}
	fileSites := cf.fileSites(req, info)
	var inserts []Pair
	res, fail := placeEach(req, info, func(s *state, c Component) int {
		// 1. a file site with enough idle processors, alphabetically first
		for _, fsite := range fileSites {
			if i := s.index(fsite); i >= 0 && s.idle[i] >= c.Size {
				return i
			}
		}
		// 2. the history table's pairs, least transfer time
		best, bestT := -1, time.Duration(0)
		for i, site := range info.Sites {
			if s.idle[i] < c.Size || cf.unpaired(site.Name, req, info) != "" {
				continue
			}
			if t, _, ok := s.transfer(site.Name); ok && (best < 0 || t < bestT) {
				best, bestT = i, t
			}
		}
		if best >= 0 {
			for _, f := range fileSites {
				inserts = append(inserts, Pair{info.Sites[best].Name, f})
			}
		}
		return best
	}, func(site string) string { return cf.unpaired(site, req, info) })
	if fail != nil {
		return Result{}, fail
	}
	// Only a successful placement updates the table.
	for _, p := range inserts {
		cf.history[p] = true
	}
	return res, nil
}

// fileSites are the sites holding a replica of every input file, sorted.
func (cf *closeToFiles) fileSites(req *Request, info *Info) []string {
	count := map[string]int{}
	for _, f := range req.Files {
		seen := map[string]bool{}
		for _, r := range info.Replicas(f.Name) {
			if !seen[r] {
				seen[r] = true
				count[r]++
			}
		}
	}
	var sites []string
	for site, n := range count {
		if n == len(req.Files) && !req.Exclude[site] {
			sites = append(sites, site)
		}
	}
	sort.Strings(sites)
	return sites
}

// unpaired is the first input file none of whose replica sites the table
// pairs with exec, or "" when exec is paired with a replica of every file.
func (cf *closeToFiles) unpaired(exec string, req *Request, info *Info) string {
	for _, f := range req.Files {
		ok := false
		for _, r := range info.Replicas(f.Name) {
			if cf.history[Pair{exec, r}] {
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
