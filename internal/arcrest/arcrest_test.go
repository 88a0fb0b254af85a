package arcrest

import (
	"errors"
	"net"
	"testing"
	"time"
)

// What A-REX 6.17 answered on loopback (docs/grid.md): a submission of one
// job, of two (a "+" request), a refused queue, a batch status with an
// unknown id, and the record of a job that failed with exit code 3.
const (
	submitOne  = `{"job":{"status-code":"201","reason":"Created","id":"DVPMDmbjms","state":"ACCEPTING"}}`
	submitTwo  = `{"job":[{"status-code":"201","reason":"Created","id":"Yu5LDmglms","state":"ACCEPTING"},{"status-code":"201","reason":"Created","id":"a06LDmglms","state":"ACCEPTING"}]}`
	refused    = `{"job":{"status-code":"500","reason":"Requested queue nosuch is not allowed for this user"}}`
	statusMany = `{"job":[{"status-code":"200","reason":"OK","id":"DVPMDmbjms","state":"PREPARING"},{"status-code":"404","reason":"No such job","id":"nosuch"}]}`
	infoFailed = `{"job":{"status-code":"200","reason":"OK","id":"X1","info_document":{"ComputingActivity":{"ID":"urn:caid:localhost:org.nordugrid.arcrest:X1","Name":"gmark-1-0.a1-r","State":["nordugrid:FAILED","file:failed","bes:Failed","arcrest:FAILED","emies:terminal"],"ExitCode":"3","Error":"LRMS error: (3) Job failed","LocalIDFromManager":"23626","RequestedSlots":"2","RequestedTotalWallTime":"180","Queue":"fork","SubmissionTime":"2026-12-01T23:46:35Z","StartTime":"2026-12-01T23:46:47Z","ComputingManagerEndTime":"2026-12-01T23:46:48Z","EndTime":"2026-12-01T23:46:57Z"}}}}`
	infoTwoErr = `{"job":{"status-code":"200","reason":"OK","id":"X2","info_document":{"ComputingActivity":{"State":"arcrest:RUNNING","Error":["a","b"]}}}}`
)

func TestParseJobs(t *testing.T) {
	jobs, err := ParseJobs([]byte(submitOne))
	if err != nil || len(jobs) != 1 || jobs[0].ID != "DVPMDmbjms" || jobs[0].State != "ACCEPTING" || !jobs[0].OK() {
		t.Errorf("one: %+v %v", jobs, err)
	}
	jobs, err = ParseJobs([]byte(submitTwo))
	if err != nil || len(jobs) != 2 || jobs[1].ID != "a06LDmglms" {
		t.Errorf("two: %+v %v", jobs, err)
	}
	jobs, err = ParseJobs([]byte(refused))
	if err != nil || len(jobs) != 1 || jobs[0].OK() || jobs[0].Code != "500" || jobs[0].ID != "" {
		t.Errorf("refused: %+v %v", jobs, err)
	}
	jobs, err = ParseJobs([]byte(statusMany))
	if err != nil || len(jobs) != 2 || jobs[0].State != "PREPARING" || jobs[1].Code != "404" || jobs[1].OK() {
		t.Errorf("status: %+v %v", jobs, err)
	}
	jobs, err = ParseJobs([]byte(infoFailed))
	if err != nil || len(jobs) != 1 || jobs[0].Info == nil {
		t.Fatalf("info: %+v %v", jobs, err)
	}
	in := jobs[0].Info
	want := time.Date(2026, 12, 1, 23, 46, 47, 0, time.UTC)
	if jobs[0].State != "FAILED" || in.State != "FAILED" || in.ExitCode == nil || *in.ExitCode != 3 || len(in.Errors) != 1 ||
		in.Slots != 2 || in.WallTime != 180 || !in.Start.Equal(want) || in.LRMEnd.Sub(in.Start) != time.Second || in.LocalID != "23626" ||
		in.Name != "gmark-1-0.a1-r" {
		t.Errorf("info: %+v", in)
	}
	jobs, err = ParseJobs([]byte(infoTwoErr))
	if err != nil || jobs[0].State != "RUNNING" || len(jobs[0].Info.Errors) != 2 || jobs[0].Info.ExitCode != nil {
		t.Errorf("a state and errors as one string and a list: %+v %v", jobs[0].Info, err)
	}
	for _, none := range []string{"", " ", `{}`, `{"job":null}`, `{"job":[]}`} {
		if jobs, err := ParseJobs([]byte(none)); err != nil || len(jobs) != 0 {
			t.Errorf("%q: %+v %v", none, jobs, err)
		}
	}
	for _, bad := range []string{"<html>", `{"job":7}`, `{"job":[1]}`, `{"job":{"info_document":{"ComputingActivity":{"State":7}}}}`} {
		if _, err := ParseJobs([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func FuzzParseJobs(f *testing.F) {
	for _, s := range []string{submitOne, submitTwo, refused, statusMany, infoFailed, infoTwoErr, `{"job":[{},{}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		jobs, err := ParseJobs(b)
		if err != nil && jobs != nil {
			t.Fatalf("jobs and an error: %v", err)
		}
	})
}

// New refuses what cannot be a CE or a credential, naming it.
func TestNewRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []Options{
		{Endpoint: "http://localhost:1/arex", Proxy: "x", CADir: dir},
		{Endpoint: "localhost:1", Proxy: "x", CADir: dir},
		{Endpoint: "https://localhost:1/arex", Proxy: dir + "/none", CADir: dir},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// A CE that does not answer is a temporary error; a refusal is not.
func TestTemporary(t *testing.T) {
	_, err := net.Dial("tcp", "127.0.0.1:1")
	if !Temporary(err) || !Temporary(&HTTPError{Status: 503}) || Temporary(&HTTPError{Status: 400}) || Temporary(nil) {
		t.Error("Temporary")
	}
	if Temporary(errors.Join(&HTTPError{Status: 403})) {
		t.Error("a 403 is not temporary")
	}
}
