package site

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/slurmcli"
)

// slurm is a Slurm cluster: a placeholder is a batch job of the script.
type slurm struct {
	spec   Spec
	script string
}

// commandTimeout bounds one Slurm command.
const commandTimeout = 60 * time.Second

func (s *slurm) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = os.Environ()
	if s.spec.SlurmConf != "" {
		cmd.Env = append(cmd.Env, "SLURM_CONF="+s.spec.SlurmConf)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func (s *slurm) Submit(ctx context.Context) (string, error) {
	args := append([]string{"--parsable", "--export=ALL," + SubmittedEnv + "=" + strconv.FormatInt(time.Now().UnixNano(), 10)}, s.spec.SbatchArgs...)
	out, err := s.run(ctx, "sbatch", append(args, s.script)...)
	if err != nil {
		return "", err
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if n, err := strconv.ParseInt(id, 10, 64); err != nil || n < 1 {
		return "", fmt.Errorf("sbatch printed %q, not a job id", out)
	}
	return id, nil
}

func (s *slurm) Kill(ctx context.Context, localID string) error {
	if n, err := strconv.ParseInt(localID, 10, 64); err != nil || n < 1 {
		return fmt.Errorf("slurm: %q is not a job id", localID)
	}
	_, err := s.run(ctx, "scancel", localID)
	return err
}

func (s *slurm) Alive(ctx context.Context, ids []string) (map[string]bool, error) {
	out, err := s.run(ctx, "squeue", "--json")
	if err != nil {
		return nil, err
	}
	recs, err := slurmcli.ParseSqueue(out)
	if err != nil {
		return nil, err
	}
	live := map[string]bool{}
	for _, r := range recs {
		if c := r.Class(); c == "queued" || c == "running" {
			live[strconv.FormatInt(r.ID, 10)] = true
		}
	}
	alive := map[string]bool{}
	for _, id := range ids {
		if live[id] {
			alive[id] = true
		}
	}
	return alive, nil
}

// Free is the idle CPUs sinfo counts (in the site's partition, when it
// names one).
func (s *slurm) Free(ctx context.Context) (int, error) {
	args := []string{"-h", "-o", "%C"}
	if s.spec.Partition != "" {
		args = append(args, "-p", s.spec.Partition)
	}
	out, err := s.run(ctx, "sinfo", args...)
	if err != nil {
		return 0, err
	}
	c, err := slurmcli.ParseCPUs(out)
	if err != nil {
		return 0, err
	}
	return c.Idle, nil
}
