package gwa

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/workload"
)

func TestWritersFieldCounts(t *testing.T) {
	jobs := []workload.Job{
		{ID: "1-0", Unit: 1, Kind: workload.Unitary, Type: "swf", Submit: 1500 * time.Millisecond, SiteType: workload.Ordered,
			WallTime: 10 * time.Minute, RunTime: 90 * time.Second, User: "alice", Group: "g one",
			App:        workload.App{Name: "swf"},
			Components: []workload.Component{{Site: "fs1", Count: 8}, {Site: "fs2", Count: 8}}},
		{ID: "2-0", Unit: 2, Kind: workload.Composite, Type: "chain", Submit: 2 * time.Second, User: "bob",
			Tasks: []workload.Job{
				{ID: "2-0.0", Kind: workload.Unitary, App: workload.App{Name: "hello"}, Components: []workload.Component{{Site: "*", Count: 1}}, Submit: 2 * time.Second},
				{ID: "2-0.1", Kind: workload.Unitary, App: workload.App{Name: "hello"}, Components: []workload.Component{{Site: "*", Count: 1}}, Submit: 2 * time.Second},
			},
			Deps: []workload.Dependency{{From: "2-0.0", To: "2-0.1"}}},
	}
	var gwf, swf bytes.Buffer
	gw, _ := NewGWFWriter(&gwf, "a note")
	sw, _ := NewSWFWriter(&swf, "Note: a note")
	for i := range jobs {
		for _, r := range JobRecords(&jobs[i]) {
			if err := gw.Write(&r); err != nil {
				t.Fatal(err)
			}
			if err := sw.Write(&r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := gw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	var gwfRows [][]string
	for _, line := range strings.Split(strings.TrimSpace(gwf.String()), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 29 {
			t.Fatalf("GWF line has %d fields: %q", len(f), line)
		}
		gwfRows = append(gwfRows, f)
	}
	want := [][]string{
		{"1-0", "1.5", "-1", "90", "-1", "-1", "-1", "16", "600", "-1", "-1", "alice", `"g\x20one"`, "swf", "-1", "fs1+fs2", "-1", "-1", "UNITARY", "-1"},
		{"2-0.0", "2", "-1", "-1", "-1", "-1", "-1", "1", "-1", "-1", "-1", "bob", "-1", "hello", "-1", "-1", "-1", "-1", "BoT", "2-0"},
		{"2-0.1", "2", "-1", "-1", "-1", "-1", "-1", "1", "-1", "-1", "-1", "bob", "-1", "hello", "-1", "-1", "-1", "-1", "BoT", "2-0"},
	}
	if len(gwfRows) != len(want) {
		t.Fatalf("%d GWF rows, want %d", len(gwfRows), len(want))
	}
	for i, w := range want {
		if got := strings.Join(gwfRows[i][:20], " "); got != strings.Join(w, " ") {
			t.Errorf("GWF row %d:\n got %s\nwant %s", i, got, strings.Join(w, " "))
		}
	}
	var swfRows []string
	for _, line := range strings.Split(strings.TrimSpace(swf.String()), "\n") {
		if strings.HasPrefix(line, ";") {
			continue
		}
		if n := len(strings.Fields(line)); n != 18 {
			t.Fatalf("SWF line has %d fields: %q", n, line)
		}
		swfRows = append(swfRows, line)
	}
	wantSWF := []string{
		"1 1.5 -1 90 -1 -1 -1 16 600 -1 -1 1 1 1 -1 1 -1 -1",
		"2 2 -1 -1 -1 -1 -1 1 -1 -1 -1 2 -1 2 -1 -1 -1 -1",
		"3 2 -1 -1 -1 -1 -1 1 -1 -1 -1 2 -1 2 -1 -1 2 0",
	}
	if strings.Join(swfRows, "\n") != strings.Join(wantSWF, "\n") {
		t.Errorf("SWF rows:\n%s\nwant\n%s", strings.Join(swfRows, "\n"), strings.Join(wantSWF, "\n"))
	}
	if !strings.Contains(swf.String(), "; gmark-user: 1 alice\n") || !strings.Contains(swf.String(), "; gmark-job: 3 2-0.1\n") {
		t.Errorf("SWF identifier tables missing:\n%s", swf.String())
	}
}
