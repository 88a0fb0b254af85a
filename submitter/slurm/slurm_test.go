package slurm

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/submitter/target"
	"github.com/gmark/gmark/workload"
)

// Slurm's "not now" is transient; a bad request is not. Each message is said
// on standard error by a real command that fails.
func TestTransientMessages(t *testing.T) {
	cmd := target.Command{Timeout: time.Minute, TransientMessages: slurmcli.TransientMessages}
	for _, tc := range []struct {
		stderr    string
		transient bool
	}{
		{"sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)", true},
		{"sbatch: error: Batch job submission failed: Requested node configuration is not available", false},
	} {
		_, err := cmd.Run(context.Background(), "sh", "-c", `printf '%s\n' "$1" >&2; exit 1`, "sh", tc.stderr)
		var ce *target.CommandError
		if !errors.As(err, &ce) || ce.Status != 1 {
			t.Fatalf("%q: error %v, want a command error with exit status 1", tc.stderr, err)
		}
		if got := target.IsTransient(err); got != tc.transient {
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

// Each component learns where its ranks start and how large the whole job
// is; srun gives the rank within the component.
func TestComponentEnv(t *testing.T) {
	j := &workload.Job{Components: []workload.Component{{Count: 2}, {Count: 3}, {Count: 1}}}
	for comp, want := range []string{
		"ALL,GMARK_COMPONENT=0,GMARK_RANK_BASE=0,GMARK_SIZE=6",
		"ALL,GMARK_COMPONENT=1,GMARK_RANK_BASE=2,GMARK_SIZE=6",
		"ALL,GMARK_COMPONENT=2,GMARK_RANK_BASE=5,GMARK_SIZE=6",
	} {
		if got := componentEnv(j, comp); got != want {
			t.Errorf("component %d: %s, want %s", comp, got, want)
		}
	}
}

func TestPlainJob(t *testing.T) {
	for _, c := range []struct {
		sites []string
		plain bool
	}{
		{[]string{"a"}, true}, {[]string{"a", "a"}, true}, {[]string{"a", "b"}, false},
		{[]string{"a", "*"}, false}, {[]string{"*", "*"}, false}, {[]string{""}, false},
	} {
		j := &workload.Job{}
		for _, s := range c.sites {
			j.Components = append(j.Components, workload.Component{Site: s, Count: 1})
		}
		if got := plainJob(j); got != c.plain {
			t.Errorf("%v: plain %v", c.sites, got)
		}
	}
}
