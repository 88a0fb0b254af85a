package wfformat

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func decodeFile(t *testing.T, name string) *Instance {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inst, err := Decode(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func TestDecodeInstances(t *testing.T) {
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v }
	for _, tc := range []struct {
		file, name, version string
		ids                 []string
		parents             [][]string
		runtime             []float64
		cores               []float64
		start               time.Time
		taskStart           []time.Time
		files               int
		inputs0             []string
		outputs0            []string
		machines3           []string
		keys                []string // some of the keys that must be listed
	}{
		{file: "diamond-1.5.json", name: "diamond", version: "1.5",
			ids:     []string{"split_00000001", "work_00000002", "work_00000003", "merge_00000004"},
			parents: [][]string{{}, {"split_00000001"}, {"split_00000001"}, {"work_00000002", "work_00000003"}},
			runtime: []float64{4.25, 20, 25.75, 4}, cores: []float64{1, 4, 2, 1},
			start: at("2024-05-01T08:00:00Z"), taskStart: []time.Time{at("2024-05-01T08:00:00.5Z"), at("2024-05-01T08:00:05Z"), at("2024-05-01T08:00:06Z"), at("2024-05-01T08:00:32.5Z")},
			files: 6, inputs0: []string{"input.dat"}, outputs0: []string{"part1.dat", "part2.dat"}, machines3: []string{"node1", "node2"},
			keys: []string{"author.email", "workflow.execution.tasks[].avgCPU", "workflow.execution.machines[].cpu.speedInMHz", "runtimeSystem.url"}},
		{file: "nextflow-1.5.json", name: "pipeline", version: "1.5",
			ids: []string{"PIPE.QC_1", "PIPE.TRIM_2", "PIPE.REPORT_3"},
			// PIPE.TRIM_2 is a parent of PIPE.REPORT_3 only by its children list.
			parents: [][]string{{}, {}, {"PIPE.QC_1", "PIPE.TRIM_2"}},
			runtime: []float64{37, 120.5, 12}, cores: []float64{math.NaN(), math.NaN(), math.NaN()},
			start: at("2023-03-29T20:02:36Z"), taskStart: []time.Time{{}, {}, {}},
			files: 4, inputs0: []string{"/data/r1.fastq.gz"}, outputs0: []string{"/ab/12/qc.html"},
			keys: []string{"workflow.repo", "workflow.runName", "workflow.execution.tasks[].command.program"}},
		{file: "pegasus-1.4.json", name: "chain-1.4", version: "1.4",
			ids:     []string{"stage_ID0000001", "compute_ID0000002"},
			parents: [][]string{{}, {"stage_ID0000001"}},
			runtime: []float64{1.5, 29}, cores: []float64{1, 2},
			start: at("2020-04-01T05:42:15Z"), taskStart: []time.Time{{}, {}},
			files: 3, inputs0: []string{"raw.dat"}, outputs0: []string{"/scratch/staged.dat"},
			keys: []string{"wms.name", "workflow.tasks[].energy", "workflow.machines[].cpu.count"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			inst := decodeFile(t, tc.file)
			if inst.Name != tc.name || inst.SchemaVersion != tc.version || !inst.Start.Equal(tc.start) || len(inst.Files) != tc.files {
				t.Errorf("name %q version %q start %v files %d", inst.Name, inst.SchemaVersion, inst.Start, len(inst.Files))
			}
			if len(inst.Tasks) != len(tc.ids) {
				t.Fatalf("%d tasks, want %d", len(inst.Tasks), len(tc.ids))
			}
			for i, task := range inst.Tasks {
				if task.ID != tc.ids[i] || !slices.Equal(nonNil(task.Parents), tc.parents[i]) {
					t.Errorf("task %d: %s parents %v, want %s %v", i, task.ID, task.Parents, tc.ids[i], tc.parents[i])
				}
				if !sameNum(task.Runtime, tc.runtime[i]) || !sameNum(task.Cores, tc.cores[i]) || !task.Start.Equal(tc.taskStart[i]) {
					t.Errorf("task %s: runtime %g cores %g start %v", task.ID, task.Runtime, task.Cores, task.Start)
				}
			}
			if !slices.Equal(inst.Tasks[0].Inputs, tc.inputs0) || !slices.Equal(inst.Tasks[0].Outputs, tc.outputs0) {
				t.Errorf("task 0's files: in %v out %v", inst.Tasks[0].Inputs, inst.Tasks[0].Outputs)
			}
			if tc.machines3 != nil && !slices.Equal(inst.Tasks[3].Machines, tc.machines3) {
				t.Errorf("machines %v", inst.Tasks[3].Machines)
			}
			for _, k := range tc.keys {
				if !slices.Contains(inst.Keys, k) {
					t.Errorf("key %s not listed among %v", k, inst.Keys)
				}
			}
		})
	}
}

func sameNum(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func TestDecodeErrors(t *testing.T) {
	const head = `{"name": "w", "schemaVersion": "1.5", "workflow": {"specification": {"tasks": [`
	for _, tc := range []struct{ name, in, want string }{
		{"empty", ``, "t.json:1:1: the input is empty"},
		{"not JSON", "{\n  \"name\": x}", "t.json:2:11: not JSON"},
		{"cut short", head + `{"id": "a"`, "ends before its last value does"},
		{"two instances", `{"name": "w", "schemaVersion": "1.5", "workflow": {"specification": {"tasks": [{"id": "a", "parents": [], "children": []}]}}} {}`, "a file holds one instance"},
		{"an array", `[1, 2]`, "t.json:1:1: an array, not an object: a WfFormat instance is one JSON object"},
		{"no version", `{"name": "w", "workflow": {"specification": {"tasks": []}}}`, "no schemaVersion"},
		{"old version", `{"name": "w", "schemaVersion": "1.3", "workflow": {"tasks": []}}`, "t.json:1:32: schemaVersion 1.3: gmark reads WfFormat 1.4 and later"},
		{"a version that is not one", `{"name": "w", "schemaVersion": "two", "workflow": {"tasks": []}}`, `schemaVersion "two"`},
		{"layout against version", `{"name": "w", "schemaVersion": "1.4", "workflow": {"specification": {"tasks": []}}}`, "schemaVersion 1.4, but the workflow has workflow.specification"},
		{"both layouts", `{"name": "w", "schemaVersion": "1.5", "workflow": {"specification": {"tasks": []}, "tasks": []}}`, "an instance has one layout"},
		{"no name", `{"schemaVersion": "1.5", "workflow": {"specification": {"tasks": []}}}`, "no name"},
		{"a task without id", head + "\n" + `{"name": "a", "parents": [], "children": []}]}}}`, "t.json:2:1: workflow.specification.tasks[]: a task without an id"},
		{"two tasks of one id", head + `{"id": "a"},` + "\n" + `{"id": "a"}]}}}`, `t.json:2:8: task id a is already the task at line 1`},
		{"unknown parent", head + `{"id": "a", "parents": ["b"]}]}}}`, `t.json:1:103: task a: parent b is no task of the instance`},
		{"unknown child", head + `{"id": "a", "children": ["z"]}]}}}`, `child z is no task`},
		{"self", head + `{"id": "a", "parents": ["a"]}]}}}`, `task a depends on itself`},
		{"cycle", head + `{"id": "a", "parents": ["c"]},` + "\n" + `{"id": "b", "parents": ["a"]},` + "\n" + `{"id": "c", "parents": ["b"]}]}}}`,
			"t.json:1:80: the workflow has a dependency cycle: a -> b -> c -> a"},
		{"a string runtime", head + `{"id": "a"}]}, "execution": {"tasks": [{"id": "a", "runtimeInSeconds": "10"}]}}}`, `workflow.execution.tasks[].runtimeInSeconds is a string, not a number`},
		{"a huge runtime", head + `{"id": "a"}]}, "execution": {"tasks": [{"id": "a", "runtimeInSeconds": 1e300}]}}}`, `runtimeInSeconds 1e300 is out of range`},
		{"negative cores", head + `{"id": "a"}]}, "execution": {"tasks": [{"id": "a", "coreCount": -2}]}}}`, `coreCount -2 is out of range (0 to 2147483647)`},
		{"an execution task that is none", head + `{"id": "a"}]}, "execution": {"tasks": [{"id": "b", "runtimeInSeconds": 1}]}}}`, `execution task b is no task of the specification`},
		{"a time that is none", head + `{"id": "a"}]}, "execution": {"executedAt": "yesterday"}}}`, `workflow.execution.executedAt "yesterday" is not a time gmark reads`},
		{"a fractional file size", head + `{"id": "a"}], "files": [{"id": "f", "sizeInBytes": 1.5}]}}}`, `sizeInBytes 1.5 is not a whole number of bytes`},
		{"one file, two sizes", head + `{"id": "a"}], "files": [{"id": "f", "sizeInBytes": 1},` + "\n" + `{"id": "f", "sizeInBytes": 2}]}}}`, `t.json:2:1: file f is 2 bytes here and 1 bytes at line 1`},
		{"a bad link", `{"name": "w", "schemaVersion": "1.4", "workflow": {"tasks": [{"name": "a", "files": [{"name": "f", "link": "both"}]}]}}`, `link "both": input or output`},
		{"an empty parent", head + `{"id": "a", "parents": [""]}]}}}`, `an empty string names nothing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tc.in), "t.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestDecodeLimit(t *testing.T) {
	_, err := DecodeLimit(strings.NewReader(`{"name": "`+strings.Repeat("x", 5000)+`"}`), "t.json", 1000)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("got %v", err)
	}
}

// TestRoundTrip: every instance, written and read again, is the same
// instance (1.4 read back as 1.5, its ids as WfCommons' migration gives
// them).
func TestRoundTrip(t *testing.T) {
	for _, file := range []string{"diamond-1.5.json", "nextflow-1.5.json", "pegasus-1.4.json"} {
		t.Run(file, func(t *testing.T) {
			inst := decodeFile(t, file)
			roundTrip(t, inst)
		})
	}
}

func roundTrip(t *testing.T, inst *Instance) {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, inst); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(bytes.NewReader(buf.Bytes()), "back.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if err := sameInstance(inst, back); err != "" {
		t.Fatalf("%s\n%s", err, buf.String())
	}
}

// sameInstance compares what Encode writes.
func sameInstance(a, b *Instance) string {
	if a.Name != b.Name || a.Description != b.Description || a.CreatedAt != b.CreatedAt || a.Execution != b.Execution {
		return "instance values differ"
	}
	if a.Execution && (!sameNum(a.Makespan, b.Makespan) && !(math.IsNaN(a.Makespan) && b.Makespan == 0) || !a.Start.Equal(b.Start)) {
		return "execution values differ"
	}
	known := map[string]int64{}
	for id, s := range a.Files {
		if s >= 0 {
			known[id] = s
		}
	}
	if !reflect.DeepEqual(known, b.Files) && !(len(known) == 0 && len(b.Files) == 0) {
		return "files differ"
	}
	if len(a.Tasks) != len(b.Tasks) {
		return "task counts differ"
	}
	for i := range a.Tasks {
		x, y := a.Tasks[i], b.Tasks[i]
		if !a.Execution {
			x.Cores, x.Memory, x.Machines, x.Start, x.Runtime = math.NaN(), math.NaN(), nil, time.Time{}, math.NaN()
		} else if math.IsNaN(x.Runtime) && hasExecution(&x) {
			x.Runtime = -1 // written as -1, the schema requiring one
		}
		if x.ID != y.ID || x.Name != y.Name || !slices.Equal(x.Parents, y.Parents) || !slices.Equal(x.Inputs, y.Inputs) || !slices.Equal(x.Outputs, y.Outputs) ||
			!sameNum(x.Runtime, y.Runtime) || !sameNum(x.Cores, y.Cores) || !sameNum(x.Memory, y.Memory) || !slices.Equal(x.Machines, y.Machines) || !x.Start.Equal(y.Start) {
			return "task " + x.ID + " differs"
		}
	}
	return ""
}

func FuzzDecode(f *testing.F) {
	for _, name := range []string{"diamond-1.5.json", "nextflow-1.5.json", "pegasus-1.4.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"name": "w", "schemaVersion": "1.5", "workflow": {"specification": {"tasks": [{"id": "a", "parents": ["b"]}, {"id": "b"}]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		inst, err := DecodeLimit(bytes.NewReader(b), "f.json", 1<<20)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json:") {
				t.Fatalf("an error without its position: %v", err)
			}
			return
		}
		roundTrip(t, inst)
	})
}
