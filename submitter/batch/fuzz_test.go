package batch

import (
	"testing"

	"github.com/gmark/gmark/submitter/target"
)

// checkStatus: whatever the batch system printed, a status has a class
// gmark knows, times that are unknown (0) or within range, and an exit
// status that is unknown or within range.
func checkStatus(t *testing.T, st status) {
	t.Helper()
	switch st.class {
	case "queued", "running", "succeeded", "failed", "cancelled":
	default:
		t.Fatalf("class %q", st.class)
	}
	for _, v := range []int64{st.submit, st.start, st.end} {
		if v < 0 || v > target.MaxUnixSeconds {
			t.Fatalf("time %d in %+v", v, st)
		}
	}
	if st.exit != nil && (*st.exit < 0 || *st.exit > 255) {
		t.Fatalf("exit status %d", *st.exit)
	}
	if st.class == "succeeded" && (st.exit == nil || *st.exit != 0) {
		t.Fatalf("succeeded with exit %v", st.exit)
	}
}

// condor_q -json and condor_history -json.
func FuzzCondorQ(f *testing.F) {
	f.Add([]byte(condorQ))
	f.Add([]byte(condorHistory))
	f.Add([]byte(`[{"ClusterId":1,"JobStatus":4,"ExitCode":-3,"QDate":-5,"CompletionDate":99999999999999},{"JobStatus":4,"ExitBySignal":true,"ExitSignal":2147483647}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ads, err := parseCondorAds(b)
		if err != nil {
			return
		}
		for _, ad := range ads {
			checkStatus(t, ad.status())
		}
	})
}

// qstat -xml.
func FuzzQstat(f *testing.F) {
	f.Add([]byte(qstatXML))
	f.Add([]byte(`<job_info><job_list><JB_job_number>1</JB_job_number><state>r</state><JAT_start_time>0001-01-01T00:00:00</JAT_start_time><JB_submission_time>9999-12-31T23:59:59</JB_submission_time></job_list></job_info>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		jobs, err := parseQstat(b)
		if err != nil {
			return
		}
		for _, j := range jobs {
			checkStatus(t, qstatStatus(j))
		}
	})
}

// qacct -j.
func FuzzQacct(f *testing.F) {
	f.Add([]byte(qacctOut))
	f.Add([]byte("jobnumber 7\nexit_status 99999999999\nfailed 0\nend_time Mon Jan  2 15:04:05 0001\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkStatus(t, qacctStatus(parseQacct(b)))
	})
}
