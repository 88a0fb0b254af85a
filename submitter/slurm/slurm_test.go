package slurm

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/submitter"
)

// Slurm's "not now" is transient; a bad request is not. Each message is said
// on standard error by a real command that fails.
func TestTransientMessages(t *testing.T) {
	cmd := submitter.Command{Timeout: time.Minute, TransientMessages: slurmcli.TransientMessages}
	for _, tc := range []struct {
		stderr    string
		transient bool
	}{
		{"sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)", true},
		{"sbatch: error: Batch job submission failed: Requested node configuration is not available", false},
	} {
		_, err := cmd.Run(context.Background(), "sh", "-c", `printf '%s\n' "$1" >&2; exit 1`, "sh", tc.stderr)
		var ce *submitter.CommandError
		if !errors.As(err, &ce) || ce.Status != 1 {
			t.Fatalf("%q: error %v, want a command error with exit status 1", tc.stderr, err)
		}
		if got := submitter.IsTransient(err); got != tc.transient {
			t.Errorf("%q: transient %v, want %v", tc.stderr, got, tc.transient)
		}
	}
}

func TestStripClusters(t *testing.T) {
	in := "#!/bin/sh\n#SBATCH --job-name=x\n#SBATCH --clusters=alpha\n#SBATCH --ntasks=2\n"
	if got := string(stripClusters([]byte(in))); got != "#!/bin/sh\n#SBATCH --job-name=x\n#SBATCH --ntasks=2\n" {
		t.Fatalf("%q", got)
	}
}
