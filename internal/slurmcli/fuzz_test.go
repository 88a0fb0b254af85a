package slurmcli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// checkRecords: whatever Slurm printed, a Record has a valid job id, times
// that are unknown (0) or within range, an exit status and signal within
// range, and a state gmark can class.
func checkRecords(t *testing.T, recs []Record) {
	t.Helper()
	for _, r := range recs {
		if r.ID < 1 || r.ID > maxJobID {
			t.Fatalf("job id %d", r.ID)
		}
		for _, v := range []int64{r.Submit, r.Start, r.End} {
			if v < 0 || v > maxUnixSeconds {
				t.Fatalf("time %d in %+v", v, r)
			}
		}
		if r.Exit < 0 || r.Exit > 255 || r.Signal < 0 || r.Signal > 127 || r.HetOff < 0 || r.HetOff > maxHetOffset {
			t.Fatalf("exit %d signal %d het offset %d", r.Exit, r.Signal, r.HetOff)
		}
		if r.ArrayJobID < 0 || r.ArrayJobID > maxJobID || r.ArrayTaskID < 0 || r.ArrayTaskID > MaxArrayIndex {
			t.Fatalf("array job %d task %d", r.ArrayJobID, r.ArrayTaskID)
		}
		switch r.Class() {
		case "queued", "running", "succeeded", "failed", "cancelled":
		default:
			t.Fatalf("class %q of %q", r.Class(), r.State)
		}
	}
}

func FuzzSqueue(f *testing.F) {
	for _, s := range []string{squeue2205, squeueDown, squeue2302,
		`{"jobs":[{"job_id":-1},{"job_id":5,"submit_time":-7,"start_time":1e300,"end_time":{"set":true,"number":99999999999999},"exit_code":{"return_code":-4,"signal":{"id":900}},"het_job_offset":-2}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := ParseSqueue(b)
		if err != nil {
			if recs != nil {
				t.Fatal("records with an error")
			}
			return
		}
		checkRecords(t, recs)
	})
}

func FuzzJobComp(f *testing.F) {
	f.Add([]byte(jobcomp2205))
	f.Add([]byte("JobId=4294967296 Name=x\nJobId=3 StartTime=0001-01-01T00:00:00 EndTime=9999-12-31T23:59:59 ExitCode=-1:999 HetJobOffset=-5\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := ParseJobComp(bytes.NewReader(b), time.UTC)
		if err != nil {
			return // a line longer than the scanner takes
		}
		checkRecords(t, recs)
	})
}

// scontrol show config: key = value lines.
func FuzzScontrol(f *testing.F) {
	f.Add([]byte("Configuration data as of 2026-11-22T15:55:19\nJobCompLoc              = /var/log/slurm/jobcomp.log\nJobCompType             = jobcomp/filetxt\n"))
	f.Add([]byte("=\n==\n a = b = c \n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for k, v := range ParseConfig(b) {
			if k != strings.TrimSpace(k) || v != strings.TrimSpace(v) || strings.ContainsRune(k, '\n') || strings.ContainsRune(v, '\n') {
				t.Fatalf("key %q value %q", k, v)
			}
		}
	})
}

func FuzzCPUs(f *testing.F) {
	for _, s := range []string{"", "0/64/0/64\n", "1/2/3/6\n4/4/0/8\n", "x/y"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseCPUs(b)
		if err == nil && (c.Allocated < 0 || c.Idle < 0 || c.Other < 0 || c.Allocated+c.Idle+c.Other != c.Total) {
			t.Fatalf("%q: %+v", b, c)
		}
	})
}

// FuzzParseNodes: whatever sinfo printed, the partitions have names, node
// counts within range, and each name once.
func FuzzParseNodes(f *testing.F) {
	for _, s := range []string{"main* 1\n", "main* 2\nbig 4\nmain* 1\n", "* 1", "a 1073741824\na 1\n", "a -1", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		parts, err := ParseNodes(b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "sinfo line ") {
				t.Fatalf("error %q does not name the line", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, p := range parts {
			if p.Name == "" || seen[p.Name] || p.Nodes < 0 || p.Nodes > maxNodes {
				t.Fatalf("%+v in %+v", p, parts)
			}
			seen[p.Name] = true
		}
	})
}
