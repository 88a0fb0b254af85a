package testkit

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/workload"
)

// HelloJob is a one-processor hello job of unit 1, due at offset: the
// plainest job a runner or a recorder can be given.
func HelloJob(id string, offset time.Duration) workload.Job {
	return workload.Job{ID: id, Unit: 1, Kind: workload.Unitary, Type: "hello", Submit: offset,
		SiteType: workload.Single, App: workload.App{Name: "hello"}, Components: []workload.Component{{Site: "*", Count: 1}}}
}

// DAGJob is a composite job of unit 2, due at offset, of hello tasks named
// id.<task> and the dependencies edges give as "a>b" (a before b).
func DAGJob(id string, offset time.Duration, tasks []string, edges ...string) workload.Job {
	j := workload.Job{ID: id, Unit: 2, Kind: workload.Composite, Type: "dag", Submit: offset}
	for i, n := range tasks {
		task := HelloJob(id+"."+n, offset)
		task.Unit, task.Index = 2, i
		j.Tasks = append(j.Tasks, task)
	}
	for _, e := range edges {
		a, b, _ := strings.Cut(e, ">")
		j.Deps = append(j.Deps, workload.Dependency{From: id + "." + a, To: id + "." + b})
	}
	return j
}

// JSONKeys is the sorted, comma-separated list of the top-level keys of
// the JSON object js: the shape of a summary, whatever its values.
func JSONKeys(t testing.TB, js string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatal(err)
	}
	return strings.Join(slices.Sorted(maps.Keys(m)), ",")
}
