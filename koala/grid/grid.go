// Package grid reads the description of a grid for the bundled scheduler
// core from grid.toml: its clusters (processors, speed, local scheduler,
// background load, failures), the network between them, file replicas, the
// scheduler's settings, and a schedule of cluster outages.
package grid

import (
	"errors"
	"fmt"
	"github.com/gmark/gmark/internal/names"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/internal/srcerr"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Grid is a validated grid description.
type Grid struct {
	Name      string
	Scheduler Scheduler
	Network   Network
	Clusters  []Cluster // sorted by name
	Files     []File
	Events    []Event // sorted by time
}

// Scheduler holds the settings of the co-allocator and the processor claimer.
// The defaults are the values of Mohamed's thesis (Table of §5.3 in the
// reference) where it gives them.
type Scheduler struct {
	ScanInterval      Duration `toml:"scan_interval"`       // time between placement-queue scans (1 min)
	Policy            string   `toml:"policy"`              // default placement policy: WF, CF, CM, FCM
	PlaceOnSubmit     *bool    `toml:"place_on_submit"`     // try to place a job as it arrives (default true)
	ClaimL            *float64 `toml:"claim_l"`             // initial L: first claim at JPT + L·FTT (0.75)
	ClaimLStep        *float64 `toml:"claim_l_step"`        // L decrease on each missed start time (0.25)
	ClaimLMin         float64  `toml:"claim_l_min"`         // lower bound of L (0)
	ClaimThreshold    *float64 `toml:"claim_threshold"`     // T: fraction of components that must start (1: atomic)
	ClaimEpsilon      Duration `toml:"claim_epsilon"`       // a claim closer than this to the start time counts as reaching it (1 s)
	MaxPlacementTries int      `toml:"max_placement_tries"` // 0: unlimited
	MaxClaimTries     int      `toml:"max_claim_tries"`     // 0: unlimited
	AgingPeriod       int      `toml:"aging_period"`        // P: promote low/high jobs every P tries; 0: never
	GroupWeights      [2]int   `toml:"group_weights"`       // N_h, N_l
	QueueWeights      [4]int   `toml:"queue_weights"`       // n_1..n_4
	MaxRuntime        Duration `toml:"max_runtime"`         // DAS-like kill after this run time; 0: none
	ErrorThreshold    int      `toml:"error_threshold"`     // consecutive soft errors that take a cluster out (5)
	DefaultRuntime    Duration `toml:"default_runtime"`     // emulated run time of programs gmark has no model of (1 min)
	InfoCache         Duration `toml:"info_cache"`          // how long idle-processor counts are cached (0: always fresh)
	Execution         string   `toml:"execution"`           // "emulated" (timers) or "process" (real gmark app processes)
	TimeScale         float64  `toml:"time_scale"`          // core seconds per wall second (1)
	DefaultPriority   string   `toml:"default_priority"`    // high
	DefaultRunner     string   `toml:"default_runner"`      // krunner
	UtilizationSample Duration `toml:"utilization_sample"`  // period of utilization samples (1 min)
	Seed              uint64   `toml:"seed"`                // seeds background load and failures
	MaxRestarts       *int     `toml:"max_restarts"`        // restarts after soft errors or cluster loss before a job fails (10)
	MaxOutput         Size     `toml:"max_output"`          // with process execution: the most a job's processes may write (100MB)
	// With process execution: the directories whose agent.json files a
	// placeholder job (`gmark app placeholder --config FILE`) may name, at
	// any depth; a relative one is from the grid file's directory. None by
	// default: the core then refuses placeholder jobs, whose agents run
	// whatever their metaqueue hands out.
	PlaceholderDirs []string `toml:"placeholder_dirs"`

	// Jobs with a start deadline (workload.Job.Deadline) are placed and
	// claimed by the Repeated Placement Policy of Ballier et al. (2006),
	// not by the placement queues: see docs/deadlines.md.
	DeadlinePolicy   string   `toml:"deadline_policy"`    // rpp (Wait-inf), wait-0, wait-10 (default), wait-100, wait-1000, wait-inf, or wait-DURATION
	DeadlineL        *float64 `toml:"deadline_l"`         // L_p: each try closes this fraction of the gap to the deadline (0.7)
	DeadlinePriority string   `toml:"deadline_priority"`  // global (GP: local jobs are killed at a deadline; default) or local (LP)
	DeadlineMaxTries int      `toml:"deadline_max_tries"` // M_p: tries before the deadline; 0: unlimited
	DeadlineEpsilon  Duration `toml:"deadline_epsilon"`   // a try closer than this to the deadline is made at the deadline (1s)
	// Two readings the paper's text leaves open (docs/deadlines.md):
	// when global priority kills local jobs, only at the try at the
	// deadline ("at-deadline") or at every failed try ("every-try"); and
	// where Wait-X's first try is, the series restarted at D − X
	// ("restart") or the series from the submission with the tries before
	// D − X skipped ("skip").
	GPKill        string `toml:"gp_kill"`
	WaitXFirstTry string `toml:"waitx_first_try"`
	// How long the local workloads ([cluster.local]) run before a run's
	// origin when the run names no warm-up of its own (core.Begin with 0):
	// their queues fill before the run's first job comes (0).
	LocalWarmup Duration `toml:"local_warmup"`
}

// Cluster is one site: processors behind a local resource manager.
type Cluster struct {
	Name           string     `toml:"name"`
	Processors     int        `toml:"processors"`
	Speed          float64    `toml:"speed"`           // relative processor speed (1): run times divide by it
	LocalScheduler string     `toml:"local_scheduler"` // "fcfs" or "easy"
	FailureRate    float64    `toml:"failure_rate"`    // probability that a component start fails with a soft error
	Background     Background `toml:"background"`
	// Local is the cluster's local users' workload, real local jobs (as in
	// Ballier et al.), beside or instead of the background band.
	Local LocalLoad `toml:"local"`

	// LRM is the cluster's local resource manager: "emulated" (the
	// default: package lrm) or "slurm", a real Slurm controller reached
	// with SLURM_CONF = SlurmConf. A Slurm cluster's processors may be left
	// out (0): they are read from the controller when the core starts
	// (ResolveProcessors); its background load is the controller's other
	// jobs, so it has no [cluster.background], local_scheduler or
	// failure_rate.
	LRM       string `toml:"lrm"`
	SlurmConf string `toml:"slurm_conf"` // its slurm.conf; a relative path is from the grid file's directory
	Partition string `toml:"partition"`  // the partition the core uses ("": the controller's default); a CE's queue
	// CE is the compute element through which the core reaches a cluster
	// with lrm = "arc" (its A-REX endpoint, https://host:port/arex) or
	// "gram" (its GRAM5 job manager, host:port/jobmanager-LRM); the user's
	// proxy and trusted CAs are those of X509_USER_PROXY and X509_CERT_DIR
	// (docs/grid.md). Its processors are given (a CE does not say them),
	// and it runs in real time as a Slurm cluster does.
	CE string `toml:"ce"`
	// Poll is how often the controller is asked for its processors and
	// the core's components (1s).
	Poll Duration `toml:"poll"`
	// StartTimeout is how long a component submitted to the controller
	// may wait to start before the claim gives it up (30s).
	StartTimeout Duration `toml:"start_timeout"`
	// PreemptLocal lets the core, under global deadline priority, cancel
	// the controller's other (non-gmark) running jobs with scancel to start
	// a job with a start deadline (docs/deadlines.md). Default false: the
	// cluster's other jobs are never cancelled, and a global job that
	// needs their processors fails at its deadline as under local
	// priority. Slurm clusters only (emulated clusters' local jobs are
	// always killable under global priority).
	PreemptLocal bool `toml:"preempt_local"`
}

// The local resource managers a cluster may have.
const (
	LRMEmulated = "emulated"
	LRMSlurm    = "slurm"
	LRMARC      = "arc"  // an ARC CE in front of the cluster
	LRMGRAM     = "gram" // a GRAM5 gatekeeper in front of the cluster
)

// Slurm tells whether the cluster is a real Slurm cluster.
func (c *Cluster) Slurm() bool { return c.LRM == LRMSlurm }

// ThroughCE tells whether the core reaches the cluster through a compute
// element (lrm = "arc" or "gram").
func (c *Cluster) ThroughCE() bool { return c.LRM == LRMARC || c.LRM == LRMGRAM }

// Real tells whether the cluster is real, run by a controller of the core:
// a Slurm cluster, or one behind a CE.
func (c *Cluster) Real() bool { return c.Slurm() || c.ThroughCE() }

// HasSlurm tells whether any cluster of the grid is a real Slurm cluster.
func (g *Grid) HasSlurm() bool {
	for i := range g.Clusters {
		if g.Clusters[i].Slurm() {
			return true
		}
	}
	return false
}

// Background is the local load of a cluster: jobs of local users that a
// controller keeps in the band [Low, High] of the processors, as in the DAS
// experiments, by starting dummy jobs when the load drops below Low and
// killing the newest when it rises above High.
type Background struct {
	Low        float64  `toml:"low"`
	High       float64  `toml:"high"`
	Interval   Duration `toml:"interval"`    // controller period (30 s)
	JobSize    [2]int   `toml:"job_size"`    // uniform processors per job, min and max ([1, 8])
	JobRuntime Duration `toml:"job_runtime"` // mean of the exponential run time (5 min)
}

// Enabled tells whether the cluster has a background load.
func (b Background) Enabled() bool { return b.High > 0 }

// Network gives the bandwidth between sites. Transfers within a site take no time.
type Network struct {
	DefaultBandwidth Bandwidth `toml:"default_bandwidth"`
	Links            []Link    `toml:"link"`
	Symmetric        *bool     `toml:"symmetric"` // a link applies both ways (default true)
}

// Link overrides the bandwidth from one site to another.
type Link struct {
	From      string    `toml:"from"`
	To        string    `toml:"to"`
	Bandwidth Bandwidth `toml:"bandwidth"`
}

// File is a logical file and the sites holding a replica of it.
type File struct {
	Name  string   `toml:"name"`
	Size  Size     `toml:"size"`
	Sites []string `toml:"sites"`
}

// Event is a scheduled change of a cluster: "down" takes it out of service
// (its jobs are re-placed), "up" brings it back.
type Event struct {
	At      Duration `toml:"at"` // from the start of the run
	Cluster string   `toml:"cluster"`
	Action  string   `toml:"action"`
}

// LongestRun is the longest any job may run on the core (a leap year): the
// upper end of a job's walltime and of max_runtime. A job that gives neither
// is killed after it, so every job that starts has an end.
const LongestRun = 366 * 24 * time.Hour

// Duration is a time.Duration written as "90s", "1m", "1h30m".
type Duration struct{ time.Duration }

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration (e.g. 90s, 1m, 1h30m)", b)
	}
	if v < 0 {
		return fmt.Errorf("duration %q must not be negative", b)
	}
	d.Duration = v
	return nil
}

// Bandwidth is in bytes per second, written "1Gbit/s", "100Mbit/s", "125MB/s".
type Bandwidth float64

func (bw *Bandwidth) UnmarshalText(b []byte) error {
	v, err := ParseBandwidth(string(b))
	if err != nil {
		return err
	}
	*bw = Bandwidth(v)
	return nil
}

// ParseBandwidth reads "1Gbit/s" style rates into bytes per second. Bit rates
// use powers of 1000 (as networks are quoted), byte rates powers of 1024.
func ParseBandwidth(s string) (float64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{
		{"Gbit/s", 1e9 / 8}, {"Mbit/s", 1e6 / 8}, {"kbit/s", 1e3 / 8}, {"bit/s", 1.0 / 8},
		{"GB/s", 1 << 30}, {"MB/s", 1 << 20}, {"KB/s", 1 << 10}, {"B/s", 1},
	}
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				break
			}
			return v * u.mult, nil
		}
	}
	return 0, fmt.Errorf("%q is not a bandwidth (a number > 0 with a unit: Gbit/s, Mbit/s, kbit/s, GB/s, MB/s, KB/s, B/s)", s)
}

// Size is a number of bytes, written "2GB", "512MB" (powers of 1024) or a bare number.
type Size int64

func (sz *Size) UnmarshalText(b []byte) error {
	s := strings.ToUpper(strings.TrimSpace(string(b)))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v < 0 || v*float64(mult) > math.MaxInt64/2 {
		return fmt.Errorf("%q is not a size (e.g. 2GB, 512MB)", b)
	}
	*sz = Size(math.Round(v * float64(mult)))
	return nil
}

// file is the document's shape.
type file struct {
	Name      string    `toml:"name"`
	Scheduler Scheduler `toml:"scheduler"`
	Network   Network   `toml:"network"`
	Clusters  []Cluster `toml:"cluster"`
	Files     []File    `toml:"file"`
	Events    []Event   `toml:"event"`
}

// MaxFileSize bounds a grid file: it is read whole.
const MaxFileSize = 16 << 20

// Load reads and validates a grid description.
func Load(path string) (*Grid, error) {
	b, err := readlimit.File(path, MaxFileSize)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return nil, readlimit.TooLargef("%s: larger than %d bytes; this is not a grid description", path, MaxFileSize)
	}
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse validates a grid description. Errors name the file and the line of
// the setting at fault ("grid.toml:12: scheduler.utilization_sample ...").
func Parse(name string, src []byte) (*Grid, error) {
	var f file
	md, err := toml.Decode(string(src), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: pe.Position.Line}, "%s", pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		if line := keyLine(src, und[0]); line > 0 {
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: line}, "unknown setting(s) %s", strings.Join(keys, ", "))
		}
		return nil, fmt.Errorf("%s: unknown setting(s) %s", name, strings.Join(keys, ", "))
	}
	g := &Grid{Name: f.Name, Scheduler: f.Scheduler, Network: f.Network, Clusters: f.Clusters, Files: f.Files, Events: f.Events}
	for i, d := range g.Scheduler.PlaceholderDirs {
		if d != "" && !filepath.IsAbs(d) {
			g.Scheduler.PlaceholderDirs[i] = filepath.Join(filepath.Dir(name), d)
		}
	}
	for i := range g.Clusters {
		if conf := g.Clusters[i].SlurmConf; conf != "" && !filepath.IsAbs(conf) {
			g.Clusters[i].SlurmConf = filepath.Join(filepath.Dir(name), conf)
		}
	}
	if err := g.validate(); err != nil {
		var se *settingError
		if errors.As(err, &se) {
			if line := se.line(src); line > 0 {
				return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: line}, "%v", err)
			}
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return g, nil
}

// Check validates a grid again after a caller changed its settings (the
// command line's overrides of the time scale or the scan interval).
func (g *Grid) Check() error { return g.validate() }

// The documented ranges of the grid's numbers (docs/koala.md, "The grid
// file"). Every number is checked before the core allocates or schedules
// anything for it: a utilization sample of 1ns would otherwise emit events
// as fast as the machine can commit them.
const (
	MaxClusters      = 1000
	MaxProcessors    = 1 << 20 // of one cluster
	MinSpeed         = 1e-3
	MaxSpeed         = 1e3
	MinTimeScale     = 1e-3
	MaxTimeScale     = 1e6
	MinWallPeriod    = time.Millisecond // a periodic task's wall-clock period: interval / time_scale
	MaxTries         = 1_000_000        // try limits, aging period, error threshold
	MaxWeight        = 1000
	MaxRestarts      = 1000
	MinBandwidth     = 1e3 / 8         // 1 kbit/s, in bytes per second
	MaxBandwidth     = 1e13 / 8        // 10 Tbit/s
	MaxFileBytes     = Size(1 << 50)   // 1 PiB
	MinOutputLimit   = Size(1 << 10)   // max_output: 1 KiB ..
	MaxOutputLimit   = Size(1 << 40)   // .. 1 TiB
	DefaultMaxOutput = Size(100 << 20) // 100 MiB
)

// settingError is a setting out of its range, located by its table (an
// element of an array of tables when index >= 0) and key, so that Parse can
// give the line.
type settingError struct {
	table string // "" for the top level, "scheduler", "cluster", "cluster.background", ...
	index int    // element of the array of tables [[table]] (or of its parent); -1 if none
	key   string
	msg   string
}

func (e *settingError) Error() string {
	if e.index >= 0 { // "cluster 2: background.low ...", "file 1: size ..."
		array, sub, _ := strings.Cut(e.table, ".")
		if array == "network" {
			array, sub = e.table, ""
		}
		key := e.key
		if sub != "" {
			key = sub + "." + key
		}
		return fmt.Sprintf("%s %d: %s %s", array, e.index+1, key, e.msg)
	}
	if e.table == "" {
		return e.key + " " + e.msg
	}
	return e.table + "." + e.key + " " + e.msg
}

// line finds the setting in the source: TOML's decoder keeps key positions
// to itself, so the lines are scanned for the table headers and the key.
// Inline tables and dotted keys are not found (0): the error still names
// the setting.
func (e *settingError) line(src []byte) int {
	return findKey(src, e.table, e.index, e.key)
}

// keyLine locates an undecoded key.
func keyLine(src []byte, k toml.Key) int {
	if len(k) == 0 {
		return 0
	}
	table := strings.Join(k[:len(k)-1], ".")
	index := -1
	if len(k) > 1 && (k[0] == "cluster" || k[0] == "file" || k[0] == "event" || table == "network.link") {
		index = -2 // any element: the first one holding the key
	}
	return findKey(src, table, index, k[len(k)-1])
}

func findKey(src []byte, table string, index int, key string) int {
	cur, curIdx := "", -1
	count := map[string]int{} // elements seen of each array of tables
	for i, raw := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(raw)
		if strings.HasPrefix(t, "[") {
			array := strings.HasPrefix(t, "[[")
			name, _, _ := strings.Cut(strings.TrimLeft(t, "["), "]")
			cur = strings.ReplaceAll(strings.TrimSpace(name), " ", "")
			if array {
				curIdx = count[cur]
				count[cur]++
			} else if parent, _, dotted := strings.Cut(cur, "."); dotted && count[parent] > 0 {
				curIdx = count[parent] - 1 // a subtable of the last element
			} else {
				curIdx = -1
			}
			continue
		}
		if cur != table || (index != -2 && curIdx != index) {
			continue
		}
		if k, _, ok := strings.Cut(t, "="); ok && strings.Trim(strings.TrimSpace(k), `"'`) == key {
			return i + 1
		}
	}
	return 0
}

// checker collects range checks of one table.
type checker struct {
	table string
	index int
	err   error
}

func (c *checker) fail(key, format string, args ...any) {
	if c.err == nil {
		c.err = &settingError{table: c.table, index: c.index, key: key, msg: fmt.Sprintf(format, args...)}
	}
}

func (c *checker) intIn(key string, v, lo, hi int) {
	if v < lo || v > hi {
		c.fail(key, "= %d is out of range: must be in [%d, %d]", v, lo, hi)
	}
}

func (c *checker) floatIn(key string, v, lo, hi float64) {
	if !(v >= lo && v <= hi) { // also NaN
		c.fail(key, "= %g is out of range: must be in [%g, %g]", v, lo, hi)
	}
}

func (c *checker) durationIn(key string, v, lo, hi time.Duration) {
	if v < lo || v > hi {
		c.fail(key, "= %q is out of range: must be in [%v, %v]", v.String(), lo, hi)
	}
}

// wallPeriod checks that a periodic task does not run more often than
// MinWallPeriod of wall-clock time at the grid's time scale.
func (c *checker) wallPeriod(key string, v time.Duration, scale float64) {
	if wall := time.Duration(float64(v) / scale); wall < MinWallPeriod {
		c.fail(key, "= %q at time_scale %g comes every %v of wall-clock time; it must be at least %v (raise it or lower time_scale)", v.String(), scale, wall, MinWallPeriod)
	}
}

// validate fills in the defaults and checks every value against its
// range, table by table; the first table with an error stops it.
func (g *Grid) validate() error {
	g.Scheduler.setDefaults()
	if err := g.Scheduler.check(); err != nil {
		return err
	}
	seen, err := g.checkClusters()
	if err != nil {
		return err
	}
	if err := g.checkNetwork(seen); err != nil {
		return err
	}
	if err := g.checkFiles(seen); err != nil {
		return err
	}
	return g.checkEvents(seen)
}

// setDefaults fills in the scheduler settings left out.
func (s *Scheduler) setDefaults() {
	if s.ScanInterval.Duration == 0 {
		s.ScanInterval.Duration = time.Minute
	}
	if s.Policy == "" {
		s.Policy = "WF"
	}
	if s.PlaceOnSubmit == nil {
		t := true
		s.PlaceOnSubmit = &t
	}
	def := func(p **float64, v float64) {
		if *p == nil {
			*p = &v
		}
	}
	def(&s.ClaimL, 0.75)
	def(&s.ClaimLStep, 0.25)
	def(&s.ClaimThreshold, 1)
	if s.ClaimEpsilon.Duration == 0 {
		s.ClaimEpsilon.Duration = time.Second
	}
	for i := range s.GroupWeights {
		if s.GroupWeights[i] == 0 {
			s.GroupWeights[i] = 1
		}
	}
	for i := range s.QueueWeights {
		if s.QueueWeights[i] == 0 {
			s.QueueWeights[i] = 1
		}
	}
	if s.ErrorThreshold == 0 {
		s.ErrorThreshold = 5
	}
	if s.DefaultRuntime.Duration == 0 {
		s.DefaultRuntime.Duration = time.Minute
	}
	if s.Execution == "" {
		s.Execution = "emulated"
	}
	if s.TimeScale == 0 {
		s.TimeScale = 1
	}
	if s.DefaultPriority == "" {
		s.DefaultPriority = "high"
	}
	if s.DefaultRunner == "" {
		s.DefaultRunner = "krunner"
	}
	if s.UtilizationSample.Duration == 0 {
		s.UtilizationSample.Duration = time.Minute
	}
	if s.MaxRestarts == nil {
		n := 10
		s.MaxRestarts = &n
	}
	if s.MaxOutput == 0 {
		s.MaxOutput = DefaultMaxOutput
	}
	if s.DeadlinePolicy == "" {
		s.DeadlinePolicy = "wait-10"
	}
	def(&s.DeadlineL, 0.7)
	if s.DeadlinePriority == "" {
		s.DeadlinePriority = "global"
	}
	if s.DeadlineEpsilon.Duration == 0 {
		s.DeadlineEpsilon.Duration = time.Second
	}
	if s.GPKill == "" {
		s.GPKill = DefaultGPKill
	}
	if s.WaitXFirstTry == "" {
		s.WaitXFirstTry = DefaultWaitXFirstTry
	}

}

// check checks the scheduler settings against their ranges.
func (s *Scheduler) check() error {
	c := &checker{table: "scheduler", index: -1}
	c.floatIn("time_scale", s.TimeScale, MinTimeScale, MaxTimeScale)
	c.durationIn("scan_interval", s.ScanInterval.Duration, time.Second, 24*time.Hour)
	c.durationIn("utilization_sample", s.UtilizationSample.Duration, time.Second, 24*time.Hour)
	if c.err == nil {
		c.wallPeriod("scan_interval", s.ScanInterval.Duration, s.TimeScale)
		c.wallPeriod("utilization_sample", s.UtilizationSample.Duration, s.TimeScale)
	}
	c.floatIn("claim_l", *s.ClaimL, 0, 1)
	c.floatIn("claim_l_step", *s.ClaimLStep, 0, 1)
	c.floatIn("claim_l_min", s.ClaimLMin, 0, 1)
	c.floatIn("claim_threshold", *s.ClaimThreshold, 0, 1)
	if c.err == nil && s.ClaimLMin > *s.ClaimL {
		c.fail("claim_l_min", "(%g) is above claim_l (%g)", s.ClaimLMin, *s.ClaimL)
	}
	c.durationIn("claim_epsilon", s.ClaimEpsilon.Duration, time.Millisecond, time.Hour)
	c.intIn("max_placement_tries", s.MaxPlacementTries, 0, MaxTries)
	c.intIn("max_claim_tries", s.MaxClaimTries, 0, MaxTries)
	c.intIn("aging_period", s.AgingPeriod, 0, MaxTries)
	for _, w := range s.GroupWeights {
		c.intIn("group_weights", w, 1, MaxWeight)
	}
	for _, w := range s.QueueWeights {
		c.intIn("queue_weights", w, 1, MaxWeight)
	}
	if s.MaxRuntime.Duration != 0 {
		c.durationIn("max_runtime", s.MaxRuntime.Duration, time.Second, LongestRun)
	}
	c.intIn("error_threshold", s.ErrorThreshold, 1, MaxTries)
	c.intIn("max_restarts", *s.MaxRestarts, 0, MaxRestarts)
	c.durationIn("default_runtime", s.DefaultRuntime.Duration, time.Second, LongestRun)
	c.durationIn("info_cache", s.InfoCache.Duration, 0, 24*time.Hour)
	if s.MaxOutput < MinOutputLimit || s.MaxOutput > MaxOutputLimit {
		c.fail("max_output", "= %d bytes is out of range: must be in [1KB, 1TB]", s.MaxOutput)
	}
	if _, err := ParseWait(s.DeadlinePolicy); err != nil {
		c.fail("deadline_policy", "%v", err)
	}
	c.floatIn("deadline_l", *s.DeadlineL, MinDeadlineL, 1)
	if s.DeadlinePriority != "global" && s.DeadlinePriority != "local" {
		c.fail("deadline_priority", "must be global (GP) or local (LP), got %q", s.DeadlinePriority)
	}
	c.intIn("deadline_max_tries", s.DeadlineMaxTries, 0, MaxTries)
	c.durationIn("deadline_epsilon", s.DeadlineEpsilon.Duration, time.Millisecond, time.Hour)
	if s.GPKill != GPKillAtDeadline && s.GPKill != GPKillEveryTry {
		c.fail("gp_kill", "must be %s or %s, got %q", GPKillAtDeadline, GPKillEveryTry, s.GPKill)
	}
	if s.WaitXFirstTry != WaitXRestart && s.WaitXFirstTry != WaitXSkip {
		c.fail("waitx_first_try", "must be %s or %s, got %q", WaitXRestart, WaitXSkip, s.WaitXFirstTry)
	}
	c.durationIn("local_warmup", s.LocalWarmup.Duration, 0, LongestRun)
	if s.Execution != "emulated" && s.Execution != "process" {
		c.fail("execution", "must be emulated or process, got %q", s.Execution)
	}
	for _, d := range s.PlaceholderDirs {
		switch {
		case s.Execution != "process":
			c.fail("placeholder_dirs", "applies to process execution only (execution = %q runs no placeholder)", s.Execution)
		case d == "":
			c.fail("placeholder_dirs", "has an empty directory")
		}
	}
	return c.err
}

// checkClusters checks each cluster and its background load, filling in
// their defaults, and sorts them by name. It returns the names seen.
func (g *Grid) checkClusters() (map[string]bool, error) {
	s := &g.Scheduler
	if len(g.Clusters) == 0 {
		return nil, fmt.Errorf("no clusters: add [[cluster]] tables with a name and processors")
	}
	if len(g.Clusters) > MaxClusters {
		return nil, fmt.Errorf("%d clusters: at most %d are allowed", len(g.Clusters), MaxClusters)
	}
	seen := map[string]bool{}
	for i := range g.Clusters {
		cl := &g.Clusters[i]
		c := &checker{table: "cluster", index: i}
		// A cluster's name is an id (names.CheckID): it names URL paths and
		// files, and is printed in reports and on terminals.
		if names.CheckID("cluster name", cl.Name) != nil {
			c.fail("name", "= %+q: a cluster's name is %s", cl.Name, names.IDRule)
		} else if seen[cl.Name] {
			c.fail("name", "%q: cluster %q is defined twice", cl.Name, cl.Name)
		}
		seen[cl.Name] = true
		if cl.Speed == 0 {
			cl.Speed = 1
		}
		if cl.LRM == "" {
			cl.LRM = LRMEmulated
		}
		switch cl.LRM {
		case LRMSlurm:
			checkSlurm(c, cl, s)
		case LRMARC, LRMGRAM:
			checkCE(c, cl, s)
		case LRMEmulated:
			if cl.CE != "" {
				c.fail("ce", "is for lrm = \"arc\" and \"gram\" clusters: cluster %s is emulated (add lrm or remove it)", cl.Name)
			}
			for key, v := range map[string]string{"slurm_conf": cl.SlurmConf, "partition": cl.Partition} {
				if v != "" {
					c.fail(key, "is for lrm = \"slurm\" clusters: cluster %s is emulated (add lrm = \"slurm\" or remove it)", cl.Name)
				}
			}
			if cl.Poll.Duration != 0 || cl.StartTimeout.Duration != 0 {
				c.fail("poll", "and start_timeout are for lrm = \"slurm\" clusters: cluster %s is emulated", cl.Name)
			}
			if cl.PreemptLocal {
				c.fail("preempt_local", "is for lrm = \"slurm\" clusters: cluster %s is emulated, and its local jobs are always killed under global priority (remove it)", cl.Name)
			}
		default:
			c.fail("lrm", "must be emulated, slurm, arc or gram, got %q", cl.LRM)
		}
		if cl.LocalScheduler == "" && !cl.Real() {
			cl.LocalScheduler = "fcfs"
		}
		if !(cl.Slurm() && cl.Processors == 0) { // read from the controller
			c.intIn("processors", cl.Processors, 1, MaxProcessors)
		}
		c.floatIn("speed", cl.Speed, MinSpeed, MaxSpeed)
		c.floatIn("failure_rate", cl.FailureRate, 0, 1)
		if !cl.Real() && cl.LocalScheduler != "fcfs" && cl.LocalScheduler != "easy" {
			c.fail("local_scheduler", "must be fcfs or easy, got %q", cl.LocalScheduler)
		}
		if c.err != nil {
			return nil, c.err
		}
		b := &cl.Background
		c.table = "cluster.background"
		c.floatIn("low", b.Low, 0, 1)
		c.floatIn("high", b.High, 0, 1)
		if b.Enabled() {
			if c.err == nil && b.Low > b.High {
				c.fail("low", "must not be above high: the band needs 0 <= low <= high <= 1")
			}
			if b.Interval.Duration == 0 {
				b.Interval.Duration = 30 * time.Second
			}
			if b.JobSize == [2]int{} {
				b.JobSize = [2]int{1, min(8, cl.Processors)}
			}
			if b.JobRuntime.Duration == 0 {
				b.JobRuntime.Duration = 5 * time.Minute
			}
			c.durationIn("interval", b.Interval.Duration, time.Second, 24*time.Hour)
			if c.err == nil {
				c.wallPeriod("interval", b.Interval.Duration, s.TimeScale)
			}
			if b.JobSize[0] < 1 || b.JobSize[1] < b.JobSize[0] || b.JobSize[1] > cl.Processors {
				c.fail("job_size", "= %v: must be [min, max] with 1 <= min <= max <= processors (%d)", b.JobSize, cl.Processors)
			}
			c.durationIn("job_runtime", b.JobRuntime.Duration, time.Second, LongestRun)
		}
		if c.err != nil {
			return nil, c.err
		}
		c.table = "cluster.local"
		if checkLocal(c, cl); c.err != nil {
			return nil, c.err
		}
	}
	sort.Slice(g.Clusters, func(i, j int) bool { return g.Clusters[i].Name < g.Clusters[j].Name })
	return seen, nil
}

// checkSlurm checks the settings of a Slurm cluster, filling in the
// defaults of its own, and the scheduler settings it needs.
func checkSlurm(c *checker, cl *Cluster, s *Scheduler) {
	const why = "the controller's other jobs are a Slurm cluster's background load"
	switch {
	case cl.SlurmConf == "":
		c.fail("slurm_conf", "is required with lrm = \"slurm\": give the path of cluster %s's slurm.conf (what SLURM_CONF would name)", cl.Name)
	case cl.LocalScheduler != "":
		c.fail("local_scheduler", "does not apply to cluster %s: Slurm schedules its own queue (remove it)", cl.Name)
	case cl.FailureRate != 0:
		c.fail("failure_rate", "does not apply to cluster %s: a Slurm cluster's failures are real (remove it)", cl.Name)
	case cl.Background != Background{}:
		c.fail("lrm", "= \"slurm\": cluster %s cannot have a [cluster.background]: %s (remove it)", cl.Name, why)
	case s.TimeScale != 1:
		c.fail("lrm", "= \"slurm\": cluster %s runs in real time, so scheduler.time_scale must be 1, not %g (and no --speedup)", cl.Name, s.TimeScale)
	case s.Execution != "emulated":
		c.fail("lrm", "= \"slurm\": cluster %s runs real processes itself; scheduler.execution = %q cannot be mixed with it (use emulated: the grid's other clusters then emulate their jobs)", cl.Name, s.Execution)
	}
	if cl.Poll.Duration == 0 {
		cl.Poll.Duration = time.Second
	}
	if cl.StartTimeout.Duration == 0 {
		cl.StartTimeout.Duration = 30 * time.Second
	}
	c.durationIn("poll", cl.Poll.Duration, 100*time.Millisecond, time.Minute)
	c.durationIn("start_timeout", cl.StartTimeout.Duration, time.Second, time.Hour)
}

// checkCE checks the settings of a cluster behind a CE: those of a Slurm
// cluster that apply (real time, emulated execution elsewhere, no
// emulated background or failures), a CE address of its kind, and its
// own poll (2s) and start_timeout (2m: a CE says a job started up to its
// information period late).
func checkCE(c *checker, cl *Cluster, s *Scheduler) {
	why := fmt.Sprintf("lrm = %q: cluster %s", cl.LRM, cl.Name)
	switch {
	case cl.CE == "" && cl.LRM == LRMARC:
		c.fail("ce", "is required with %s: give its A-REX endpoint, https://host:port/arex", why)
	case cl.CE == "":
		c.fail("ce", "is required with %s: give its job manager's contact, host:port/jobmanager-LRM", why)
	case cl.LRM == LRMARC && !strings.HasPrefix(cl.CE, "https://"):
		c.fail("ce", "= %q: %s needs an https://host:port/arex endpoint", cl.CE, why)
	case cl.LRM == LRMGRAM && !strings.Contains(cl.CE, "/jobmanager"):
		c.fail("ce", "= %q: %s needs a host:port/jobmanager-LRM contact", cl.CE, why)
	case strings.ContainsAny(cl.CE, " \t"):
		c.fail("ce", "= %q: a CE address has no blanks", cl.CE)
	case cl.SlurmConf != "":
		c.fail("slurm_conf", "does not apply to %s: the CE reaches its cluster (remove it)", why)
	case cl.LocalScheduler != "":
		c.fail("local_scheduler", "does not apply to %s: the cluster's batch system schedules its own queue (remove it)", why)
	case cl.FailureRate != 0:
		c.fail("failure_rate", "does not apply to %s: its failures are real (remove it)", why)
	case cl.Background != Background{}:
		c.fail("lrm", "= %q: cluster %s cannot have a [cluster.background]: its other users are real (remove it)", cl.LRM, cl.Name)
	case cl.PreemptLocal:
		c.fail("preempt_local", "does not apply to %s: a CE does not list the cluster's other jobs (remove it)", why)
	case s.TimeScale != 1:
		c.fail("lrm", "= %q: cluster %s runs in real time, so scheduler.time_scale must be 1, not %g (and no --speedup)", cl.LRM, cl.Name, s.TimeScale)
	case s.Execution != "emulated":
		c.fail("lrm", "= %q: cluster %s runs real processes itself; scheduler.execution = %q cannot be mixed with it (use emulated)", cl.LRM, cl.Name, s.Execution)
	}
	if cl.Poll.Duration == 0 {
		cl.Poll.Duration = 2 * time.Second
	}
	if cl.StartTimeout.Duration == 0 {
		cl.StartTimeout.Duration = 2 * time.Minute
	}
	c.durationIn("poll", cl.Poll.Duration, 100*time.Millisecond, time.Minute)
	c.durationIn("start_timeout", cl.StartTimeout.Duration, time.Second, time.Hour)
}

// HasCE tells whether any cluster of the grid is behind a CE.
func (g *Grid) HasCE() bool {
	for i := range g.Clusters {
		if g.Clusters[i].ThroughCE() {
			return true
		}
	}
	return false
}

// ResolveProcessors fills in the processors of the Slurm clusters that
// leave them out, from total(cluster) (the controller's CPUs), and checks
// that those that give them do not ask for more than the controller has.
func (g *Grid) ResolveProcessors(total func(cl *Cluster) (int, error)) error {
	for i := range g.Clusters {
		cl := &g.Clusters[i]
		if !cl.Slurm() {
			continue
		}
		n, err := total(cl)
		if err != nil {
			return fmt.Errorf("cluster %s: reading its processors from the controller (SLURM_CONF=%s): %v", cl.Name, cl.SlurmConf, err)
		}
		switch {
		case n < 1:
			return fmt.Errorf("cluster %s: its controller reports no processors (SLURM_CONF=%s, partition %q): are its nodes up?", cl.Name, cl.SlurmConf, cl.Partition)
		case cl.Processors == 0:
			cl.Processors = min(n, MaxProcessors)
		case cl.Processors > n:
			return fmt.Errorf("cluster %s: processors = %d, but its controller has %d: lower processors or leave it out", cl.Name, cl.Processors, n)
		}
	}
	return g.Check()
}

// checkNetwork checks the bandwidths and that links join known clusters.
func (g *Grid) checkNetwork(seen map[string]bool) error {
	if g.Network.DefaultBandwidth == 0 {
		g.Network.DefaultBandwidth = Bandwidth(1e9 / 8)
	}
	if g.Network.Symmetric == nil {
		t := true
		g.Network.Symmetric = &t
	}
	c := &checker{table: "network", index: -1}
	c.floatIn("default_bandwidth", float64(g.Network.DefaultBandwidth), MinBandwidth, MaxBandwidth)
	if c.err != nil {
		return c.err
	}
	for i, l := range g.Network.Links {
		c := &checker{table: "network.link", index: i}
		if !seen[l.From] || !seen[l.To] {
			c.fail("from", "%s -> %s names an unknown cluster", l.From, l.To)
		}
		c.floatIn("bandwidth", float64(l.Bandwidth), MinBandwidth, MaxBandwidth)
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

// checkFiles checks that each file has a unique name, a size in range and
// replicas on known clusters.
func (g *Grid) checkFiles(seen map[string]bool) error {
	files := map[string]bool{}
	for i, f := range g.Files {
		c := &checker{table: "file", index: i}
		if f.Name == "" || files[f.Name] {
			c.fail("name", "%q: every file needs a unique name", f.Name)
		}
		files[f.Name] = true
		if f.Size < 0 || f.Size > MaxFileBytes {
			c.fail("size", "= %d bytes is out of range: must be in [0, 1PB]", f.Size)
		}
		if len(f.Sites) == 0 {
			c.fail("sites", "is empty: no sites hold file %s", f.Name)
		}
		for _, s := range f.Sites {
			if !seen[s] {
				c.fail("sites", "of file %s: unknown site %q", f.Name, s)
			}
		}
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

// checkEvents checks the availability events and sorts them by time.
func (g *Grid) checkEvents(seen map[string]bool) error {
	for i, e := range g.Events {
		c := &checker{table: "event", index: i}
		c.durationIn("at", e.At.Duration, 0, LongestRun)
		if !seen[e.Cluster] {
			c.fail("cluster", "at %v: unknown cluster %q", e.At.Duration, e.Cluster)
		}
		if e.Action != "down" && e.Action != "up" {
			c.fail("action", "at %v: action must be down or up, got %q", e.At.Duration, e.Action)
		}
		if c.err != nil {
			return c.err
		}
	}
	sort.SliceStable(g.Events, func(i, j int) bool { return g.Events[i].At.Duration < g.Events[j].At.Duration })
	return nil
}

// Cluster returns the cluster of that name.
func (g *Grid) Cluster(name string) (*Cluster, bool) {
	i := sort.Search(len(g.Clusters), func(i int) bool { return g.Clusters[i].Name >= name })
	if i < len(g.Clusters) && g.Clusters[i].Name == name {
		return &g.Clusters[i], true
	}
	return nil, false
}

// TotalProcessors is the sum over clusters.
func (g *Grid) TotalProcessors() int {
	n := 0
	for _, c := range g.Clusters {
		n += c.Processors
	}
	return n
}

// Bandwidth is the rate from one site to another in bytes per second;
// +Inf within a site.
func (g *Grid) Bandwidth(from, to string) float64 {
	if from == to {
		return math.Inf(1)
	}
	for _, l := range g.Network.Links {
		if l.From == from && l.To == to || *g.Network.Symmetric && l.From == to && l.To == from {
			return float64(l.Bandwidth)
		}
	}
	return float64(g.Network.DefaultBandwidth)
}

// Replicas lists the sites holding a file; unknown files have none.
func (g *Grid) Replicas(name string) []string {
	for _, f := range g.Files {
		if f.Name == name {
			return f.Sites
		}
	}
	return nil
}
