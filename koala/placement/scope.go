package placement

import (
	"fmt"

	"github.com/gmark/gmark/workload"
)

// Canonical is the policy's name as Names lists it ("close-to-files" is
// CF), or false for a name New does not know.
func Canonical(name string) (string, bool) {
	p, err := New(name, nil)
	if err != nil {
		return "", false
	}
	return p.Name(), true
}

// NothingToActOn says why policy has nothing to act on in a workload: why
// it can place the jobs no other way than Worst-Fit places them (the
// words follow "policy X has nothing to act on: "), or "" when it can: a comparison of
// policies on such a workload cannot differ, and whoever runs one should
// know before reading its numbers. What tells the policies apart is what
// they act on:
//
//   - every policy chooses sites only for components on no fixed site, so a
//     workload whose components are all pinned leaves nothing to any of them;
//   - Close-to-Files differs from Worst-Fit only on jobs that read input
//     files (it places a job without files as Worst-Fit does);
//   - Cluster Minimization (and FCM, which places every non-flexible job as
//     CM does) differs only on jobs with two or more components to place:
//     a single component goes to the cluster with the most idle processors,
//     as under Worst-Fit;
//   - flexible jobs are split alike by every policy (splitFlexible).
//
// An unknown policy name, or a workload with no jobs, gives "".
func NothingToActOn(policy string, s workload.PlacementScope) string {
	name, ok := Canonical(policy)
	if !ok || s.Jobs == 0 {
		return ""
	}
	if s.Free == 0 {
		return fmt.Sprintf("every component of the %s is pinned to a site "+
			"(by the spec's SiteInfo, or a trace replay's Sites= or SiteMap=), so no policy has a site to choose "+
			"and runs that differ only in the policy give the same results", jobs(s.Jobs))
	}
	flexible := ""
	if s.Flexible > 0 {
		flexible = fmt.Sprintf("; the %s every policy splits alike", count(s.Flexible, "flexible job", "flexible jobs"))
	}
	p, _ := Lookup(name)
	if p.Scope == nil {
		return ""
	}
	return p.Scope(s, flexible)
}

// scopeCF: Close-to-Files acts on jobs that read input files.
func scopeCF(s workload.PlacementScope, flexible string) string {
	if s.Files == 0 {
		return fmt.Sprintf("no job with a site to choose reads an input file (%s with a "+
			"site to choose%s), and Close-to-Files places a job without input files as Worst-Fit does, so CF and WF give "+
			"the same results (InputFile= or InputFilesWithWeights= attach files; the grid's [[file]] tables say which "+
			"sites hold them)", jobs(s.Free), flexible)
	}
	return ""
}

// scopeCM: Cluster Minimization (and FCM) acts on jobs with two or more
// components to place.
func scopeCM(name string) func(workload.PlacementScope, string) string {
	return func(s workload.PlacementScope, flexible string) string {
		if s.Spread == 0 {
			return fmt.Sprintf("no job has two or more components to place (%s with a "+
				"site to choose%s), and %s places a single component where Worst-Fit does (on the cluster with the most "+
				"idle processors), so %s and WF give the same results", jobs(s.Free), flexible, name, name)
		}
		return ""
	}
}

// Unreplicated lists the files no site holds a replica of (replicas as the
// grid's catalogue gives them), in the order given: a job that reads one
// cannot be placed by any policy.
func Unreplicated(files []string, replicas func(string) []string) []string {
	var out []string
	for _, f := range files {
		if len(replicas(f)) == 0 {
			out = append(out, f)
		}
	}
	return out
}

func jobs(n int) string { return count(n, "job", "jobs") }

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
