package gate

import (
	"fmt"
	"slices"
	"strings"
)

// RunIdentity is what the gate must know of a run to tell whether two
// sides are comparable: which run it is, and what it ran.
type RunIdentity struct {
	Run   string // its id
	Store string // the store that holds it, for the messages
	// Key identifies the run across stores: the digest of its first
	// provenance record (a copy of a store holds the same runs).
	Key      string
	Workload string // the SHA-256 of its workload.jsonl ("" unknown)
	Spec     string // the SHA-256 of its WDL spec ("" none: a workload not generated from one)
	SpecPath string // for the messages
	Scenario string // project/scenario
}

// MismatchError says why two sides are not compared: they are the same
// runs, or runs of different workloads, specs or scenarios. It is the
// user's input that is wrong (exit 2).
type MismatchError struct{ msg string }

func (e *MismatchError) Error() string { return e.msg }

// CheckSides refuses to compare sides that share a run (the new runs are,
// in part or whole, the baseline's: a run compared with itself shows no
// change whatever it is), and sides whose runs differ in their workload
// (the digest of workload.jsonl), spec or scenario, unless allowDifferent:
// a gate between unrelated workloads says "improved" or "regression" about
// nothing. A side of several runs is the set of their workloads (and specs,
// scenarios): the sets must be equal.
func CheckSides(base, cur []RunIdentity, allowDifferent bool) error {
	seen := map[string]RunIdentity{}
	for _, r := range base {
		seen[r.key()] = r
	}
	var shared []string
	for _, r := range cur {
		if b, ok := seen[r.key()]; ok {
			shared = append(shared, fmt.Sprintf("%s of %s is the baseline's %s of %s", r.Run, r.Store, b.Run, b.Store))
		}
	}
	switch {
	case len(shared) == len(cur) && len(cur) == len(base):
		return &MismatchError{fmt.Sprintf("the new runs are the baseline's runs (%s): a run compared with itself shows no change; compare a new run with an older one",
			strings.Join(shared, ", "))}
	case len(shared) > 0:
		return &MismatchError{fmt.Sprintf("runs on both sides: %s: a run compared with itself hides a change; take it out of one side (--run, --baseline-run)",
			strings.Join(shared, ", "))}
	}
	if allowDifferent {
		return nil
	}
	for _, f := range []struct {
		what string
		of   func(RunIdentity) string
		name func(RunIdentity) string
	}{
		{"workload (SHA-256 of workload.jsonl)", func(r RunIdentity) string { return r.Workload }, func(r RunIdentity) string {
			if r.SpecPath != "" {
				return short(r.Workload) + " (from " + r.SpecPath + ")"
			}
			return short(r.Workload)
		}},
		{"spec", func(r RunIdentity) string { return r.Spec }, func(r RunIdentity) string { return r.SpecPath + " (" + short(r.Spec) + ")" }},
		{"scenario", func(r RunIdentity) string { return r.Scenario }, func(r RunIdentity) string { return r.Scenario }},
	} {
		bs, cs := valuesOf(base, f.of), valuesOf(cur, f.of)
		if slices.Equal(bs, cs) {
			continue
		}
		return &MismatchError{fmt.Sprintf("the sides differ in their %s: baseline %s, new %s; a gate compares runs of one workload "+
			"(--allow-different-workloads compares them anyway)", f.what, describe(base, f.of, f.name), describe(cur, f.of, f.name))}
	}
	return nil
}

func (r RunIdentity) key() string {
	if r.Key != "" {
		return r.Key
	}
	return r.Store + "\x00" + r.Run
}

// valuesOf is the sorted set of a field over runs.
func valuesOf(runs []RunIdentity, of func(RunIdentity) string) []string {
	var v []string
	for _, r := range runs {
		v = append(v, of(r))
	}
	slices.Sort(v)
	return slices.Compact(v)
}

// describe names each run with its value of the field, "run: value".
func describe(runs []RunIdentity, of, name func(RunIdentity) string) string {
	var parts []string
	for _, r := range runs {
		v := "(none)"
		if of(r) != "" {
			v = name(r)
		}
		parts = append(parts, r.Run+" "+v)
	}
	return strings.Join(parts, ", ")
}

// short is a digest's first 12 hex digits, as git shows a commit.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
