// Package gramtest starts real Globus GRAM5 gatekeepers (Debian's
// globus-gatekeeper and globus-gram-job-manager, from the Grid Community
// Toolkit) on loopback for tests, with jobmanager-fork and, when given a
// cluster of submitter/slurm/slurmtest, jobmanager-slurm, and when given a
// cell of submitter/batch/sgetest, jobmanager-sge.
//
// One gatekeeper is one globus-gatekeeper in the foreground (-f), started
// and stopped by pid, with its own port (testkit.FreePorts), grid-mapfile,
// grid-services directory and job manager configuration, all under the
// gatekeeper's directory. It maps the test user's DN (gridtest.UserDN) to
// the unprivileged account "nobody" and starts a job manager as that
// account for each LRM; GRAM5 job managers detach themselves and serve
// every later job of their user and LRM, so they are found at cleanup by
// the harness marker in their environment (gridtest.KillLeftovers).
//
// Three things are bent to fit a test on one machine, each the smallest
// bend that works (docs/grid.md):
//   - The job manager keeps its job files under $HOME/.globus, works in
//     the directory the gatekeeper left it in (the mapped account's home,
//     where it creates a request's relative stdout and stderr before the
//     job writes them under its directory), and the gatekeeper sets HOME
//     to the mapped account's (nobody's is /nonexistent): the
//     grid-services entry starts the job manager through env(1), in and
//     with a HOME in the gatekeeper's directory.
//   - jobmanager-slurm's Perl module takes its sbatch, scontrol and
//     scancel from /etc/globus/globus-slurm.conf, and the job manager
//     passes its scripts only HOME, LOGNAME, PATH and a few Globus
//     variables, so SLURM_CONF cannot reach sbatch: the gatekeeper runs in
//     a mount namespace of its own (unshare) where that file is replaced
//     by one naming wrappers that set SLURM_CONF, as the gatekeeper host
//     of a real cluster has that cluster's Slurm configuration. Likewise
//     /etc/globus/globus-sge.conf for jobmanager-sge: it names the cell's
//     SGE_ROOT and SGE_CELL and wrappers of qsub, qstat, qdel and qconf
//     that add the cell's ports (SGE_QMASTER_PORT, SGE_EXECD_PORT).
//   - The gatekeeper and the job managers listen on every interface (the
//     Toolkit has no option for an address); the gatekeeper's port is a
//     free loopback port, the job managers' are ephemeral.
//
// Tests call Start, which skips the test with a message when GRAM is not
// installed or when not root, and stops every process it started in
// t.Cleanup.
package gramtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter/batch/sgetest"
	"github.com/gmark/gmark/submitter/gridtest"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

// Options shape one gatekeeper.
type Options struct {
	// Name names the gatekeeper (its directory). Default "gram".
	Name string
	// Creds are the CA, host and user credentials; nil makes a set of the
	// gatekeeper's own. Gatekeepers of one test grid share one.
	Creds *gridtest.Credentials
	// Slurm is the cluster jobmanager-slurm submits to; nil offers
	// jobmanager-fork only.
	Slurm *slurmtest.Cluster
	// SGE is the Grid Engine cell jobmanager-sge submits to; nil offers
	// no jobmanager-sge.
	SGE *sgetest.Cell
	// MappedUser is the local account the test user is mapped to. Default
	// "nobody".
	MappedUser string
}

// Gatekeeper is one running GRAM5 gatekeeper.
type Gatekeeper struct {
	Name    string
	Dir     string
	Port    int
	Contact string // host:port, the first part of a resource manager contact
	Creds   *gridtest.Credentials
	// Proxy is the user's proxy certificate, made with grid-proxy-init at
	// Start; every client command authenticates with it.
	Proxy string
	Slurm *slurmtest.Cluster
	SGE   *sgetest.Cell

	t      testing.TB
	opt    Options
	gk     *exec.Cmd
	done   chan struct{}
	binDir string
}

// Available says why a gatekeeper cannot be started here, or "" when it
// can (slurm says whether jobmanager-slurm is wanted too).
func Available(slurm bool) string { return available(slurm, false) }

// AvailableSGE says why a gatekeeper with jobmanager-sge cannot be started
// here, or "" when it can.
func AvailableSGE() string { return available(false, true) }

func available(slurm, sge bool) string {
	for _, f := range []string{"/usr/sbin/globus-gatekeeper", "/usr/sbin/globus-job-manager",
		"/usr/share/globus/globus-job-manager-script.pl", "/usr/share/perl5/Globus/GRAM/JobManager/fork.pm"} {
		if _, err := os.Stat(f); err != nil {
			return f + " not found: install globus-gatekeeper, globus-gram-job-manager and globus-gram-job-manager-fork"
		}
	}
	if slurm {
		for _, f := range []string{"/usr/share/perl5/Globus/GRAM/JobManager/slurm.pm", "/etc/globus/globus-slurm.conf"} {
			if _, err := os.Stat(f); err != nil {
				return f + " not found: install globus-gram-job-manager-slurm"
			}
		}
	}
	if sge {
		for _, f := range []string{"/usr/share/perl5/Globus/GRAM/JobManager/sge.pm", sgeConfPath} {
			if _, err := os.Stat(f); err != nil {
				return f + " not found: install globus-gram-job-manager-sge"
			}
		}
	}
	for _, bin := range []string{"globusrun", "grid-proxy-init", "unshare", "mount"} {
		if _, err := exec.LookPath(bin); err != nil {
			return bin + " not found: install globus-gram-client-tools and globus-proxy-utils"
		}
	}
	if os.Geteuid() != 0 {
		return "the gatekeeper maps the test user to another account, which needs root"
	}
	return ""
}

// Start starts one gatekeeper and waits until it authenticates the test
// user (globusrun -a).
func Start(t testing.TB, opt Options) *Gatekeeper {
	t.Helper()
	if why := available(opt.Slurm != nil, opt.SGE != nil); why != "" {
		t.Skip("GRAM5 not available: " + why)
	}
	g, err := start(t, opt)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func start(t testing.TB, opt Options) (*Gatekeeper, error) {
	if opt.Name == "" {
		opt.Name = "gram"
	}
	if opt.MappedUser == "" {
		opt.MappedUser = "nobody"
	}
	dir, err := os.MkdirTemp("", "gramtest-"+opt.Name+"-")
	if err != nil {
		return nil, err
	}
	g := &Gatekeeper{Name: opt.Name, Dir: dir, Creds: opt.Creds, Slurm: opt.Slurm, SGE: opt.SGE, t: t, opt: opt}
	t.Cleanup(g.stop)
	// The mapped user's job manager and jobs work under dir.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	if g.Creds == nil {
		if g.Creds, err = gridtest.New(filepath.Join(dir, "creds")); err != nil {
			return nil, err
		}
	}
	ports, err := testkit.FreePorts(1)
	if err != nil {
		return nil, err
	}
	g.Port = ports[0]
	g.Contact = "localhost:" + strconv.Itoa(g.Port)
	if err := g.writeConfig(); err != nil {
		return nil, err
	}
	if err := g.startGatekeeper(); err != nil {
		return nil, err
	}
	g.Proxy = filepath.Join(dir, "client", "proxy.pem")
	if out, err := g.Cmd("grid-proxy-init", "-q", "-bits", "2048", "-out", g.Proxy).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("grid-proxy-init: %v\n%s", err, out)
	}
	if err := g.waitReady(60 * time.Second); err != nil {
		return nil, err
	}
	return g, nil
}

// writeConfig writes the gatekeeper's directories, grid-mapfile, job
// manager configuration and grid-services entries (and, with a cluster,
// the Slurm wrappers and the globus-slurm.conf naming them).
func (g *Gatekeeper) writeConfig() error {
	u, err := user.Lookup(g.opt.MappedUser)
	if err != nil {
		return fmt.Errorf("mapped user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, sub := range []string{"grid-services", "etc", "bin", "client", "home", "log", "state", "audit"} {
		if err := os.MkdirAll(filepath.Join(g.Dir, sub), 0o755); err != nil {
			return err
		}
	}
	// What the job manager writes as the mapped user: its home (job
	// files), its log, its state files and audit records.
	for _, sub := range []string{"home", "log", "state", "audit"} {
		if err := os.Chown(filepath.Join(g.Dir, sub), uid, gid); err != nil {
			return err
		}
	}
	mapfile := fmt.Sprintf("%q %s\n", gridtest.UserDN, u.Username)
	if err := os.WriteFile(filepath.Join(g.Dir, "grid-mapfile"), []byte(mapfile), 0o644); err != nil {
		return err
	}
	jmConf := fmt.Sprintf(jobManagerConf, g.Dir, g.Creds.CADir, gridtest.MarkerVar)
	conf := filepath.Join(g.Dir, "job-manager.conf")
	if err := os.WriteFile(conf, []byte(jmConf), 0o644); err != nil {
		return err
	}
	lrms := []string{"fork"}
	if g.Slurm != nil {
		if err := g.slurmConfig(); err != nil {
			return err
		}
		lrms = append(lrms, "slurm")
	}
	if g.SGE != nil {
		if err := g.sgeConfig(); err != nil {
			return err
		}
		lrms = append(lrms, "sge")
	}
	for _, lrm := range lrms {
		home := filepath.Join(g.Dir, "home")
		entry := fmt.Sprintf("stderr_log,local_cred - /usr/bin/env env -C %s HOME=%s /usr/sbin/globus-job-manager -conf %s -type %s\n",
			home, home, conf, lrm)
		if err := os.WriteFile(filepath.Join(g.Dir, "grid-services", "jobmanager-"+lrm), []byte(entry), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// jobManagerConf is the job managers' configuration: gatekeeper
// directory, CA directory, marker variable. The marker is passed on to
// every job (-extra-envvars), so KillLeftovers finds jobs a cancel missed.
const jobManagerConf = `-globus-toolkit-version 6.2
-log-pattern %[1]s/log/gram_$(LOGNAME).log
-log-levels FATAL|ERROR|WARN|INFO
-audit-directory %[1]s/audit
-state-file-dir %[1]s/state
-x509-cert-dir %[2]s
-extra-envvars %[3]s=%[1]s
`

// slurmConfig writes the Slurm commands jobmanager-slurm calls, each
// pointing the real one at the cluster, and the globus-slurm.conf that
// names them (bound over /etc/globus/globus-slurm.conf in the
// gatekeeper's mount namespace). The cluster's directory is opened to the
// mapped user, whose sbatch must reach the cluster's munge socket.
func (g *Gatekeeper) slurmConfig() error {
	paths, err := g.wrappers([]string{"SLURM_CONF=" + g.Slurm.Conf}, nil, "sbatch", "squeue", "scontrol", "scancel", "srun", "salloc")
	if err != nil {
		return err
	}
	conf := fmt.Sprintf("# Written by gmark's gramtest: the Slurm commands of cluster %s.\n"+
		"slurm_path=\"/usr\"\nsrun=%q\nsbatch=%q\nsalloc=%q\nscancel=%q\nscontrol=%q\nopenmpi_path=\"\"\nmpich2_path=\"\"\n",
		g.Slurm.Name, paths["srun"], paths["sbatch"], paths["salloc"], paths["scancel"], paths["scontrol"])
	if err := os.WriteFile(filepath.Join(g.Dir, "etc", "globus-slurm.conf"), []byte(conf), 0o644); err != nil {
		return err
	}
	return os.Chmod(filepath.Dir(g.Slurm.Dir), 0o755)
}

// wrappers writes, in the gatekeeper's bin directory, a script for each
// named command that runs the real one with env set (and the arguments
// args gives it first), and returns their paths by name.
func (g *Gatekeeper) wrappers(env []string, args map[string]string, names ...string) (map[string]string, error) {
	g.binDir = filepath.Join(g.Dir, "bin")
	paths := map[string]string{}
	for _, name := range names {
		real, err := exec.LookPath(name)
		if err != nil {
			real = "/usr/bin/" + name
		}
		paths[name] = filepath.Join(g.binDir, name)
		if a := args[name]; a != "" {
			real += " " + a
		}
		script := fmt.Sprintf("#!/bin/sh\n%s exec %s \"$@\"\n", strings.Join(env, " "), real)
		if err := os.WriteFile(paths[name], []byte(script), 0o755); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// sgeConfPath is where jobmanager-sge's Perl module reads its
// configuration (Globus::Core::Paths's sysconfdir is /etc).
const sgeConfPath = "/etc/globus/globus-sge.conf"

// sgeConfig writes the Grid Engine commands jobmanager-sge calls, each
// pointing the real one at the cell (SGE_ROOT and SGE_CELL, which the
// module also exports itself, and the cell's ports, which it does not),
// and the globus-sge.conf that names them and the cell (bound over
// sgeConfPath in the gatekeeper's mount namespace). The job script the
// module writes sources the cell's common/settings.sh, which sgetest
// writes. The cell's root is opened to the mapped user, whose qsub reads
// the cell's bootstrap and act_qmaster files. Grid Engine's shepherd
// changes to the job owner's home from the password file before it runs
// the job script (which then changes to the request's directory), and
// nobody's is /nonexistent (the job goes to error state Eqw: "can't chdir
// to /nonexistent"): qsub is given -wd, the job manager's HOME.
func (g *Gatekeeper) sgeConfig() error {
	home := filepath.Join(g.Dir, "home")
	paths, err := g.wrappers(g.SGE.Env(), map[string]string{"qsub": "-wd " + home}, "qsub", "qstat", "qdel", "qconf")
	if err != nil {
		return err
	}
	conf := fmt.Sprintf("# Written by gmark's gramtest: the Grid Engine commands of cell %s.\n"+
		"sge_root=%s\nsge_cell=%s\nsge_config=\"\"\nqsub=%s\nqstat=%s\nqdel=%s\nqconf=%s\n"+
		"sun_mprun=no\nmpirun=no\nvalidate_pes=no\nvalidate_queues=no\n",
		g.SGE.Root, g.SGE.Root, g.SGE.Name, paths["qsub"], paths["qstat"], paths["qdel"], paths["qconf"])
	if err := os.WriteFile(filepath.Join(g.Dir, "etc", "globus-sge.conf"), []byte(conf), 0o644); err != nil {
		return err
	}
	return os.Chmod(g.SGE.Root, 0o755)
}

// startGatekeeper starts globus-gatekeeper in the foreground, in a process
// group of its own; with a cluster, inside a mount namespace where
// globus-slurm.conf is the gatekeeper's own (unshare and sh exec the
// gatekeeper, so the pid is the gatekeeper's).
func (g *Gatekeeper) startGatekeeper() error {
	out, err := os.OpenFile(filepath.Join(g.Dir, "log", "gatekeeper.out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	args := []string{"/usr/sbin/globus-gatekeeper", "-f", "-p", strconv.Itoa(g.Port),
		"-l", filepath.Join(g.Dir, "log", "gatekeeper.log"),
		"-grid_services", filepath.Join(g.Dir, "grid-services"),
		"-gridmap", filepath.Join(g.Dir, "grid-mapfile"),
		"-x509_cert_dir", g.Creds.CADir, "-x509_user_cert", g.Creds.HostCert, "-x509_user_key", g.Creds.HostKey,
		"-pidfile", filepath.Join(g.Dir, "gatekeeper.pid")}
	var binds []string
	if g.Slurm != nil {
		binds = append(binds, "mount --bind "+filepath.Join(g.Dir, "etc", "globus-slurm.conf")+" /etc/globus/globus-slurm.conf")
	}
	if g.SGE != nil {
		binds = append(binds, "mount --bind "+filepath.Join(g.Dir, "etc", "globus-sge.conf")+" "+sgeConfPath)
	}
	var cmd *exec.Cmd
	if len(binds) > 0 {
		script := strings.Join(binds, " && ") + " && exec \"$@\""
		cmd = exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "sh", "-c", script, "sh"}, args...)...)
	} else {
		cmd = exec.Command(args[0], args[1:]...)
	}
	cmd.Dir = g.Dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(cleanEnv(), "GLOBUS_HOSTNAME=localhost", gridtest.MarkerVar+"="+g.Dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("globus-gatekeeper: %v", err)
	}
	g.gk = cmd
	done := make(chan struct{})
	g.done = done
	go func() { cmd.Wait(); close(done) }()
	return nil
}

// cleanEnv is this process's environment without grid credentials and
// Slurm settings of the caller's.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "X509_") && !strings.HasPrefix(kv, "GLOBUS_") && !strings.HasPrefix(kv, "SLURM_") &&
			!strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, gridtest.MarkerVar+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// Cmd returns a GRAM client command (globusrun, globus-job-status, …) that
// uses the test user's credentials and proxy.
func (g *Gatekeeper) Cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	proxy := g.Proxy
	if proxy == "" {
		proxy = filepath.Join(g.Dir, "client", "proxy.pem")
	}
	cmd.Env = append(cleanEnv(), g.Creds.UserEnv(proxy)...)
	cmd.Env = append(cmd.Env, "HOME="+filepath.Join(g.Dir, "client"))
	cmd.Dir = filepath.Join(g.Dir, "client")
	return cmd
}

// Resource is the resource manager contact of one of the gatekeeper's
// job managers ("fork", "slurm" or "sge"), for globusrun -r.
func (g *Gatekeeper) Resource(lrm string) string { return g.Contact + "/jobmanager-" + lrm }

// Submit submits an RSL request in batch mode (globusrun -b) and returns
// the job contact. With a two-phase commit (two_phase=N in the request)
// globusrun commits the submission, says so, and still exits 110 (the
// job manager is waiting for a commit signal): that is a success.
func (g *Gatekeeper) Submit(lrm, rsl string) (string, error) {
	out, err := g.Cmd("globusrun", "-b", "-r", g.Resource(lrm), rsl).CombinedOutput()
	if err != nil && !(exitCode(err) == 110 && strings.Contains(string(out), "GRAM Job submission successful")) {
		return "", fmt.Errorf("globusrun -b: %v\n%s", err, out)
	}
	for _, f := range strings.Fields(string(out)) {
		if strings.HasPrefix(f, "https://") {
			return f, nil
		}
	}
	return "", fmt.Errorf("globusrun -b printed no job contact:\n%s", out)
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// Status is the job's state as globusrun -status prints it (PENDING,
// ACTIVE, DONE, FAILED, …). GRAM5 forgets a job when it ends, unless
// the request asked for a two-phase commit, and globusrun then says DONE
// whatever the job's end was.
func (g *Gatekeeper) Status(contact string) (string, error) {
	out, err := g.Cmd("globusrun", "-status", contact).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("globusrun -status: %v\n%s", err, out)
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]), nil
}

// WaitStatus polls a job's status until it is one of states.
func (g *Gatekeeper) WaitStatus(contact string, timeout time.Duration, states ...string) (string, error) {
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		if st, err := g.Status(contact); err == nil {
			last = st
			for _, s := range states {
				if st == s {
					return st, nil
				}
			}
		}
		time.Sleep(time.Second)
	}
	return last, fmt.Errorf("job %s still %q after %s, not one of %v\n%s", contact, last, timeout, states, g.LogTail())
}

// waitReady waits until the gatekeeper authenticates the test user.
func (g *Gatekeeper) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var out []byte
	for time.Now().Before(deadline) {
		select {
		case <-g.done:
			return fmt.Errorf("globus-gatekeeper exited: %v\n%s", g.gk.ProcessState, g.LogTail())
		default:
		}
		var err error
		out, err = g.Cmd("globusrun", "-a", "-r", g.Resource("fork")).CombinedOutput()
		if err == nil && strings.Contains(string(out), "GRAM Authentication test successful") {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("gatekeeper %s not ready after %s: globusrun -a said %s\n%s", g.Name, timeout, out, g.LogTail())
}

// LogTail is the end of the gatekeeper's and job managers' logs.
func (g *Gatekeeper) LogTail() string {
	var b strings.Builder
	logs, _ := filepath.Glob(filepath.Join(g.Dir, "log", "*"))
	for _, f := range logs {
		data, _ := os.ReadFile(f)
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		fmt.Fprintf(&b, "--- %s:\n%s\n", filepath.Base(f), data)
	}
	return b.String()
}

// Pid is the gatekeeper's pid, 0 when stopped.
func (g *Gatekeeper) Pid() int {
	if g.gk == nil {
		return 0
	}
	return g.gk.Process.Pid
}

// Kill kills the gatekeeper with SIGKILL, as a crashing one goes away:
// the job managers it started live on (they detach), and so do their jobs.
func (g *Gatekeeper) Kill() {
	if g.gk == nil {
		return
	}
	g.gk.Process.Signal(syscall.SIGKILL)
	<-g.done
	g.gk = nil
}

// KillJobManagers kills the gatekeeper's job managers (SIGKILL), and
// returns how many there were.
func (g *Gatekeeper) KillJobManagers() int {
	pids := g.JobManagers()
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(pids)
}

// Restart starts the gatekeeper again on the same directories and port
// (after Kill), and waits until it authenticates the test user. A
// gatekeeper that exits at once is started again, for up to a minute: the
// killed one's children (one per connection, forked with its listening
// socket) can keep the port a while after it died, and the new one then
// cannot bind it (seen on a loaded machine: "exit status 1").
func (g *Gatekeeper) Restart() error {
	if g.gk != nil {
		return fmt.Errorf("gatekeeper %s is running", g.Name)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if err := g.startGatekeeper(); err != nil {
			return err
		}
		err := g.waitReady(time.Until(deadline))
		select {
		case <-g.done: // it exited: try again while there is time
			g.gk = nil
			if time.Now().Before(deadline) {
				time.Sleep(time.Second)
				continue
			}
		default:
		}
		return err
	}
}

// Submitted is how many jobs the gatekeeper's job managers have passed to
// their LRMs, as their logs say ("job submitted to lrm", one line a job):
// a test counts its submissions with it, GRAM having no job list.
func (g *Gatekeeper) Submitted() int {
	logs, _ := filepath.Glob(filepath.Join(g.Dir, "log", "gram_*.log"))
	n := 0
	for _, f := range logs {
		b, _ := os.ReadFile(f)
		n += strings.Count(string(b), `msg="job submitted to lrm"`)
	}
	return n
}

// JobManagers are the pids of the job managers running for this
// gatekeeper (detached processes that carry its marker).
func (g *Gatekeeper) JobManagers() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	marker := gridtest.MarkerVar + "=" + g.Dir + "\x00"
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + ent.Name() + "/cmdline")
		env, _ := os.ReadFile("/proc/" + ent.Name() + "/environ")
		if strings.HasPrefix(string(cmdline), "/usr/sbin/globus-job-manager\x00") && strings.Contains(string(env), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// stop stops the gatekeeper (SIGTERM, then SIGKILL to its process group),
// cancels what the mapped user left on the cluster, and kills the job
// managers and every job they left, by pid.
func (g *Gatekeeper) stop() {
	if g.gk != nil {
		g.gk.Process.Signal(syscall.SIGTERM)
		select {
		case <-g.done:
		case <-time.After(10 * time.Second):
		}
		syscall.Kill(-g.gk.Process.Pid, syscall.SIGKILL)
		<-g.done
		g.gk = nil
	}
	if g.Slurm != nil && g.binDir != "" {
		exec.Command(filepath.Join(g.binDir, "scancel"), "--user="+g.opt.MappedUser).Run()
	}
	if g.SGE != nil && g.binDir != "" {
		exec.Command(filepath.Join(g.binDir, "qdel"), "-f", "-u", g.opt.MappedUser).Run()
	}
	gridtest.KillLeftovers(g.Dir)
	if os.Getenv("GMARK_KEEP_GRAMTEST") == "" {
		os.RemoveAll(g.Dir)
	} else {
		g.t.Logf("gramtest: kept %s", g.Dir)
	}
}
