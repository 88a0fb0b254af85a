// Package slurmtest starts real single-node Slurm clusters on loopback for
// tests, following the recipe of docs/architecture.md: one munged of its own (own key,
// own socket), and per cluster a slurm.conf with its own ClusterName, ports,
// state, spool, pid and log paths, more CPUs declared than the machine has,
// and the job completion log in a text file; then slurmctld and slurmd in
// the foreground, started and stopped by pid.
//
// Tests call Start, which skips the test with a message when slurm-wlm or
// munge is not installed (or when not root, which the recipe needs), and
// stops every daemon it started in t.Cleanup.
package slurmtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
)

// Options shape the clusters.
type Options struct {
	// CPUs each node declares (more than the machine has is fine). Default 64.
	CPUs int
	// Nodes is the number of nodes of each cluster, each a slurmd of its
	// own on this machine (its own port, spool directory and pid file).
	// Default 1.
	Nodes int
	// MinJobAge is how long Slurm keeps a finished job in squeue, seconds.
	// Default 600, so tests can compare what Slurm reports.
	MinJobAge int
	// MessageTimeout is Slurm's MessageTimeout, seconds. Default 30: on a
	// loaded machine slurmd can take more than Slurm's default of 10 to
	// launch a batch job, and a launch it cannot confirm in time is a
	// NODE_FAIL (the job is requeued two minutes later). A short one makes
	// calls to a stopped controller fail fast.
	MessageTimeout int
	// Extra is appended to every slurm.conf.
	Extra string
}

// Env is a set of clusters sharing one munged.
type Env struct {
	t           testing.TB
	Dir         string
	MungeSocket string
	Clusters    []*Cluster
	munged      *exec.Cmd
}

// Cluster is one single-node Slurm cluster.
type Cluster struct {
	Name       string
	Dir        string
	Conf       string   // its slurm.conf: clients use SLURM_CONF=Conf
	Node       string   // its first node
	Nodes      []string // every node
	CtldPort   int
	SlurmdPort int    // the first node's
	JobComp    string // the job completion log
	env        *Env
	ctld       *exec.Cmd
	slurmd     []*exec.Cmd
}

// Available says why Slurm cannot be started here, or "" when it can.
func Available() string {
	for _, bin := range []string{"slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel", "sinfo", "munged", "mungekey"} {
		if _, err := exec.LookPath(bin); err != nil {
			if _, err2 := os.Stat("/usr/sbin/" + bin); err2 != nil {
				return fmt.Sprintf("%s not found: install slurm-wlm and munge (apt-get install slurm-wlm munge)", bin)
			}
		}
	}
	if os.Geteuid() != 0 {
		return "the Slurm test clusters run as root (SlurmUser=root)"
	}
	return ""
}

func bin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return "/usr/sbin/" + name
}

// Start starts one cluster per name and waits until every node is idle.
func Start(t testing.TB, opt Options, names ...string) *Env {
	t.Helper()
	if why := Available(); why != "" {
		t.Skip("Slurm not available: " + why)
	}
	if opt.CPUs <= 0 {
		opt.CPUs = 64
	}
	if opt.Nodes <= 0 {
		opt.Nodes = 1
	}
	if opt.MinJobAge <= 0 {
		opt.MinJobAge = 600
	}
	if opt.MessageTimeout <= 0 {
		opt.MessageTimeout = 30
	}
	opt.Extra = fmt.Sprintf("MessageTimeout=%d\n", opt.MessageTimeout) + opt.Extra
	// Short paths: munge's socket path must fit a sockaddr_un.
	dir, err := os.MkdirTemp("", "slurmtest-")
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{t: t, Dir: dir, MungeSocket: filepath.Join(dir, "munge.sock")}
	t.Cleanup(e.stop)
	if err := e.startMunge(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	for _, name := range names {
		if err := e.addCluster(name, opt, host); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range e.Clusters {
		if err := c.waitIdle(30 * time.Second); err == nil {
			continue
		}
		// At load 77 a node stayed "unknown*" for a minute: its slurmd's
		// registration was lost, and the controller pings a silent node
		// again only after minutes. A slurmd started again registers
		// again.
		t.Logf("cluster %s not idle after 30 s: its slurmd is started again", c.Name)
		if err := c.restartSlurmd(); err != nil {
			t.Fatal(err)
		}
		if err := c.waitIdle(60 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// restartSlurmd stops the cluster's slurmd (by pid) and starts them again.
func (c *Cluster) restartSlurmd() error {
	for _, d := range c.slurmd {
		stopDaemon(d)
	}
	c.slurmd = nil
	return c.startSlurmd()
}

// confTemplate is the slurm.conf of a test cluster: name, controller and
// slurmd ports, munge socket, cluster directory, job completion log,
// MinJobAge, node lines, node list, extra lines. Each slurmd has its own
// spool directory and pid file (%n is the node's name).
const confTemplate = `# A single-node test cluster written by gmark's slurmtest.
ClusterName=%[1]s
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool/%%n
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd-%%n.pid
SlurmctldLogFile=%[5]s/log/slurmctld.log
SlurmdLogFile=%[5]s/log/slurmd-%%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
JobCompType=jobcomp/filetxt
JobCompLoc=%[6]s
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
MinJobAge=%[7]d
%[8]sPartitionName=main Nodes=%[9]s Default=YES MaxTime=INFINITE State=UP
%[10]s
`

// addCluster writes the configuration of cluster name and starts its
// controller and slurmd.
func (e *Env) addCluster(name string, opt Options, host string) error {
	c := &Cluster{Name: name, Dir: filepath.Join(e.Dir, name), Node: name + "n1", env: e}
	for i := 1; i <= opt.Nodes; i++ {
		c.Nodes = append(c.Nodes, fmt.Sprintf("%sn%d", name, i))
	}
	for _, sub := range append([]string{"state", "log"}, c.Nodes...) {
		if sub != "state" && sub != "log" {
			sub = filepath.Join("spool", sub)
		}
		if err := os.MkdirAll(filepath.Join(c.Dir, sub), 0o755); err != nil {
			return err
		}
	}
	ports, err := testkit.FreePorts(1 + opt.Nodes)
	if err != nil {
		return err
	}
	c.CtldPort, c.SlurmdPort = ports[0], ports[1]
	c.Conf = filepath.Join(c.Dir, "slurm.conf")
	c.JobComp = filepath.Join(c.Dir, "jobcomp.txt")
	var nodes strings.Builder
	for i, n := range c.Nodes {
		fmt.Fprintf(&nodes, "NodeName=%s NodeHostname=%s NodeAddr=127.0.0.1 Port=%d CPUs=%d RealMemory=1000 State=UNKNOWN\n", n, host, ports[1+i], opt.CPUs)
	}
	conf := fmt.Sprintf(confTemplate, name, c.CtldPort, c.SlurmdPort, e.MungeSocket, c.Dir, c.JobComp, opt.MinJobAge,
		nodes.String(), strings.Join(c.Nodes, ","), opt.Extra)
	if err := os.WriteFile(c.Conf, []byte(conf), 0o644); err != nil {
		return err
	}
	e.Clusters = append(e.Clusters, c)
	if err := c.StartController(true); err != nil {
		return err
	}
	return c.startSlurmd()
}

// Cluster returns the named cluster.
func (e *Env) Cluster(name string) *Cluster {
	for _, c := range e.Clusters {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// TargetsTOML is a targets file section naming every cluster, for
// `gmark submit --targets`.
func (e *Env) TargetsTOML() string {
	var b strings.Builder
	b.WriteString("[slurm]\n")
	for _, c := range e.Clusters {
		fmt.Fprintf(&b, "\n[[slurm.clusters]]\nname = %q\nconf = %q\n", c.Name, c.Conf)
	}
	return b.String()
}

func (e *Env) startMunge() error {
	key := filepath.Join(e.Dir, "munge.key")
	if out, err := exec.Command(bin("mungekey"), "-c", "-k", key).CombinedOutput(); err != nil {
		return fmt.Errorf("mungekey: %v: %s", err, out)
	}
	log, err := os.Create(filepath.Join(e.Dir, "munged.out"))
	if err != nil {
		return err
	}
	cmd := exec.Command(bin("munged"), "-F", "--force", "-S", e.MungeSocket, "--key-file", key,
		"--log-file", filepath.Join(e.Dir, "munged.log"), "--pid-file", filepath.Join(e.Dir, "munged.pid"),
		"--seed-file", filepath.Join(e.Dir, "munged.seed"), "--num-threads=4")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("munged: %v", err)
	}
	log.Close()
	e.munged = cmd
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(e.MungeSocket); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("munged did not create %s", e.MungeSocket)
}

// Cmd returns a client command (sbatch, squeue, …) pointed at the cluster.
func (c *Cluster) Cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin(name), args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	return cmd
}

// StartController starts slurmctld; clean discards saved state (-c).
func (c *Cluster) StartController(clean bool) error {
	args := []string{"-D", "-f", c.Conf}
	if clean {
		args = append(args, "-c")
	}
	cmd, err := c.daemon("slurmctld", args...)
	if err != nil {
		return err
	}
	c.ctld = cmd
	return nil
}

func (c *Cluster) startSlurmd() error {
	for _, n := range c.Nodes {
		cmd, err := c.daemon("slurmd", "-D", "-N", n, "-f", c.Conf)
		if err != nil {
			return err
		}
		c.slurmd = append(c.slurmd, cmd)
	}
	return nil
}

func (c *Cluster) daemon(name string, args ...string) (*exec.Cmd, error) {
	out, err := os.OpenFile(filepath.Join(c.Dir, "log", name+".out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	cmd := exec.Command(bin(name), args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return cmd, nil
}

// StopController kills slurmctld (by pid), as a failing controller would
// go away; StartController(false) brings it back with its state.
func (c *Cluster) StopController() {
	stopDaemon(c.ctld)
	c.ctld = nil
}

// CtldPid is slurmctld's pid, 0 when stopped.
func (c *Cluster) CtldPid() int {
	if c.ctld == nil {
		return 0
	}
	return c.ctld.Process.Pid
}

func (c *Cluster) waitIdle(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last []byte
	for time.Now().Before(deadline) {
		out, err := c.Cmd("sinfo", "-h", "-N", "-o", "%T").CombinedOutput()
		last = out
		if err == nil && bytes.Count(out, []byte("idle\n")) == len(c.Nodes) && bytes.Count(out, []byte("\n")) == len(c.Nodes) {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(c.Dir, "log", "slurmctld.log"))
	msg := fmt.Sprintf("cluster %s not idle after %s: sinfo says %q\nslurmctld.log:\n%s", c.Name, timeout, last, tail(log, 3000))
	for _, n := range c.Nodes {
		dlog, _ := os.ReadFile(filepath.Join(c.Dir, "log", "slurmd-"+n+".log"))
		msg += fmt.Sprintf("\nslurmd-%s.log:\n%s", n, tail(dlog, 1500))
	}
	return errors.New(msg)
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// stop cancels what is left on every cluster, then stops every daemon it
// started, by pid: slurmd, slurmctld, munged.
func (e *Env) stop() {
	for _, c := range e.Clusters {
		if c.ctld != nil {
			c.Cmd("scancel", "--full", "--user=root").Run()
		}
	}
	for _, c := range e.Clusters {
		for _, d := range c.slurmd {
			stopDaemon(d)
		}
		c.slurmd = nil
		stopDaemon(c.ctld)
		c.ctld = nil
	}
	// What the daemons started lives on when its controller died before
	// it could report (slurmstepd retries forever): every process that
	// carries one of these clusters' SLURM_CONF in its environment was
	// started by them (slurmd and sbatch had it), so it is killed by pid.
	killLeftovers(e.Clusters)
	stopDaemon(e.munged)
	e.munged = nil
	if os.Getenv("GMARK_KEEP_SLURMTEST") == "" {
		os.RemoveAll(e.Dir)
	} else {
		e.t.Logf("slurmtest: kept %s", e.Dir)
	}
}

func killLeftovers(clusters []*Cluster) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + ent.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, c := range clusters {
			if bytes.Contains(env, []byte("SLURM_CONF="+c.Conf+"\x00")) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
}

// stopDaemon sends SIGTERM to a daemon we started, waits up to 10 s, then
// SIGKILLs it, by its pid.
func stopDaemon(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	pid := cmd.Process.Pid
	_ = syscall.Kill(pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(pid, syscall.SIGKILL)
		<-done
	}
}
