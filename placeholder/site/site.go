// Package site starts, stops and watches placeholders at one site: a Slurm
// cluster (sbatch, scancel, squeue) or a host with no scheduler, where a
// placeholder is a plain background process (the thesis's zero-infrastructure
// site, whose `zinfqsub` prints the new process's id as its "job id"). The
// metaqueue server uses it to dispatch placeholders and for its watchdog, and
// a placeholder uses the same code to resubmit itself to its own local queue.
package site

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/readlimit"
)

// Kinds of site.
const (
	Zinf  = "zinf"  // a host with no scheduler: placeholders are processes
	Slurm = "slurm" // a Slurm cluster: placeholders are batch jobs
	Koala = "koala" // a cluster of `gmark koala serve`: placeholders are its jobs
)

// Modes of placeholder.
const (
	Classic = "classic" // the thesis's: one job per local job, then resubmit
	Pilot   = "pilot"   // an extension: pull again until the wall time runs out
)

// Spec describes one site of a group and its placeholders (the thesis's
// per-site template: queue, CPUs, maximum time, and the id string).
type Spec struct {
	Name string `toml:"name" json:"name"`
	Kind string `toml:"kind" json:"kind"`
	// Mode is classic (default) or pilot.
	Mode string `toml:"mode" json:"mode,omitempty"`
	// Dir holds the placeholder script, its configuration and the
	// placeholders' output files (Placeholder.oID). Default: chosen by the
	// server, beside its state.
	Dir string `toml:"dir" json:"dir,omitempty"`
	// SlurmConf is the slurm.conf of the cluster (SLURM_CONF); empty: the
	// commands' default.
	SlurmConf string `toml:"slurm_conf" json:"slurm_conf,omitempty"`
	// Partition is the local queue (sbatch -p); empty: the default one.
	Partition string `toml:"partition" json:"partition,omitempty"`
	// CPUs per placeholder (sbatch -c); default 1.
	CPUs int `toml:"cpus" json:"cpus,omitempty"`
	// WallTime is the placeholder's time limit (sbatch -t; for a pilot,
	// also when it stops pulling). Empty: none.
	WallTime string `toml:"wall_time" json:"wall_time,omitempty"`
	// Koala is the bundled core's API (kind koala), e.g.
	// http://127.0.0.1:7070; KoalaTokenFile holds its token (a
	// placeholder resubmits itself with it); Cluster is the core's
	// cluster the placeholders are fixed on.
	Koala          string `toml:"koala" json:"koala,omitempty"`
	KoalaTokenFile string `toml:"koala_token_file" json:"koala_token_file,omitempty"`
	Cluster        string `toml:"cluster" json:"cluster,omitempty"`
	// SbatchArgs are added to every sbatch command line.
	SbatchArgs []string `toml:"sbatch_args" json:"sbatch_args,omitempty"`
	// Regulate makes the classic placeholders self-regulating (the
	// thesis's Fig. 3.7): when one starts, its queue wait is compared with
	// LowWait and HighWait, and it submits one more placeholder before
	// running its job (increase, while the site has fewer than MaxCount),
	// does not resubmit itself after it (reduce, while the site has more
	// than MinCount), or neither (maintain). The thesis gives no thresholds:
	// the defaults are 1m, 10m, 1 and 64.
	Regulate bool   `toml:"regulate" json:"regulate,omitempty"`
	LowWait  string `toml:"low_wait" json:"low_wait,omitempty"`
	HighWait string `toml:"high_wait" json:"high_wait,omitempty"`
	MinCount int    `toml:"min_count" json:"min_count,omitempty"`
	MaxCount int    `toml:"max_count" json:"max_count,omitempty"`
}

// Thresholds are a self-regulating site's settings, checked.
type Thresholds struct {
	Low, High          time.Duration
	MinCount, MaxCount int
}

// Thresholds reads the self-regulation settings (with their defaults).
func (s *Spec) Thresholds() (Thresholds, error) {
	t := Thresholds{Low: time.Minute, High: 10 * time.Minute, MinCount: 1, MaxCount: 64}
	for _, x := range []struct {
		name, v string
		d       *time.Duration
	}{{"low_wait", s.LowWait, &t.Low}, {"high_wait", s.HighWait, &t.High}} {
		if x.v == "" {
			continue
		}
		d, err := time.ParseDuration(x.v)
		if err != nil || d < 0 {
			return t, fmt.Errorf("site %s: %s %q must be a duration >= 0", s.Name, x.name, x.v)
		}
		*x.d = d
	}
	if s.MinCount != 0 {
		t.MinCount = s.MinCount
	}
	if s.MaxCount != 0 {
		t.MaxCount = s.MaxCount
	}
	if t.Low > t.High || t.MinCount < 0 || t.MaxCount < max(1, t.MinCount) || t.MaxCount > 100000 {
		return t, fmt.Errorf("site %s: self-regulation needs low_wait <= high_wait and 0 <= min_count <= max_count <= 100000, max_count >= 1", s.Name)
	}
	return t, nil
}

// Check validates a spec and fills its defaults.
func (s *Spec) Check() error {
	if s.Name == "" || strings.ContainsAny(s.Name, "/ \t\n\\") || len(s.Name) > 64 {
		return fmt.Errorf("site name %q: 1 to 64 characters, no blanks or slashes", s.Name)
	}
	switch s.Kind {
	case Zinf, Slurm:
	case Koala:
		if err := s.checkKoala(); err != nil {
			return err
		}
	case "":
		return fmt.Errorf("site %s: no kind (zinf, slurm or koala)", s.Name)
	default:
		return fmt.Errorf("site %s: kind %q is not zinf, slurm or koala", s.Name, s.Kind)
	}
	switch s.Mode {
	case "":
		s.Mode = Classic
	case Classic, Pilot:
	default:
		return fmt.Errorf("site %s: mode %q is not classic or pilot", s.Name, s.Mode)
	}
	if s.CPUs == 0 {
		s.CPUs = 1
	}
	if s.CPUs < 1 || s.CPUs > 1<<16 {
		return fmt.Errorf("site %s: cpus %d must be from 1 to 65536", s.Name, s.CPUs)
	}
	if _, err := s.Wall(); err != nil {
		return err
	}
	if s.Regulate && s.Mode != Classic {
		return fmt.Errorf("site %s: self-regulation is for classic placeholders", s.Name)
	}
	_, err := s.Thresholds()
	return err
}

// Wall is the wall time as a duration (0: none).
func (s *Spec) Wall() (time.Duration, error) {
	if s.WallTime == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s.WallTime)
	if err != nil || d < time.Minute || d > 365*24*time.Hour {
		return 0, fmt.Errorf("site %s: wall_time %q must be a duration from 1m to 8760h, e.g. 2h", s.Name, s.WallTime)
	}
	return d, nil
}

// AgentConfig is what a placeholder reads when it starts (DIR/agent.json):
// where the metaqueue is and who it is.
type AgentConfig struct {
	Server    string `json:"server"`     // http://127.0.0.1:PORT
	TokenFile string `json:"token_file"` // the shared secret (the thesis's ident verification)
	Group     string `json:"group"`
	Site      Spec   `json:"site"`
	Gmark     string `json:"gmark"`  // the gmark binary
	Script    string `json:"script"` // the placeholder script, resubmitted as it is
	// Retries and RetryWait: each call to the server is tried Retries more
	// times, RetryWait apart (the thesis: 5 and 10 minutes).
	Retries   int      `json:"retries"`
	RetryWait Duration `json:"retry_wait"`
}

// Duration is a time.Duration written as text ("10m").
type Duration time.Duration

// MarshalText writes the duration as Go writes it.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// Write writes the placeholder script and its configuration into the
// site's directory and returns the script's path.
func Write(cfg AgentConfig) (string, error) {
	dir := cfg.Site.Dir
	if dir == "" {
		return "", fmt.Errorf("site %s: no directory", cfg.Site.Name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	conf := filepath.Join(dir, "agent.json")
	script := filepath.Join(dir, "placeholder."+cfg.Site.Kind)
	if cfg.Site.Kind == Slurm {
		script = filepath.Join(dir, "placeholder.sbatch")
	}
	cfg.Script = script
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return "", err
	}
	if err := writeFile(conf, append(b, '\n'), 0o600); err != nil {
		return "", err
	}
	return script, writeFile(script, []byte(scriptText(cfg, conf)), 0o755)
}

// writeFile replaces path atomically: a placeholder starting meanwhile reads
// the old or the new file, never half of one.
func writeFile(path string, b []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, perm); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// scriptText is the placeholder script: batch directives (Slurm) or the
// output redirection of the thesis's zero-infrastructure script (Fig. 3.5),
// then the agent, which does the rest of the life cycle.
func scriptText(cfg AgentConfig, conf string) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	s := cfg.Site
	if s.Kind == Slurm {
		fmt.Fprintf(&b, "#SBATCH -J placeholder-%s-%s\n", cfg.Group, s.Name)
		if s.Partition != "" {
			fmt.Fprintf(&b, "#SBATCH -p %s\n", s.Partition)
		}
		fmt.Fprintf(&b, "#SBATCH -c %d\n", s.CPUs)
		if w, _ := s.Wall(); w > 0 {
			fmt.Fprintf(&b, "#SBATCH -t %d\n", int((w+time.Minute-1)/time.Minute))
		}
		fmt.Fprintf(&b, "#SBATCH -o %s\n", shellQuote(filepath.Join(s.Dir, "Placeholder.o%j")))
		if s.SlurmConf != "" {
			fmt.Fprintf(&b, "export SLURM_CONF=%s\n", shellQuote(s.SlurmConf))
		}
	} else if s.Kind == Zinf {
		fmt.Fprintf(&b, "exec 1>%s/Placeholder.o$$ 2>&1\n", shellQuote(s.Dir))
	}
	fmt.Fprintf(&b, "exec %s placeholder agent --config %s\n", shellQuote(cfg.Gmark), shellQuote(conf))
	return b.String()
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./%=:,+@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// MaxConfig bounds an agent configuration: a few hundred bytes.
const MaxConfig = 1 << 20

// ReadConfig reads an agent configuration: one JSON object of
// AgentConfig's fields.
func ReadConfig(path string) (*AgentConfig, error) {
	b, err := readlimit.File(path, MaxConfig)
	if err != nil {
		if errors.Is(err, readlimit.ErrTooLarge) {
			return nil, readlimit.TooLargef("%s: larger than %d bytes: not an agent configuration", path, MaxConfig)
		}
		return nil, err
	}
	var cfg AgentConfig
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: data after the configuration (at byte %d)", path, dec.InputOffset())
	}
	if err := cfg.Site.Check(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if cfg.Server == "" || cfg.Group == "" || cfg.Script == "" {
		return nil, fmt.Errorf("%s: server, group and script are required", path)
	}
	if cfg.Retries < 0 || cfg.Retries > 1000 || cfg.RetryWait < 0 {
		return nil, fmt.Errorf("%s: retries must be from 0 to 1000 and retry_wait >= 0", path)
	}
	return &cfg, nil
}

// SubmittedEnv is the variable in which a placeholder finds when it was
// submitted (Unix nanoseconds), set by whoever submitted it: its queue wait
// is its start minus that (the thesis hands it over in a file, Fig. 3.7).
const SubmittedEnv = "GMARK_PLACEHOLDER_SUBMITTED"

// Submitted reads SubmittedEnv (zero when unset or bad).
func Submitted() time.Time {
	n, err := strconv.ParseInt(os.Getenv(SubmittedEnv), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// Site submits, kills and watches the placeholders of one site.
type Site interface {
	// Submit puts one placeholder in the site's local queue (starts one
	// process, on a zinf site) and returns its local id, without waiting
	// for it to start.
	Submit(ctx context.Context) (localID string, err error)
	// Kill removes a placeholder, queued or running, with what it runs.
	Kill(ctx context.Context, localID string) error
	// Alive tells which of ids are still queued or running at the site.
	Alive(ctx context.Context, ids []string) (map[string]bool, error)
	// Free is how many processors the site has free now: a Slurm
	// cluster's idle CPUs (of its partition), a zinf host's processors.
	Free(ctx context.Context) (int, error)
}

// New returns the site of a spec whose script is at script.
func New(spec Spec, script string) (Site, error) {
	switch spec.Kind {
	case Zinf:
		return &zinf{dir: spec.Dir, script: script}, nil
	case Slurm:
		return &slurm{spec: spec, script: script}, nil
	case Koala:
		return newKoala(spec, script), nil
	}
	return nil, errors.New("site: unknown kind " + spec.Kind)
}
