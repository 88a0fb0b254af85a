// Package jobenv is the environment contract between whatever starts the
// processes of a job (the bundled scheduler core, the local target, Slurm's
// srun, a Globus DUROC job) and the synthetic applications: which variables
// say who a process is and how it finds the others.
//
//	GMARK_JOB_ID            the job's id (every job description file sets it)
//	GMARK_RANK              this process, 0..GMARK_SIZE−1, numbered through the components in order
//	GMARK_RANK_BASE         the global rank of its component's first process (when GMARK_RANK is unset)
//	GMARK_LOCAL_RANK        this process within its component (when no launcher variable says it)
//	GMARK_SIZE              processes in the job, all components together
//	GMARK_COMPONENT         this process's component, 0-based
//	GMARK_RENDEZVOUS        host:port of a rendezvous server (package rendezvous)
//	GMARK_RENDEZVOUS_FILE   where rank 0 publishes its own rendezvous when GMARK_RENDEZVOUS is unset
//	GMARK_BIND              host or IP the processes listen on (default 127.0.0.1)
//
// A co-allocated job has one rank space: a process's global rank is
// GMARK_RANK when a launcher of gmark's sets it (apps/launch, the bundled
// core); otherwise GMARK_RANK_BASE (0 when unset) plus its rank within its
// component, which the program that started the component's processes says
// (LocalRanks, first one set wins). GMARK_SIZE is the whole job's size; when
// unset, the component's launcher's size is the job's (a job of one
// component). GLOBUS_DUROC_SUBJOB_INDEX stands for GMARK_COMPONENT under a
// DUROC multi-request.
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
	RankBase       = "GMARK_RANK_BASE"
	LocalRank      = "GMARK_LOCAL_RANK"
	Rendezvous     = "GMARK_RENDEZVOUS"
	RendezvousFile = "GMARK_RENDEZVOUS_FILE"
	Bind           = "GMARK_BIND"
)

// Names lists every variable of the contract, for launchers that must clear
// inherited values before setting their own.
var Names = []string{JobID, Rank, RankBase, LocalRank, Size, Component, Rendezvous, RendezvousFile, Bind}

// A Launcher is how one kind of process starter names a process's rank
// within what it started, and how many it started.
type Launcher struct {
	Name       string // for errors and docs
	Rank, Size string // its variables
}

// LocalRanks are the launchers whose variables say a process's rank within
// its component, most specific first: an MPI launcher run inside a batch
// job inherits the batch step's SLURM_PROCID=0, so the MPI variables win.
var LocalRanks = []Launcher{
	{"gmark", LocalRank, ""},
	{"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
	{"PMIx", "PMIX_RANK", ""},
	{"PMI (MPICH Hydra, Intel MPI, srun --mpi=pmi2)", "PMI_RANK", "PMI_SIZE"},
	{"Slurm srun", "SLURM_PROCID", "SLURM_NTASKS"},
	{"HTCondor parallel universe", "_CONDOR_PROCNO", "_CONDOR_NPROCS"},
	{"PBS pbsdsh", "PBS_VNODENUM", ""},
}

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
	if e.Component, err = firstInt(getenv, 0, 0, Component, "GLOBUS_DUROC_SUBJOB_INDEX"); err != nil {
		return e, err
	}
	local, localSize, from, err := launcherRank(getenv)
	if err != nil {
		return e, err
	}
	if getenv(Size) == "" && localSize == 0 {
		return e, fmt.Errorf("%s says the rank but not how many processes there are: set %s", from, Size)
	}
	if e.Size, err = firstInt(getenv, localSize, 1, Size); err != nil {
		return e, err
	}
	if getenv(Rank) != "" {
		if e.Rank, err = firstInt(getenv, 0, 0, Rank); err != nil {
			return e, err
		}
		from = Rank
	} else {
		base, err := firstInt(getenv, 0, 0, RankBase)
		if err != nil {
			return e, err
		}
		e.Rank = base + local
		if base > 0 {
			from = RankBase + "+" + from
		}
	}
	if e.Rank >= e.Size {
		return e, fmt.Errorf("rank %d (from %s) is not below the job size %d (check %s)", e.Rank, from, e.Size, Size)
	}
	return e, nil
}

// launcherRank is the process's rank within its component and the
// component's size (0 when the launcher does not say it), from the first of
// LocalRanks that is set (0 of 1 when none is), and the variable the rank
// came from.
func launcherRank(getenv func(string) string) (rank, size int, from string, err error) {
	for _, l := range LocalRanks {
		if strings.TrimSpace(getenv(l.Rank)) == "" {
			continue
		}
		if rank, err = firstInt(getenv, 0, 0, l.Rank); err != nil {
			return 0, 0, "", err
		}
		if l.Size != "" {
			if size, err = firstInt(getenv, 0, 1, l.Size); err != nil {
				return 0, 0, "", err
			}
		}
		if size > 0 && rank >= size {
			return 0, 0, "", fmt.Errorf("%s=%d is not below %s=%d (%s)", l.Rank, rank, l.Size, size, l.Name)
		}
		return rank, size, l.Rank, nil
	}
	return 0, 1, "no launcher variable", nil
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
