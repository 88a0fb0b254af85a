package printers

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testbin"
)

// Stand-ins for the programs a batch system's execute host provides and
// that a printed script calls: mpiexec and pbsdsh. They are this test
// binary, run under those names (a symlink on the script's PATH); TestMain
// tells them apart by the name they were started as. Each does what the
// real program does to the processes it starts, and nothing more:
//
//   - mpiexec "hydra" is MPICH's Hydra, as Grid Engine sites use it: it
//     reads the slots of $PE_HOSTFILE (refusing to start more processes
//     than the job was granted) and gives each process PMI_RANK and
//     PMI_SIZE, its rank among the n it started and n.
//   - mpiexec "openmpi" is Open MPI's, as PBS sites use it: it reads
//     $PBS_NODEFILE (one line per MPI process) and gives each process
//     OMPI_COMM_WORLD_RANK/SIZE, OMPI_COMM_WORLD_LOCAL_RANK and PMIX_RANK.
//   - pbsdsh is PBS's task starter (tm_spawn): it starts its program -c
//     times (default: once per line of $PBS_NODEFILE, each line a virtual
//     node), with the job's first environment, not its caller's: what a
//     job script exports does not reach the tasks. Each task gets
//     PBS_TASKNUM, PBS_NODENUM and PBS_VNODENUM (its virtual node, 0..n-1)
//     and starts in the home directory. Its exit status is the first
//     failed task's, else 0.
//
// Both wait for every process they started, with their standard output and
// error going to the caller's.

// standInConfEnv names the file that configures the stand-ins of a run: the
// plumbing of this test, read by no gmark code.
const standInConfEnv = "GMARK_TEST_STANDIN_CONF"

type standInConf struct {
	MPI    string   `json:"mpi"`     // hydra or openmpi
	JobEnv []string `json:"job_env"` // the job's first environment, for pbsdsh's tasks
}

var gmarkBin testbin.Lazy

func TestMain(m *testing.M) {
	if conf := os.Getenv(standInConfEnv); conf != "" {
		switch name := filepath.Base(os.Args[0]); name {
		case "mpiexec", "pbsdsh":
			os.Exit(runStandIn(name, conf, os.Args[1:]))
		}
	}
	testbin.MainLazy(m, &gmarkBin)
}

func runStandIn(name, confPath string, args []string) int {
	b, err := os.ReadFile(confPath)
	var conf standInConf
	if err == nil {
		err = json.Unmarshal(b, &conf)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s stand-in: %v\n", name, err)
		return 3
	}
	if name == "pbsdsh" {
		err = pbsdsh(conf, args)
	} else {
		err = mpiexec(conf, args)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s stand-in: %v\n", name, err)
		return 3
	}
	return 0
}

// hostSlots counts the slots a host file grants: PE_HOSTFILE lines are
// "host slots queue processors", PBS_NODEFILE lines one host per slot.
func hostSlots(path string, sge bool) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	slots := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case !sge:
			slots++
		case len(f) >= 2:
			n, err := strconv.Atoi(f[1])
			if err != nil {
				return 0, fmt.Errorf("%s: %q", path, line)
			}
			slots += n
		default:
			return 0, fmt.Errorf("%s: %q", path, line)
		}
	}
	return slots, nil
}

func mpiexec(conf standInConf, args []string) error {
	if len(args) < 3 || args[0] != "-n" {
		return fmt.Errorf("usage: mpiexec -n N program [args], got %q", args)
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 1 {
		return fmt.Errorf("-n %q", args[1])
	}
	hostFile, sge := os.Getenv("PE_HOSTFILE"), conf.MPI == "hydra"
	if !sge {
		hostFile = os.Getenv("PBS_NODEFILE")
	}
	slots, err := hostSlots(hostFile, sge)
	if err != nil {
		return err
	}
	if n > slots {
		return fmt.Errorf("-n %d but the job has %d slots", n, slots)
	}
	procs := make([]*exec.Cmd, n)
	for i := range procs {
		var vars []string
		if sge {
			vars = []string{"PMI_RANK=" + strconv.Itoa(i), "PMI_SIZE=" + strconv.Itoa(n)}
		} else {
			vars = []string{"OMPI_COMM_WORLD_RANK=" + strconv.Itoa(i), "OMPI_COMM_WORLD_SIZE=" + strconv.Itoa(n),
				"OMPI_COMM_WORLD_LOCAL_RANK=" + strconv.Itoa(i), "PMIX_RANK=" + strconv.Itoa(i)}
		}
		procs[i] = taskCommand(args[2:], append(os.Environ(), vars...), "")
	}
	return startAll(procs)
}

func pbsdsh(conf standInConf, args []string) error {
	env := func(name string) string {
		for _, kv := range conf.JobEnv {
			if v, ok := strings.CutPrefix(kv, name+"="); ok {
				return v
			}
		}
		return ""
	}
	nodes, err := hostSlots(env("PBS_NODEFILE"), false)
	if err != nil {
		return err
	}
	copies := nodes
	if len(args) >= 2 && args[0] == "-c" {
		if copies, err = strconv.Atoi(args[1]); err != nil || copies < 1 {
			return fmt.Errorf("-c %q", args[1])
		}
		args = args[2:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return errors.New("usage: pbsdsh [-c copies] [--] program [args]")
	}
	procs := make([]*exec.Cmd, copies)
	for i := range procs {
		vars := []string{"PBS_TASKNUM=" + strconv.Itoa(i+1), "PBS_NODENUM=0", "PBS_VNODENUM=" + strconv.Itoa(i%nodes)}
		procs[i] = taskCommand(args, append(append([]string{}, conf.JobEnv...), vars...), env("HOME"))
	}
	return startAll(procs)
}

func taskCommand(argv, env []string, dir string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd
}

// startAll starts every process, waits for all, and returns the first
// failure (in start order).
func startAll(procs []*exec.Cmd) error {
	for i, p := range procs {
		if err := p.Start(); err != nil {
			for _, q := range procs[:i] {
				q.Process.Kill()
				q.Wait()
			}
			return err
		}
	}
	var first error
	for _, p := range procs {
		if err := p.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
