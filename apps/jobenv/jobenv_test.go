package jobenv

import (
	"path/filepath"
	"strings"
	"testing"
)

func getenv(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestRead(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want Env
	}{
		{nil, Env{Size: 1, Bind: "127.0.0.1"}},
		{map[string]string{JobID: "j1", Rank: "3", Size: "4", Component: "1", Rendezvous: "127.0.0.1:9", Bind: "0.0.0.0"},
			Env{JobID: "j1", Rank: 3, Size: 4, Component: 1, Rendezvous: "127.0.0.1:9", Bind: "0.0.0.0"}},
		// Slurm's srun, and a DUROC subjob index.
		{map[string]string{"SLURM_PROCID": "2", "SLURM_NTASKS": "6", "GLOBUS_DUROC_SUBJOB_INDEX": "1"},
			Env{Rank: 2, Size: 6, Component: 1, Bind: "127.0.0.1"}},
		// A component of a co-allocated job: its base plus the launcher's rank.
		{map[string]string{RankBase: "2", Size: "4", "SLURM_PROCID": "1", "SLURM_NTASKS": "2", Component: "1"},
			Env{Rank: 3, Size: 4, Component: 1, Bind: "127.0.0.1"}},
		// An MPI launcher inside a batch step: its rank, not the step's SLURM_PROCID=0.
		{map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "1", "PMI_RANK": "3", "PMI_SIZE": "4"},
			Env{Rank: 3, Size: 4, Bind: "127.0.0.1"}},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2", RankBase: "4", Size: "6"},
			Env{Rank: 5, Size: 6, Bind: "127.0.0.1"}},
		{map[string]string{"PMIX_RANK": "2", Size: "3"}, Env{Rank: 2, Size: 3, Bind: "127.0.0.1"}},
		{map[string]string{"_CONDOR_PROCNO": "3", "_CONDOR_NPROCS": "4"}, Env{Rank: 3, Size: 4, Bind: "127.0.0.1"}},
		{map[string]string{LocalRank: "1", RankBase: "1", Size: "3", "PMI_RANK": "0"}, Env{Rank: 2, Size: 3, Bind: "127.0.0.1"}},
		// gmark's own variables win over the resource manager's.
		{map[string]string{Rank: "0", Size: "2", "SLURM_PROCID": "5", "SLURM_NTASKS": "8"},
			Env{Rank: 0, Size: 2, Bind: "127.0.0.1"}},
	}
	for _, c := range cases {
		got, err := Read(getenv(c.env))
		if err != nil || got != c.want {
			t.Errorf("%v: got %+v, %v; want %+v", c.env, got, err, c.want)
		}
	}
	for _, bad := range []map[string]string{
		{Rank: "2", Size: "2"}, {Size: "0"}, {Rank: "-1"}, {Component: "x"}, {"SLURM_PROCID": "0", "SLURM_NTASKS": "many"},
		{"PMIX_RANK": "1"}, {"SLURM_PROCID": "4", "SLURM_NTASKS": "4"}, {RankBase: "2", "SLURM_PROCID": "1", "SLURM_NTASKS": "2"},
		{RankBase: "-1", Size: "4"}, {"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "2"},
	} {
		if _, err := Read(getenv(bad)); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestKeyAndFile(t *testing.T) {
	e := Env{}
	if k := e.Key(getenv(map[string]string{"SLURM_HET_JOB_ID": "7", "SLURM_JOB_ID": "8"})); k != "slurm-7" {
		t.Errorf("het job key %q", k)
	}
	if k := e.Key(getenv(nil)); k != "job" {
		t.Errorf("default key %q", k)
	}
	e.JobID = "u1/j 2"
	if k := e.Key(getenv(map[string]string{"SLURM_JOB_ID": "8"})); k != "u1/j 2" {
		t.Errorf("key %q", k)
	}
	if f := e.File("/w", e.JobID); f != filepath.Join("/w", ".gmark-rendezvous-u1_j_2") {
		t.Errorf("file %q", f)
	}
	e.RendezvousFile = "/shared/rdv"
	if f := e.File("/w", "x"); f != "/shared/rdv" {
		t.Errorf("file %q", f)
	}
}

func TestVars(t *testing.T) {
	v := strings.Join(Vars("j", 1, 4, 0, "h:1"), " ")
	if v != "GMARK_JOB_ID=j GMARK_RANK=1 GMARK_SIZE=4 GMARK_COMPONENT=0 GMARK_RENDEZVOUS=h:1" {
		t.Errorf("%s", v)
	}
	if v := Vars("j", 0, 1, 0, ""); len(v) != 4 {
		t.Errorf("%v", v)
	}
}
