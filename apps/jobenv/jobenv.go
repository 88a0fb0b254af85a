// Package jobenv is the environment contract between whatever starts the
// processes of a job (the bundled scheduler core, the local target, Slurm's
// srun, a Globus DUROC job) and the synthetic applications: which variables
// say who a process is and how it finds the others.
//
//	GMARK_JOB_ID            the job's id (every job description file sets it)
//	GMARK_RANK              this process, 0..GMARK_SIZE−1, numbered through the components in order
//	GMARK_SIZE              processes in the job, all components together
//	GMARK_COMPONENT         this process's component, 0-based
//	GMARK_RENDEZVOUS        host:port of a rendezvous server (package rendezvous)
//	GMARK_RENDEZVOUS_FILE   where rank 0 publishes its own rendezvous when GMARK_RENDEZVOUS is unset
//	GMARK_BIND              host or IP the processes listen on (default 127.0.0.1)
//
// When a GMARK_ variable is unset, Read falls back to what the resource
// manager sets: SLURM_PROCID and SLURM_NTASKS under srun,
// GLOBUS_DUROC_SUBJOB_INDEX for the component of a DUROC multi-request.
package jobenv

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// The variable names.
const (
	JobID          = "GMARK_JOB_ID"
	Rank           = "GMARK_RANK"
	Size           = "GMARK_SIZE"
	Component      = "GMARK_COMPONENT"
	Rendezvous     = "GMARK_RENDEZVOUS"
	RendezvousFile = "GMARK_RENDEZVOUS_FILE"
	Bind           = "GMARK_BIND"
)

// Names lists every variable of the contract, for launchers that must clear
// inherited values before setting their own.
var Names = []string{JobID, Rank, Size, Component, Rendezvous, RendezvousFile, Bind}

// Env is one process's place in its job.
type Env struct {
	JobID          string // "" when the job has no id
	Rank           int
	Size           int
	Component      int
	Rendezvous     string // "" when none was given
	RendezvousFile string // "" means the default, see File
	Bind           string // never ""
}

// Read resolves the environment through getenv (os.Getenv in a real
// process). Malformed or inconsistent values are errors that name the
// variable.
func Read(getenv func(string) string) (Env, error) {
	e := Env{
		JobID:          strings.TrimSpace(getenv(JobID)),
		Rendezvous:     strings.TrimSpace(getenv(Rendezvous)),
		RendezvousFile: strings.TrimSpace(getenv(RendezvousFile)),
		Bind:           strings.TrimSpace(getenv(Bind)),
	}
	if e.Bind == "" {
		e.Bind = "127.0.0.1"
	}
	var err error
	if e.Size, err = firstInt(getenv, 1, 1, Size, "SLURM_NTASKS"); err != nil {
		return e, err
	}
	if e.Rank, err = firstInt(getenv, 0, 0, Rank, "SLURM_PROCID"); err != nil {
		return e, err
	}
	if e.Component, err = firstInt(getenv, 0, 0, Component, "GLOBUS_DUROC_SUBJOB_INDEX"); err != nil {
		return e, err
	}
	if e.Rank >= e.Size {
		return e, fmt.Errorf("rank %d is not below the job size %d (check %s and %s)", e.Rank, e.Size, Rank, Size)
	}
	return e, nil
}

// firstInt reads the first of names that is set, as a whole number >= lo.
func firstInt(getenv func(string) string, def, lo int, names ...string) (int, error) {
	for _, n := range names {
		v := strings.TrimSpace(getenv(n))
		if v == "" {
			continue
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < lo {
			return 0, fmt.Errorf("%s=%q must be a whole number >= %d", n, v, lo)
		}
		return i, nil
	}
	return def, nil
}

// Key identifies the job to the rendezvous: GMARK_JOB_ID, or else the Slurm
// job (SLURM_HET_JOB_ID, which all components of a heterogeneous job share,
// or SLURM_JOB_ID), or else "job".
func (e Env) Key(getenv func(string) string) string {
	if e.JobID != "" {
		return e.JobID
	}
	for _, n := range []string{"SLURM_HET_JOB_ID", "SLURM_JOB_ID"} {
		if v := strings.TrimSpace(getenv(n)); v != "" {
			return "slurm-" + v
		}
	}
	return "job"
}

// File is where rank 0 publishes its rendezvous when none is given:
// GMARK_RENDEZVOUS_FILE, or ".gmark-rendezvous-KEY" in dir (the job's
// working directory, which all its processes share).
func (e Env) File(dir, key string) string {
	if e.RendezvousFile != "" {
		return e.RendezvousFile
	}
	return filepath.Join(dir, ".gmark-rendezvous-"+Safe(key))
}

// Safe turns a job id into something usable in a file name.
func Safe(s string) string {
	if s == "" {
		return "job"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}

// Vars is the environment a launcher gives process rank of a job, as
// "NAME=value" strings. An empty rendezvous is left out, so the job falls
// back to rank 0's own.
func Vars(jobID string, rank, size, component int, rendezvous string) []string {
	v := []string{
		JobID + "=" + jobID,
		Rank + "=" + strconv.Itoa(rank),
		Size + "=" + strconv.Itoa(size),
		Component + "=" + strconv.Itoa(component),
	}
	if rendezvous != "" {
		v = append(v, Rendezvous+"="+rendezvous)
	}
	return v
}
