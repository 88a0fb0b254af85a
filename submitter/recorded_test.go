package submitter

import (
	"context"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

// RecordedTarget gives back the target configuration a run recorded,
// and nothing for a new run, a targets file given, or a run not there.
func TestRecordedTarget(t *testing.T) {
	dir := testkit.WriteWorkload(t, mixedWorkload()[:2]...)
	st := openStore(t)
	sum, err := Run(context.Background(), Config{WorkloadDir: dir, Store: st, Target: NewDryRun(),
		TargetConfig: map[string]string{"cluster": "alpha"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		resume string
		given  bool
		want   string
	}{
		{sum.RunID, false, `{"cluster":"alpha"}`},
		{sum.RunID, true, ""},
		{"", false, ""},
		{"no-such-run", false, ""},
	}
	for _, c := range cases {
		if got := string(RecordedTarget(st, c.resume, c.given)); got != c.want {
			t.Errorf("%q %v: %q, want %q", c.resume, c.given, got, c.want)
		}
	}
}
