package arc

import (
	"testing"
	"time"

	"github.com/gmark/gmark/internal/arcrest"
	"github.com/gmark/gmark/submitter"
)

// A FINISHED record without the LRM's exit code is asked for again for
// exitWait from its first sight, then taken as it is; a record with one,
// and a failed or killed job's, are taken at once.
func TestMissingExitCodeIsAwaited(t *testing.T) {
	zero, three := 0, 3
	for _, tc := range []struct {
		state   string
		exit    *int
		noExit  time.Duration // since it was first seen without one (0: not yet)
		want    bool
		wantNow submitter.State
	}{
		{"FINISHED", nil, 0, true, submitter.Succeeded},
		{"FINISHED", nil, time.Second, true, submitter.Succeeded},
		{"FINISHED", nil, exitWait + time.Second, false, submitter.Succeeded},
		{"FINISHED", &zero, 0, false, submitter.Succeeded},
		{"FINISHED", &three, 0, false, submitter.Failed},
		{"FAILED", nil, 0, false, submitter.Failed},
		{"KILLED", nil, 0, false, submitter.Cancelled},
	} {
		k := &known{info: &arcrest.Info{State: tc.state, ExitCode: tc.exit}}
		if tc.noExit > 0 {
			k.noExit = time.Now().Add(-tc.noExit)
		}
		if got := k.awaitingExit(); got != tc.want {
			t.Errorf("%s, exit %v, first seen without one %v ago: awaiting %v, want %v", tc.state, tc.exit, tc.noExit, got, tc.want)
		}
		b := &backend{}
		if got := noExitCode(k.info) && b.awaitExit(k); got != tc.want {
			t.Errorf("%s, exit %v, %v ago: polled again %v, want %v", tc.state, tc.exit, tc.noExit, got, tc.want)
		}
		if st := State(tc.state, tc.exit); st != tc.wantNow {
			t.Errorf("State(%s, %v) = %s, want %s", tc.state, tc.exit, st, tc.wantNow)
		}
	}
}
