package report

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gmark/gmark/analyzer/store"
)

// CompareFields are the fields every run has, that --compare groups by;
// besides them, any key of a run's target configuration, scheduler
// parameters or submitter settings (by its name, "policy", or its path,
// "core.scan_interval").
var CompareFields = []string{"run", "scenario", "project", "target", "policy", "revision", "version", "store", "seed",
	"workload-seed", "host", "user", "go", "spec", "workload"}

// runFields are the fields of a run that a comparison can group by, with
// their values (see CompareFields). The provenance is the run's last
// record (a resumed run has one per start).
func runFields(r *CompareRun) map[string]string {
	m := r.Run.Metrics
	f := map[string]string{"run": r.Name, "scenario": m.Scenario, "project": m.Project, "target": m.Target, "store": filepath.Base(r.DB)}
	maps.Copy(f, flatJSON(r.Run.Settings))
	if len(r.Run.Provenance) == 0 {
		return f
	}
	p := r.Run.Provenance[len(r.Run.Provenance)-1]
	sched, target := flatJSON(p.Scheduler), flatJSON(p.TargetConfig)
	// Lower precedence first: the settings, the scheduler's parameters,
	// the target's configuration; each by its path and, unless another
	// path of the same object ends in the same name, by its last name.
	for _, m := range []map[string]string{sched, target} {
		set := map[string]bool{}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if leaf := k[strings.LastIndexByte(k, '.')+1:]; !set[leaf] {
				f[leaf], set[leaf] = m[k], true
			}
		}
		maps.Copy(f, m)
	}
	f["revision"] = revision(p)
	f["version"] = p.GmarkVersion
	f["host"], f["user"], f["go"] = p.Host, p.User, p.GoVersion
	f["spec"], f["workload"] = p.SpecPath, p.WorkloadSHA256
	if p.Seed != nil {
		f["workload-seed"] = strconv.FormatUint(*p.Seed, 10)
		if f["seed"] == "" {
			f["seed"] = f["workload-seed"]
		}
	}
	f["target"] = m.Target
	for k, v := range f {
		if v == "" {
			delete(f, k)
		}
	}
	return f
}

// revision names the revision gmark was built from: its first 12 digits,
// "+modified" when the tree had changes, or the version when unknown.
func revision(p store.Provenance) string {
	rev := p.GmarkRevision
	if rev == "" {
		return "unknown (version " + p.GmarkVersion + ")"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if p.GmarkModified != nil && *p.GmarkModified {
		rev += "+modified"
	}
	return rev
}

// flatJSON flattens a JSON object into its leaves, by their paths joined
// with dots; strings as they are, other values in JSON. Anything but an
// object (or no valid JSON) is no field.
func flatJSON(s string) map[string]string {
	out := map[string]string{}
	var v any
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	if !json.Valid([]byte(s)) || d.Decode(&v) != nil {
		return out
	}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if prefix != "" {
					k = prefix + "." + k
				}
				walk(k, e)
			}
		case string:
			out[prefix] = x
		case nil:
		default:
			b, _ := json.Marshal(x)
			out[prefix] = string(b)
		}
	}
	if _, ok := v.(map[string]any); ok {
		walk("", v)
	}
	return out
}

// storeRuns are the ids of the runs of a store, oldest first.
func storeRuns(db string) ([]string, error) {
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	runs, err := st.Runs()
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	return ids, nil
}

func sortedKeys(m map[string]bool) []string {
	return slices.Sorted(maps.Keys(m))
}

// numeric is s as a number, or false.
func numeric(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}
