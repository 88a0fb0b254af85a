// Package arctest starts real ARC compute elements (A-REX, Debian's
// nordugrid-arc-arex) on loopback for tests, each fronting the fork back
// end, a loopback Slurm cluster of submitter/slurm/slurmtest or a
// loopback Grid Engine cell of submitter/batch/sgetest.
//
// One CE is one arched process of its own, in the foreground, started and
// stopped by pid: A-REX's job processing and its REST interface in one
// process (the packaged start scripts run them as two services), with an
// arc.conf and an arched XML configuration written here rather than the
// packaged /usr/share/arc/arc-arex*-start, which read /etc/default, bind
// every interface and start a 4096-bit openssl dhparam in the background.
// Everything the CE writes (control and session directories, logs, its
// runtime configuration) is under the CE's directory, and it listens on
// 127.0.0.1 only, on a port of testkit.FreePorts. docs/grid.md has the
// recipe and why each setting is there.
//
// The test user's DN (gridtest.UserDN) is mapped to the unprivileged
// account "nobody": A-REX runs as root and starts each job, and the
// back end's commands (sbatch, scancel), as the mapped user. Clients
// (arcproxy, arcsub, arcstat, arckill, arcget) run with CE.Cmd, which
// points them at the test credentials and a home directory of the CE's.
//
// Tests call Start, which skips the test with a message when ARC is not
// installed or when not root, and stops every process it started in
// t.Cleanup.
package arctest

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
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

// Options shape one CE.
type Options struct {
	// Name names the CE (its directory and its queue's share). Default
	// "arc".
	Name string
	// Creds are the CA, host and user credentials; nil makes a set of the
	// CE's own. CEs of one test grid share one.
	Creds *gridtest.Credentials
	// Slurm is the cluster the CE fronts (its one partition, "main", is
	// the CE's queue); nil fronts the fork back end (queue "fork").
	Slurm *slurmtest.Cluster
	// SGE is the Grid Engine cell the CE fronts (its queue all.q is the
	// CE's), instead of a Slurm cluster or fork.
	SGE *sgetest.Cell
	// InfoPeriod is how often A-REX runs its information provider, which
	// writes the per-job GLUE2 records that the REST interface reports
	// states from (so it bounds how stale a polled state is). Default 10s;
	// A-REX's own default is 60s. The provider is a Perl program run each
	// time: shorter periods cost CPU (docs/grid.md has what an idle CE
	// costs).
	InfoPeriod time.Duration
	// WakeupPeriod is how often A-REX's job processing wakes up to look at
	// jobs in the back end ([arex] wakeupperiod). Default 5s; A-REX's own
	// default is 180s; a new job wakes it as well.
	WakeupPeriod time.Duration
	// MappedUser is the local account the test user is mapped to. Default
	// "nobody".
	MappedUser string
}

// CE is one running ARC compute element.
type CE struct {
	Name  string
	Dir   string
	Port  int
	URL   string // the A-REX endpoint: https://localhost:<port>/arex
	Queue string
	Creds *gridtest.Credentials
	// Proxy is the user's proxy certificate (made with arcproxy at Start),
	// what every client command and REST call authenticates with.
	Proxy string
	// Slurm is the fronted cluster, nil for fork.
	Slurm *slurmtest.Cluster
	// SGE is the fronted Grid Engine cell, or nil.
	SGE *sgetest.Cell

	t       testing.TB
	opt     Options
	arched  *exec.Cmd
	done    chan struct{}
	binDir  string
	logFile string
}

// Available says why an ARC CE cannot be started here, or "" when it can.
func Available() string {
	for _, bin := range []string{"/usr/sbin/arched", "/usr/lib/arc/arcconfig-parser", "/usr/lib/arc/libarex.so", "/usr/lib/arc/libaccARCREST.so"} {
		if _, err := os.Stat(bin); err != nil {
			return bin + " not found: install nordugrid-arc-arex and nordugrid-arc-plugins-arcrest"
		}
	}
	for _, bin := range []string{"arcproxy", "arcsub", "arcstat", "arckill", "arcget", "openssl"} {
		if _, err := exec.LookPath(bin); err != nil {
			return bin + " not found: install nordugrid-arc-client (and openssl)"
		}
	}
	if os.Geteuid() != 0 {
		return "A-REX maps the test user to another account, which needs root"
	}
	return ""
}

// Start starts one CE and waits until its REST interface answers the
// test user.
func Start(t testing.TB, opt Options) *CE {
	t.Helper()
	if why := Available(); why != "" {
		t.Skip("ARC CE not available: " + why)
	}
	ce, err := start(t, opt)
	if err != nil {
		t.Fatal(err)
	}
	return ce
}

func start(t testing.TB, opt Options) (*CE, error) {
	if opt.Name == "" {
		opt.Name = "arc"
	}
	if opt.InfoPeriod <= 0 {
		opt.InfoPeriod = 10 * time.Second
	}
	if opt.WakeupPeriod <= 0 {
		opt.WakeupPeriod = 5 * time.Second
	}
	if opt.MappedUser == "" {
		opt.MappedUser = "nobody"
	}
	dir, err := os.MkdirTemp("", "arctest-"+opt.Name+"-")
	if err != nil {
		return nil, err
	}
	ce := &CE{Name: opt.Name, Dir: dir, Creds: opt.Creds, Slurm: opt.Slurm, SGE: opt.SGE, t: t, opt: opt}
	t.Cleanup(ce.stop)
	// The mapped user's jobs run in session directories under dir, so the
	// path to them must be open to it (MkdirTemp makes 0700).
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	if ce.Creds == nil {
		if ce.Creds, err = gridtest.New(filepath.Join(dir, "creds")); err != nil {
			return nil, err
		}
	}
	ports, err := testkit.FreePorts(1)
	if err != nil {
		return nil, err
	}
	ce.Port = ports[0]
	ce.URL = fmt.Sprintf("https://localhost:%d/arex", ce.Port)
	if err := ce.writeConfig(); err != nil {
		return nil, err
	}
	if err := ce.startArched(); err != nil {
		return nil, err
	}
	ce.Proxy = filepath.Join(dir, "home", "proxy.pem")
	if out, err := ce.Cmd("arcproxy", "-P", ce.Proxy).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("arcproxy: %v\n%s", err, out)
	}
	if err := ce.waitReady(60 * time.Second); err != nil {
		return nil, err
	}
	return ce, nil
}

// writeConfig writes the CE's directories, arc.conf, the runtime
// configuration A-REX reads (made from arc.conf by arcconfig-parser, as
// the packaged start script does) and the arched XML configuration.
func (ce *CE) writeConfig() error {
	for _, sub := range []string{"control", "session", "log", "tmp", "home", "bin"} {
		if err := os.MkdirAll(filepath.Join(ce.Dir, sub), 0o755); err != nil {
			return err
		}
	}
	// A-REX wants its temporary directory world-writable and sticky.
	if err := os.Chmod(filepath.Join(ce.Dir, "tmp"), 0o1777); err != nil {
		return err
	}
	// A finite-field group of RFC 7919 instead of the 4096-bit parameters
	// the packaged start script generates (minutes of CPU) when the
	// control directory has none.
	dh := filepath.Join(ce.Dir, "control", "dhparam.pem")
	if out, err := exec.Command("openssl", "genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt", "group:ffdhe2048", "-out", dh).CombinedOutput(); err != nil {
		return fmt.Errorf("openssl genpkey: %v: %s", err, out)
	}
	u, err := user.Lookup(ce.opt.MappedUser)
	if err != nil {
		return fmt.Errorf("mapped user: %v", err)
	}
	g, err := user.LookupGroupId(u.Gid)
	if err != nil {
		return fmt.Errorf("mapped user's group: %v", err)
	}
	lrms := "lrms = fork\n"
	ce.Queue = "fork"
	if ce.Slurm != nil {
		if err := ce.slurmWrappers(); err != nil {
			return err
		}
		lrms = fmt.Sprintf("lrms = slurm\nslurm_bin_path = %s\nslurm_wakeupperiod = 2\nslurm_use_sacct = no\n", ce.binDir)
		ce.Queue = "main"
	}
	if ce.SGE != nil {
		lrms = sgeLRMS(ce.SGE, filepath.Join(ce.Dir, "home"))
		ce.Queue = ce.SGE.Queues[0]
		// The mapped user's qsub reads the cell's bootstrap.
		if err := os.Chmod(ce.SGE.Root, 0o755); err != nil {
			return err
		}
	}
	conf := fmt.Sprintf(arcConf, ce.Creds.HostKey, ce.Creds.HostCert, ce.Creds.CADir, gridtest.UserDN,
		u.Username+":"+g.Name, lrms, ce.Dir, int(ce.opt.WakeupPeriod.Seconds()+0.5), ce.URL, ce.Queue)
	confPath := filepath.Join(ce.Dir, "arc.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return err
	}
	runtime := filepath.Join(ce.Dir, "arex.cfg")
	if out, err := exec.Command("/usr/lib/arc/arcconfig-parser", "--config", confPath, "--runconfig", runtime, "--save").CombinedOutput(); err != nil {
		return fmt.Errorf("arcconfig-parser: %v\n%s", err, out)
	}
	xml := fmt.Sprintf(archedXML, ce.Dir, ce.Port, ce.Creds.HostKey, ce.Creds.HostCert, ce.Creds.CADir, runtime,
		ce.URL, int(ce.opt.InfoPeriod/(100*time.Millisecond)))
	return os.WriteFile(filepath.Join(ce.Dir, "arex.xml"), []byte(xml), 0o644)
}

// slurmWrappers writes the Slurm commands A-REX calls, each pointing the
// real one at the CE's cluster: submit-SLURM-job clears the whole
// environment before it calls sbatch, so SLURM_CONF cannot be passed any
// other way ([lrms] slurm_bin_path names this directory). The cluster's
// directory is opened to the mapped user, whose sbatch must reach the
// cluster's munge socket.
func (ce *CE) slurmWrappers() error {
	ce.binDir = filepath.Join(ce.Dir, "bin")
	for _, name := range []string{"sbatch", "squeue", "scontrol", "scancel", "sinfo", "sacct", "srun"} {
		real, err := exec.LookPath(name)
		if err != nil {
			real = "/usr/bin/" + name
		}
		script := fmt.Sprintf("#!/bin/sh\nSLURM_CONF=%s exec %s \"$@\"\n", ce.Slurm.Conf, real)
		if err := os.WriteFile(filepath.Join(ce.binDir, name), []byte(script), 0o755); err != nil {
			return err
		}
	}
	return os.Chmod(filepath.Dir(ce.Slurm.Dir), 0o755)
}

// sgeLRMS is the [lrms] section of a CE fronting a Grid Engine cell: ARC's
// SGE back end takes the cell's root, name and ports from arc.conf (its
// configure-sge-env.sh exports them to qsub, qstat, qdel and qacct), so
// no wrapper is needed. Grid Engine's shepherd changes to the job owner's
// home from the password file before the job script changes to its
// session directory, and nobody's is /nonexistent (the job goes to error
// state Eqw): sge_jobopts gives every job a working directory that exists.
func sgeLRMS(c *sgetest.Cell, wd string) string {
	return fmt.Sprintf("lrms = sge\nsge_root = %s\nsge_cell = %s\nsge_qmaster_port = %d\nsge_execd_port = %d\n"+
		"sge_bin_path = /usr/bin\nsge_jobopts = -wd %s\n", c.Root, c.Name, c.QmasterPort, c.ExecdPort, wd)
}

// arcConf is the CE's arc.conf: host key, host cert, CA directory, the
// user's DN, the mapped user:group, the [lrms] lines, the CE directory,
// the wakeup period, the endpoint URL, the queue. Infosys is there only
// because A-REX writes the per-job GLUE2 records the REST interface
// reports states from; no LDAP server is started, and nothing is
// published anywhere (no [infosys/ldap], no registration).
const arcConf = `# An ARC CE on loopback written by gmark's arctest.
[common]
hostname = localhost
x509_host_key = %[1]s
x509_host_cert = %[2]s
x509_cert_dir = %[3]s

[authgroup:gmark]
subject = %[4]s

[mapping]
map_to_user = gmark %[5]s
policy_on_nomap = stop

[lrms]
%[6]s
[arex]
controldir = %[7]s/control
sessiondir = %[7]s/session
logfile = %[7]s/log/arex.log
joblog = %[7]s/log/arex-jobs.log
helperlog = %[7]s/log/job.helper.errors
pidfile = %[7]s/arex.pid
tmpdir = %[7]s/tmp
loglevel = 3
wakeupperiod = %[8]d

[arex/ws]
wsurl = %[9]s
logfile = %[7]s/log/ws-interface.log

[arex/ws/jobs]
allowaccess = gmark

[infosys]
logfile = %[7]s/log/infoprovider.log

[infosys/glue2]

[infosys/cluster]

[queue:%[10]s]
`

// archedXML is one arched running A-REX with its REST interface: CE
// directory, port, host key, host cert, CA directory, runtime
// configuration, endpoint URL, information provider period (tenths of a
// second). It is the packaged arc-arex-ws-start's configuration with the
// listener bound to 127.0.0.1 and job processing left on (gmrun).
const archedXML = `<?xml version="1.0"?>
<ArcConfig xmlns="http://www.nordugrid.org/schemas/ArcConfig/2007"
  xmlns:tcp="http://www.nordugrid.org/schemas/ArcMCCTCP/2007"
  xmlns:arex="http://www.nordugrid.org/schemas/a-rex/Config">
  <Server>
    <PidFile>%[1]s/arched.pid</PidFile>
    <Logger><File>%[1]s/log/arched.log</File><Level>INFO</Level></Logger>
    <Watchdog>false</Watchdog>
  </Server>
  <ModuleManager><Path>/usr/lib/arc/</Path></ModuleManager>
  <Plugins><Name>mcctcp</Name></Plugins>
  <Plugins><Name>mcctls</Name></Plugins>
  <Plugins><Name>mcchttp</Name></Plugins>
  <Plugins><Name>mccsoap</Name></Plugins>
  <Plugins><Name>arex</Name></Plugins>
  <Plugins><Name>identitymap</Name></Plugins>
  <Plugins><Name>arcshc</Name></Plugins>
  <Plugins><Name>arcshclegacy</Name></Plugins>
  <Chain>
    <Component name="tcp.service" id="tcp">
      <next id="tls"/>
      <tcp:Listen><tcp:Interface>127.0.0.1</tcp:Interface><tcp:Port>%[2]d</tcp:Port></tcp:Listen>
    </Component>
    <Component name="tls.service" id="tls">
      <next id="http"/>
      <KeyPath>%[3]s</KeyPath>
      <CertificatePath>%[4]s</CertificatePath>
      <CACertificatesDir PolicyGlobus="true">%[5]s</CACertificatesDir>
      <VOMSProcessing>standard</VOMSProcessing>
      <ClientAuthn>false</ClientAuthn>
      <DHParamFile>%[1]s/control/dhparam.pem</DHParamFile>
    </Component>
    <Component name="http.service" id="http">
      <next id="soap">POST</next>
      <next id="plexer"/>
      <SecHandler name="arclegacy.handler" event="incoming">
        <ConfigFile>%[6]s</ConfigFile>
      </SecHandler>
    </Component>
    <Component name="soap.service" id="soap">
      <next id="plexer"/>
      <ContinueNonSOAP>true</ContinueNonSOAP>
    </Component>
    <Plexer name="plexer.service" id="plexer">
      <next id="a-rex">^/arex</next>
    </Plexer>
    <Service name="a-rex" id="a-rex">
      <SecHandler name="arclegacy.map" event="incoming">
        <ConfigBlock><ConfigFile>%[6]s</ConfigFile><BlockName>mapping</BlockName></ConfigBlock>
      </SecHandler>
      <arex:endpoint>%[7]s</arex:endpoint>
      <arex:gmconfig>%[6]s</arex:gmconfig>
      <arex:InfoproviderWakeupPeriod>%[8]d</arex:InfoproviderWakeupPeriod>
    </Service>
  </Chain>
</ArcConfig>
`

// startArched starts arched in the foreground (-f), in a process group of
// its own, with the host credential in its environment (as the packaged
// start script exports it) and the harness marker that KillLeftovers
// looks for.
func (ce *CE) startArched() error {
	ce.logFile = filepath.Join(ce.Dir, "log", "arched.out")
	out, err := os.OpenFile(ce.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.Command("/usr/sbin/arched", "-f", "-c", filepath.Join(ce.Dir, "arex.xml"))
	cmd.Dir = ce.Dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(cleanEnv(), ce.Creds.ServiceEnv()...)
	cmd.Env = append(cmd.Env, "TMPDIR="+filepath.Join(ce.Dir, "tmp"), "HOSTNAME=localhost",
		"ARC_LOCATION=/usr", gridtest.MarkerVar+"="+ce.Dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("arched: %v", err)
	}
	ce.arched = cmd
	done := make(chan struct{})
	ce.done = done
	go func() { cmd.Wait(); close(done) }()
	return nil
}

// cleanEnv is this process's environment without grid credentials and
// Slurm settings of the caller's, which would otherwise leak into the CE.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "X509_") && !strings.HasPrefix(kv, "GLOBUS_") && !strings.HasPrefix(kv, "SLURM_") &&
			!strings.HasPrefix(kv, "ARC_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, gridtest.MarkerVar+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// Cmd returns an ARC client command (arcsub, arcstat, …) that uses the
// test user's credentials and proxy, with HOME in the CE's directory so
// that the client's own files (~/.arc/client.conf) stay there.
func (ce *CE) Cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	proxy := ce.Proxy
	if proxy == "" {
		proxy = filepath.Join(ce.Dir, "home", "proxy.pem")
	}
	cmd.Env = append(cleanEnv(), ce.Creds.UserEnv(proxy)...)
	cmd.Env = append(cmd.Env, "HOME="+filepath.Join(ce.Dir, "home"))
	cmd.Dir = filepath.Join(ce.Dir, "home")
	return cmd
}

// JobList is the client's job list (arcsub -j) of this CE's tests.
func (ce *CE) JobList() string { return filepath.Join(ce.Dir, "home", "jobs.dat") }

// SubmitArgs are the arcsub arguments that send a job straight to this
// CE's REST interface with no resource discovery or brokering (no
// information query: -Q NONE).
func (ce *CE) SubmitArgs() []string {
	return []string{"-j", ce.JobList(), "-C", ce.URL, "-T", "arcrest", "-Q", "NONE"}
}

// Submit submits an xRSL job description with arcsub and returns the
// job's id (the last part of the job URL arcsub prints).
func (ce *CE) Submit(xrsl string) (string, error) {
	f := filepath.Join(ce.Dir, "home", fmt.Sprintf("job-%d.xrsl", time.Now().UnixNano()))
	if err := os.WriteFile(f, []byte(xrsl), 0o644); err != nil {
		return "", err
	}
	out, err := ce.Cmd("arcsub", append(ce.SubmitArgs(), f)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("arcsub: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if url, ok := strings.CutPrefix(line, "Job submitted with jobid: "); ok {
			return url[strings.LastIndex(url, "/")+1:], nil
		}
	}
	return "", fmt.Errorf("arcsub printed no job id:\n%s", out)
}

// JobURL is the URL arcstat and arckill name a job by.
func (ce *CE) JobURL(id string) string { return ce.URL + "/rest/1.0/jobs/" + id }

// HTTPClient is a client of the CE's REST interface that authenticates as
// the test user with the proxy (its certificate chain: proxy, user
// certificate) and trusts the test CA.
func (ce *CE) HTTPClient() (*http.Client, error) {
	pair, err := tls.LoadX509KeyPair(ce.Proxy, ce.Proxy)
	if err != nil {
		return nil, fmt.Errorf("proxy %s: %v", ce.Proxy, err)
	}
	caPEM, err := os.ReadFile(ce.Creds.CACert)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cfg := &tls.Config{
		RootCAs: pool,
		// The proxy is sent whatever CA names the server asks for: its
		// issuer is the user, not a CA.
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil },
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}, nil
}

// restJob is one job of a REST reply (action=status or action=info).
type restJob struct {
	Code   string `json:"status-code"`
	Reason string `json:"reason"`
	ID     string `json:"id"`
	State  string `json:"state"`
	Info   struct {
		Activity struct {
			State    []string `json:"State"`
			ExitCode string   `json:"ExitCode"`
			Error    string   `json:"Error"`
		} `json:"ComputingActivity"`
	} `json:"info_document"`
}

// Job is what the REST interface says of one job.
type Job struct {
	ID    string
	Code  string // the per-job HTTP-style status: "200", or "404" for no such job
	State string // the REST state: ACCEPTED, … RUNNING, FINISHED, FAILED, KILLED
	// From action=info only: the LRM's exit code and A-REX's failure text.
	ExitCode string
	Error    string
}

// Jobs asks the REST interface about many jobs in one call (action is
// "status" or "info"), in the order of ids.
func (ce *CE) Jobs(action string, ids ...string) ([]Job, error) {
	client, err := ce.HTTPClient()
	if err != nil {
		return nil, err
	}
	type ref struct {
		ID string `json:"id"`
	}
	var body struct {
		Job []ref `json:"job"`
	}
	for _, id := range ids {
		body.Job = append(body.Job, ref{id})
	}
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", ce.URL+"/rest/1.0/jobs?action="+action, bytes.NewReader(b))
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode != 200 && resp.StatusCode != 201 {
		return nil, fmt.Errorf("REST %s: %s: %s", action, resp.Status, buf.Bytes())
	}
	// A-REX writes one job as an object and several as an array.
	var many struct {
		Job []restJob `json:"job"`
	}
	if err := json.Unmarshal(buf.Bytes(), &many); err != nil {
		var one struct {
			Job restJob `json:"job"`
		}
		if err2 := json.Unmarshal(buf.Bytes(), &one); err2 != nil {
			return nil, fmt.Errorf("REST %s: %v: %s", action, err, buf.Bytes())
		}
		many.Job = []restJob{one.Job}
	}
	var jobs []Job
	for _, j := range many.Job {
		job := Job{ID: j.ID, Code: j.Code, State: j.State, ExitCode: j.Info.Activity.ExitCode, Error: j.Info.Activity.Error}
		for _, s := range j.Info.Activity.State {
			if st, ok := strings.CutPrefix(s, "arcrest:"); ok {
				job.State = st
			}
		}
		jobs = append(jobs, job)
	}
	return jobs, nil
}

// WaitState polls the REST status of a job until it is one of states and
// returns the state, or fails after timeout.
func (ce *CE) WaitState(id string, timeout time.Duration, states ...string) (string, error) {
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		jobs, err := ce.Jobs("status", id)
		if err == nil && len(jobs) == 1 {
			last = jobs[0].State
			for _, s := range states {
				if last == s {
					return last, nil
				}
			}
		}
		time.Sleep(time.Second)
	}
	return last, fmt.Errorf("job %s still %q after %s, not one of %v\n%s", id, last, timeout, states, ce.LogTail())
}

// waitReady waits until the REST interface lists the user's jobs.
func (ce *CE) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-ce.done:
			return fmt.Errorf("arched exited: %v\n%s", ce.arched.ProcessState, ce.LogTail())
		default:
		}
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(ce.Port), time.Second); err == nil {
			c.Close()
			client, err := ce.HTTPClient()
			if err != nil {
				return err
			}
			resp, err := client.Get(ce.URL + "/rest/1.0/jobs")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					return nil
				}
				err = fmt.Errorf("GET jobs: %s", resp.Status)
			}
			last = err
		} else {
			last = err
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("CE %s not ready after %s: %v\n%s", ce.Name, timeout, last, ce.LogTail())
}

// LogTail is the end of A-REX's logs, for failure messages.
func (ce *CE) LogTail() string {
	var b strings.Builder
	for _, f := range []string{"arched.out", "arex.log", "arched.log"} {
		data, _ := os.ReadFile(filepath.Join(ce.Dir, "log", f))
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		fmt.Fprintf(&b, "--- %s:\n%s\n", f, data)
	}
	if ce.SGE != nil {
		// What the cell did with the CE's jobs (when each started and
		// ended, how it failed) and its daemons' messages: a job that
		// ends in the cell for a reason of the cell's own is told apart
		// from one the CE mishandled.
		out, _ := ce.SGE.Cmd("qacct", "-j").CombinedOutput()
		fmt.Fprintf(&b, "--- qacct -j:\n%s\n%s", accountSummary(out), ce.SGE.Logs())
	}
	return b.String()
}

// accountSummary keeps the lines of qacct's records that say which job,
// when, and how it ended.
func accountSummary(out []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "jobname", "jobnumber", "qsub_time", "start_time", "end_time", "failed", "exit_status", "owner":
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// Pid is arched's pid, 0 when stopped.
func (ce *CE) Pid() int {
	if ce.arched == nil {
		return 0
	}
	return ce.arched.Process.Pid
}

// Kill kills arched with SIGKILL, as a crashing CE would go away: the
// jobs it started keep running, and its control directory keeps their
// state for Restart.
func (ce *CE) Kill() {
	if ce.arched == nil {
		return
	}
	ce.arched.Process.Signal(syscall.SIGKILL)
	<-ce.done
	ce.arched = nil
}

// Restart starts arched again on the same directories and port (after
// Kill), and waits until it answers; A-REX picks up the jobs its control
// directory holds.
func (ce *CE) Restart() error {
	if ce.arched != nil {
		return fmt.Errorf("CE %s is running", ce.Name)
	}
	if err := ce.startArched(); err != nil {
		return err
	}
	return ce.waitReady(60 * time.Second)
}

// stop stops arched (SIGTERM, then SIGKILL to its process group after a
// grace period), cancels what the mapped user left on the cluster, and
// kills every process the CE left behind (jobs of the fork back end, the
// back end's scripts), by pid.
func (ce *CE) stop() {
	if ce.arched != nil {
		ce.arched.Process.Signal(syscall.SIGTERM)
		select {
		case <-ce.done:
		case <-time.After(10 * time.Second):
		}
		syscall.Kill(-ce.arched.Process.Pid, syscall.SIGKILL)
		<-ce.done
		ce.arched = nil
	}
	if ce.Slurm != nil && ce.binDir != "" {
		exec.Command(filepath.Join(ce.binDir, "scancel"), "--user="+ce.opt.MappedUser).Run()
	}
	gridtest.KillLeftovers(ce.Dir)
	if os.Getenv("GMARK_KEEP_ARCTEST") == "" {
		os.RemoveAll(ce.Dir)
	} else {
		ce.t.Logf("arctest: kept %s", ce.Dir)
	}
}
