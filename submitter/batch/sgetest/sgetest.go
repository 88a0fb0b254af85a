// Package sgetest starts a real Grid Engine cell on loopback for tests: a
// cell of its own under a temporary SGE_ROOT (bootstrap, classic spooling,
// global and scheduler configuration), its own qmaster and execd ports, one
// execution host with cluster queues of Options.Slots slots each and the
// parallel environment "mpi" the sge printer asks for (-pe mpi N); then
// sge_qmaster and sge_execd in the foreground (SGE_ND), started and stopped
// by pid.
//
// It uses Debian's gridengine packages (gridengine-master, -exec, -client:
// Son of Grid Engine 8.1.9), installed with their debconf question
// shared/gridengineconfig answered false so that nothing is configured or
// started system-wide; the cell is made as the packages' init_cluster
// script would make one, with the package's spoolinit and spooldefaults.
//
// Every host name is "localhost": the cell's host_aliases file makes the
// machine's own name an alias of it, since Grid Engine refuses a client
// whose address resolves to another name than the one it calls itself
// (127.0.0.1 resolves to localhost, the machine's name often to the same
// address).
//
// Tests call Start, which skips the test with a message when Grid Engine is
// not installed or when not root (execd runs jobs as their owners), and
// stops every daemon it started in t.Cleanup.
package sgetest

import (
	"bytes"
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

// Debian's layout: the binaries behind the wrappers, and the files
// init_cluster reads.
const (
	libDir   = "/usr/lib/gridengine"
	shareDir = "/usr/share/gridengine"
)

// Options shape the cell.
type Options struct {
	// Slots of each queue and of the parallel environment "mpi". Default 8.
	Slots int
	// Queues are the cluster queues on the host. Default: all.q.
	Queues []string
}

// Cell is one Grid Engine cell with one execution host.
type Cell struct {
	Root        string // SGE_ROOT
	Name        string // SGE_CELL
	Host        string // the one host's name in the cell
	QmasterPort int
	ExecdPort   int
	Slots       int
	Queues      []string

	t       testing.TB
	qmaster *exec.Cmd
	execd   *exec.Cmd
}

var clients = []string{"qsub", "qstat", "qacct", "qdel", "qconf"}

// Available says why a cell cannot be started here, or "" when it can.
func Available() string {
	for _, bin := range []string{"sge_qmaster", "sge_execd", "sge_shepherd", "spoolinit", "spooldefaults"} {
		if _, err := os.Stat(filepath.Join(libDir, bin)); err != nil {
			return fmt.Sprintf("%s not found: install gridengine-master, gridengine-exec and gridengine-client", filepath.Join(libDir, bin))
		}
	}
	for _, bin := range clients {
		if _, err := exec.LookPath(bin); err != nil {
			return bin + " not found: install gridengine-client"
		}
	}
	if os.Geteuid() != 0 {
		return "the test cell runs as root (sge_execd starts jobs as their owners)"
	}
	return ""
}

// Start makes a cell and waits until its queues take jobs.
func Start(t testing.TB, opt Options) *Cell {
	t.Helper()
	if why := Available(); why != "" {
		t.Skip("Grid Engine not available: " + why)
	}
	if opt.Slots <= 0 {
		opt.Slots = 8
	}
	if len(opt.Queues) == 0 {
		opt.Queues = []string{"all.q"}
	}
	dir, err := os.MkdirTemp("", "sgetest-")
	if err != nil {
		t.Fatal(err)
	}
	ports, err := testkit.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cell{Root: dir, Name: "default", Host: "localhost", QmasterPort: ports[0], ExecdPort: ports[1],
		Slots: opt.Slots, Queues: opt.Queues, t: t}
	t.Cleanup(c.stop)
	steps := []func() error{c.writeCell, c.startQmaster, c.configure, c.startExecd, c.waitQueues}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("sgetest: %v\n%s", err, c.Logs())
		}
	}
	return c
}

// Env is the environment the cell's clients need.
func (c *Cell) Env() []string {
	return []string{"SGE_ROOT=" + c.Root, "SGE_CELL=" + c.Name,
		"SGE_QMASTER_PORT=" + strconv.Itoa(c.QmasterPort), "SGE_EXECD_PORT=" + strconv.Itoa(c.ExecdPort)}
}

// Setenv points this process's Grid Engine commands at the cell for the
// rest of the test (the batch target runs qsub with the process's
// environment, as it would under a user's settings.sh).
func (c *Cell) Setenv(t testing.TB) {
	for _, kv := range c.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// Cmd returns a client command (qsub, qstat, qconf, …) pointed at the cell.
func (c *Cell) Cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), c.Env()...)
	return cmd
}

func (c *Cell) common(elem ...string) string {
	return filepath.Join(append([]string{c.Root, c.Name, "common"}, elem...)...)
}

func (c *Cell) spool(elem ...string) string {
	return filepath.Join(append([]string{c.Root, "spool"}, elem...)...)
}

// bootstrapTemplate is the cell's bootstrap file: no admin user (the
// daemons stay root), classic spooling under the cell, Debian's binaries.
const bootstrapTemplate = `admin_user              none
default_domain          none
ignore_fqdn             true
spooling_method         classic
spooling_lib            libspoolc
spooling_params         %[1]s;%[2]s
binary_path             %[3]s
qmaster_spool_dir       %[2]s
security_mode           none
listener_threads        2
worker_threads          2
scheduler_threads       1
`

// writeCell lays out SGE_ROOT and initializes the qmaster's spool, as
// Debian's init_cluster does, with the global configuration changed for
// tests: root may run jobs (min_uid 0), accounting is written at once (qacct
// sees a job as soon as it ends), execd reports load every few seconds, and
// job shells are not login shells (login_shells none), so that /etc/profile
// does not replace the PATH a test gives its jobs with qsub -v.
func (c *Cell) writeCell() error {
	for _, d := range []string{c.common(), c.spool("qmaster"), c.spool("execd")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.Symlink(filepath.Join(shareDir, "util"), filepath.Join(c.Root, "util")); err != nil {
		return err
	}
	self, _ := os.Hostname()
	aliases := c.Host + "\n"
	if self != "" && self != c.Host {
		aliases = c.Host + " " + self + "\n"
	}
	files := map[string]string{
		c.common("bootstrap"):    fmt.Sprintf(bootstrapTemplate, c.common(), c.spool("qmaster"), libDir),
		c.common("act_qmaster"):  c.Host + "\n",
		c.common("host_aliases"): aliases,
		c.common("settings.sh"):  c.settings(),
	}
	def, err := os.ReadFile(filepath.Join(shareDir, "default-configuration"))
	if err != nil {
		return err
	}
	files[filepath.Join(c.Root, "global")] = globalConfig(string(def), c.spool("execd"), c.gidRange())
	for path, body := range files {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			return err
		}
	}
	spoolArgs := []string{"classic", "libspoolc", c.common() + ";" + c.spool("qmaster")}
	steps := [][]string{
		append(append([]string{"spoolinit"}, spoolArgs...), "init"),
		{"spooldefaults", "configuration", filepath.Join(c.Root, "global")},
		{"spooldefaults", "complexes", filepath.Join(shareDir, "util/resources/centry")},
		{"spooldefaults", "usersets", filepath.Join(shareDir, "util/resources/usersets")},
		{"spooldefaults", "managers", "root"},
		{"spooldefaults", "adminhosts", c.Host},
	}
	for _, s := range steps {
		cmd := exec.Command(filepath.Join(libDir, s[0]), s[1:]...)
		cmd.Env = append(os.Environ(), c.Env()...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(s, " "), err, out)
		}
	}
	return nil
}

// settings is the cell's common/settings.sh, which a user sources to reach
// the cell (and the job scripts of Globus's jobmanager-sge source): its
// SGE_ROOT, SGE_CELL and ports.
func (c *Cell) settings() string {
	var b strings.Builder
	for _, kv := range c.Env() {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "%s=%s; export %s\n", k, v, k)
	}
	return b.String()
}

// globalConfig rewrites Debian's default global configuration for a test
// cell.
func globalConfig(def, execdSpool, gidRange string) string {
	set := map[string]string{
		"execd_spool_dir":  execdSpool,
		"gid_range":        gidRange,
		"min_uid":          "0",
		"min_gid":          "0",
		"load_report_time": "00:00:02",
		"login_shells":     "none",
		"reporting_params": "accounting=true reporting=false flush_time=00:00:01 joblog=false sharelog=00:00:00 accounting_flush_time=00:00:00",
	}
	var b strings.Builder
	for _, line := range strings.Split(def, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if v, ok := set[f[0]]; ok {
			line = f[0] + " " + v
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// gidRange is the cell's own range of the supplementary group ids execd
// tags its jobs' processes with. When a job ends, execd kills every process
// that carries the job's id: with Debian's one range for every cell, two
// cells on one machine hand out the same ids, and a job ending in one cell
// killed (SIGKILL, "failed 100: assumedly after job") the job holding that
// id in the other. Live cells have distinct qmaster ports, so a range
// derived from the port is theirs alone.
func (c *Cell) gidRange() string {
	base := 100000 + c.QmasterPort*128
	return fmt.Sprintf("%d-%d", base, base+127)
}

func (c *Cell) startQmaster() error {
	cmd, err := c.daemon("sge_qmaster")
	if err != nil {
		return err
	}
	c.qmaster = cmd
	return c.waitFor("the qmaster to answer", func() (bool, string) {
		out, err := c.Cmd("qconf", "-sh").CombinedOutput()
		return err == nil, string(out)
	}, readyTimeout)
}

// configure makes the host a submit and execution host, the parallel
// environment "mpi", the queues, and a scheduler that runs every second.
func (c *Cell) configure() error {
	// Jobs run as their owners (nobody among them), and execd makes their
	// TMPDIRs in here: the path must be open to them (MkdirTemp makes the
	// root 0700).
	if err := os.MkdirAll(c.tmpDir(), 0o755); err != nil {
		return err
	}
	if err := os.Chmod(c.Root, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(c.tmpDir(), 0o1777); err != nil {
		return err
	}
	pe := fmt.Sprintf("pe_name mpi\nslots %d\nuser_lists NONE\nxuser_lists NONE\nstart_proc_args NONE\n"+
		"stop_proc_args NONE\nallocation_rule $fill_up\ncontrol_slaves FALSE\njob_is_first_task TRUE\n"+
		"urgency_slots min\naccounting_summary FALSE\nqsort_args NONE\n", c.Slots)
	host := "hostname " + c.Host + "\nload_scaling NONE\ncomplex_values NONE\nuser_lists NONE\n" +
		"xuser_lists NONE\nprojects NONE\nxprojects NONE\nusage_scaling NONE\nreport_variables NONE\n"
	if err := c.qconfFile("-Ae", "host", host); err != nil {
		return err
	}
	if out, err := c.Cmd("qconf", "-as", c.Host).CombinedOutput(); err != nil {
		return fmt.Errorf("qconf -as: %v: %s", err, out)
	}
	if err := c.qconfFile("-Ap", "pe", pe); err != nil {
		return err
	}
	tmpl, err := c.Cmd("qconf", "-sq").Output()
	if err != nil {
		return fmt.Errorf("qconf -sq: %v", err)
	}
	for _, q := range c.Queues {
		if err := c.qconfFile("-Aq", q, queueConfig(string(tmpl), q, c.Host, c.Slots, c.tmpDir())); err != nil {
			return err
		}
	}
	sconf, err := c.Cmd("qconf", "-ssconf").Output()
	if err != nil {
		return fmt.Errorf("qconf -ssconf: %v", err)
	}
	return c.qconfFile("-Msconf", "sconf", setFields(string(sconf), map[string]string{
		"schedule_interval": "0:0:1", "flush_submit_sec": "1", "flush_finish_sec": "1"}))
}

// queueConfig is the queue template with the queue's name, host, slots and
// PE; no load thresholds, so a busy machine does not put it in alarm.
func queueConfig(tmpl, name, host string, slots int, tmpDir string) string {
	return setFields(tmpl, map[string]string{"qname": name, "hostlist": host, "slots": strconv.Itoa(slots),
		"pe_list": "mpi", "load_thresholds": "NONE", "qtype": "BATCH", "tmpdir": tmpDir})
}

// tmpDir is where execd makes each job's TMPDIR (JOB.TASK.QUEUE). Under
// the default /tmp, job 2 of every cell's all.q had the same one, and a
// cell removed it under another cell's running job.
func (c *Cell) tmpDir() string { return filepath.Join(c.Root, "tmp") }

// setFields replaces the values of a qconf object's one-line fields.
func setFields(obj string, set map[string]string) string {
	var b strings.Builder
	for _, line := range strings.Split(obj, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 {
			if v, ok := set[f[0]]; ok {
				line = f[0] + " " + v
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// qconfFile writes body to a file and gives it to qconf (which names some
// objects after their file).
func (c *Cell) qconfFile(flag, name, body string) error {
	dir := filepath.Join(c.Root, "qconf")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		return err
	}
	if out, err := c.Cmd("qconf", flag, path).CombinedOutput(); err != nil {
		return fmt.Errorf("qconf %s %s: %v: %s", flag, name, err, out)
	}
	return nil
}

func (c *Cell) startExecd() error {
	cmd, err := c.daemon("sge_execd")
	if err != nil {
		return err
	}
	c.execd = cmd
	return nil
}

// waitQueues waits until every queue instance has reported its load and
// has no state flag (u, a, d, E …): it takes jobs.
func (c *Cell) waitQueues() error {
	return c.waitFor("the queues to take jobs", func() (bool, string) {
		out, err := c.Cmd("qstat", "-f").CombinedOutput()
		if err != nil {
			return false, string(out)
		}
		ready := 0
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) > 0 && strings.HasSuffix(f[0], "@"+c.Host) {
				if len(f) != 5 { // name, qtype, slots, load, arch, [states]
					return false, string(out)
				}
				ready++
			}
		}
		return ready == len(c.Queues), string(out)
	}, readyTimeout)
}

// readyTimeout bounds the waits for a starting cell: its daemons answer in
// seconds on a quiet machine, but the first load report of execd took over a
// minute with two test suites running at once on 2 cores (load 30-70). A
// long bound costs nothing when the cell is quick.
const readyTimeout = 4 * time.Minute

func (c *Cell) waitFor(what string, ok func() (bool, string), timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		var done bool
		if done, last = ok(); done {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("timed out waiting for %s: last said %q", what, last)
}

// daemon starts a Grid Engine daemon in the foreground (SGE_ND: no
// daemonizing), in its own process group, output to the cell's directory.
func (c *Cell) daemon(name string) (*exec.Cmd, error) {
	out, err := os.Create(filepath.Join(c.Root, name+".out"))
	if err != nil {
		return nil, err
	}
	defer out.Close()
	cmd := exec.Command(filepath.Join(libDir, name))
	cmd.Dir = c.Root
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), append(c.Env(), "SGE_ND=1")...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return cmd, nil
}

// Logs are the tails of the daemons' messages files, for failure reports.
func (c *Cell) Logs() string {
	var b strings.Builder
	for _, p := range []string{c.spool("qmaster", "messages"), c.spool("execd", c.Host, "messages"),
		filepath.Join(c.Root, "sge_qmaster.out"), filepath.Join(c.Root, "sge_execd.out")} {
		if data, err := os.ReadFile(p); err == nil {
			fmt.Fprintf(&b, "%s:\n%s\n", p, tail(data, 2000))
		}
	}
	return b.String()
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// stop deletes what is left in the cell and waits for it to go, kills (by
// pid) what its jobs left behind, then stops execd and qmaster by pid and
// removes the cell. Jobs go first so that execd, their parent, reaps them.
func (c *Cell) stop() {
	if c.qmaster != nil && c.execd != nil {
		c.Cmd("qdel", "-f", "-u", "*").Run()
		_ = c.waitFor("the jobs to leave", func() (bool, string) {
			out, err := c.Cmd("qstat", "-u", "*").CombinedOutput()
			return err != nil || len(bytes.TrimSpace(out)) == 0, string(out)
		}, 10*time.Second)
	}
	killLeftovers(c.Root, c.qmaster, c.execd)
	stopDaemon(c.execd, 10*time.Second)
	c.execd = nil
	// sge_qmaster 8.1.9 spends some 9 s, most of it on the CPU, in a
	// shutdown on SIGTERM; the cell's state is thrown away, so it is
	// killed.
	stopDaemon(c.qmaster, 0)
	c.qmaster = nil
	if os.Getenv("GMARK_KEEP_SGETEST") == "" {
		os.RemoveAll(c.Root)
	} else {
		c.t.Logf("sgetest: kept %s", c.Root)
	}
}

// killLeftovers kills, by pid, every process other than the daemons that
// carries this cell's SGE_ROOT in its environment: the shepherds and jobs
// execd started.
func killLeftovers(root string, daemons ...*exec.Cmd) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	skip := map[int]bool{os.Getpid(): true}
	for _, d := range daemons {
		if d != nil && d.Process != nil {
			skip[d.Process.Pid] = true
		}
	}
	mark := []byte("SGE_ROOT=" + root + "\x00")
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || skip[pid] {
			continue
		}
		env, err := os.ReadFile("/proc/" + ent.Name() + "/environ")
		if err == nil && bytes.Contains(env, mark) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// stopDaemon sends SIGTERM to a daemon we started, waits up to grace,
// then SIGKILLs it, by its pid (at once when grace is 0).
func stopDaemon(cmd *exec.Cmd, grace time.Duration) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	pid := cmd.Process.Pid
	sig := syscall.SIGTERM
	if grace == 0 {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(pid, sig)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		_ = syscall.Kill(pid, syscall.SIGKILL)
		<-done
	}
}
