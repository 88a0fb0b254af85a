package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gmark/gmark/koala/placement"
	"github.com/gmark/gmark/workload"
)

// notePlacement notes each placement policy of the runs that had nothing
// to act on in its run's workload (placement.NothingToActOn), and why:
// runs that differ only in such a policy cannot differ in their results,
// and their comparison says so rather than show two equal columns. A run
// says what its workload left to placement in its manifest; a run without
// a policy (not on the bundled core) or whose manifest predates the count
// is passed over.
func (c *Comparison) notePlacement() {
	type idle struct{ runs, policies []string }
	var order []string
	by := map[string]*idle{}
	for _, r := range c.Runs {
		policy, ok := placement.Canonical(runFields(r)["policy"])
		scope := manifestScope(r.Run)
		if !ok || scope == nil {
			continue
		}
		why := placement.NothingToActOn(policy, *scope)
		if why == "" {
			continue
		}
		v := by[why]
		if v == nil {
			v = &idle{}
			by[why] = v
			order = append(order, why)
		}
		v.runs = append(v.runs, r.Name)
		if !slices.Contains(v.policies, policy) {
			v.policies = append(v.policies, policy)
		}
	}
	for _, why := range order {
		v := by[why]
		c.Notes = append(c.Notes, fmt.Sprintf("%s (%s) had nothing to act on: %s",
			andList("run", "runs", v.runs), andList("policy", "policies", v.policies), why))
	}
}

// andList is "run a", or "runs a, b and c".
func andList(one, many string, names []string) string {
	if len(names) == 1 {
		return one + " " + names[0]
	}
	return many + " " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// manifestScope is what the run's workload left to placement, from the
// manifest of its last provenance record; nil when no record has it.
func manifestScope(r *Run) *workload.PlacementScope {
	if len(r.Provenance) == 0 {
		return nil
	}
	var m struct {
		Placement *workload.PlacementScope `json:"placement"`
	}
	if json.Unmarshal([]byte(r.Provenance[len(r.Provenance)-1].Manifest), &m) != nil {
		return nil
	}
	return m.Placement
}
