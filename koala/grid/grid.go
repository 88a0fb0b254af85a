// Package grid reads the description of a grid for the bundled scheduler
// core from grid.toml: its clusters (processors, speed, local scheduler,
// background load, failures), the network between them, file replicas, the
// scheduler's settings, and a schedule of cluster outages.
package grid

import (
	"errors"
	"fmt"
	"math"
	"os"
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
	DefaultRuntime    Duration `toml:"default_runtime"`     // emulated run time of jobs that give none (1 min)
	InfoCache         Duration `toml:"info_cache"`          // how long idle-processor counts are cached (0: always fresh)
	Execution         string   `toml:"execution"`           // "emulated" (timers) or "process" (real gmark app processes)
	TimeScale         float64  `toml:"time_scale"`          // core seconds per wall second (1)
	DefaultPriority   string   `toml:"default_priority"`    // high
	DefaultRunner     string   `toml:"default_runner"`      // krunner
	UtilizationSample Duration `toml:"utilization_sample"`  // period of utilization samples (1 min)
	Seed              uint64   `toml:"seed"`                // seeds background load and failures
	MaxRestarts       *int     `toml:"max_restarts"`        // restarts after soft errors or cluster loss before a job fails (10)
}

// Cluster is one site: processors behind a local resource manager.
type Cluster struct {
	Name           string     `toml:"name"`
	Processors     int        `toml:"processors"`
	Speed          float64    `toml:"speed"`           // relative processor speed (1): run times divide by it
	LocalScheduler string     `toml:"local_scheduler"` // "fcfs" or "easy"
	FailureRate    float64    `toml:"failure_rate"`    // probability that a component start fails with a soft error
	Background     Background `toml:"background"`
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

// Load reads and validates a grid description.
func Load(path string) (*Grid, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse validates a grid description; errors name the file and, for TOML
// syntax errors, the line.
func Parse(name string, src []byte) (*Grid, error) {
	var f file
	md, err := toml.Decode(string(src), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", name, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("%s: unknown setting(s) %s", name, strings.Join(keys, ", "))
	}
	g := &Grid{Name: f.Name, Scheduler: f.Scheduler, Network: f.Network, Clusters: f.Clusters, Files: f.Files, Events: f.Events}
	if err := g.validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return g, nil
}

func (g *Grid) validate() error {
	s := &g.Scheduler
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
	for _, c := range []struct {
		name string
		v    float64
	}{{"claim_l", *s.ClaimL}, {"claim_l_step", *s.ClaimLStep}, {"claim_l_min", s.ClaimLMin}, {"claim_threshold", *s.ClaimThreshold}} {
		if !(c.v >= 0 && c.v <= 1) {
			return fmt.Errorf("scheduler.%s must be in [0, 1], got %g", c.name, c.v)
		}
	}
	if s.ClaimLMin > *s.ClaimL {
		return fmt.Errorf("scheduler.claim_l_min (%g) is above claim_l (%g)", s.ClaimLMin, *s.ClaimL)
	}
	if s.MaxPlacementTries < 0 || s.MaxClaimTries < 0 || s.AgingPeriod < 0 {
		return fmt.Errorf("scheduler: try limits and aging_period must be >= 0 (0: unlimited)")
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
	for _, w := range append(s.GroupWeights[:], s.QueueWeights[:]...) {
		if w < 1 {
			return fmt.Errorf("scheduler: group_weights and queue_weights must be >= 1")
		}
	}
	if s.ErrorThreshold == 0 {
		s.ErrorThreshold = 5
	}
	if s.ErrorThreshold < 0 {
		return fmt.Errorf("scheduler.error_threshold must be >= 1")
	}
	if s.DefaultRuntime.Duration == 0 {
		s.DefaultRuntime.Duration = time.Minute
	}
	switch s.Execution {
	case "":
		s.Execution = "emulated"
	case "emulated", "process":
	default:
		return fmt.Errorf("scheduler.execution must be emulated or process, got %q", s.Execution)
	}
	if s.TimeScale == 0 {
		s.TimeScale = 1
	}
	if !(s.TimeScale > 0) || math.IsInf(s.TimeScale, 0) {
		return fmt.Errorf("scheduler.time_scale must be > 0")
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
	if len(g.Clusters) == 0 {
		return fmt.Errorf("no clusters: add [[cluster]] tables with a name and processors")
	}
	seen := map[string]bool{}
	for i := range g.Clusters {
		c := &g.Clusters[i]
		if c.Name == "" || strings.ContainsAny(c.Name, " \t/*") {
			return fmt.Errorf("cluster %d: a name without spaces, '/' or '*' is required", i+1)
		}
		if seen[c.Name] {
			return fmt.Errorf("cluster %q is defined twice", c.Name)
		}
		seen[c.Name] = true
		if c.Processors < 1 {
			return fmt.Errorf("cluster %s: processors must be >= 1", c.Name)
		}
		if c.Speed == 0 {
			c.Speed = 1
		}
		if !(c.Speed > 0) {
			return fmt.Errorf("cluster %s: speed must be > 0", c.Name)
		}
		switch c.LocalScheduler {
		case "":
			c.LocalScheduler = "fcfs"
		case "fcfs", "easy":
		default:
			return fmt.Errorf("cluster %s: local_scheduler must be fcfs or easy, got %q", c.Name, c.LocalScheduler)
		}
		if !(c.FailureRate >= 0 && c.FailureRate <= 1) {
			return fmt.Errorf("cluster %s: failure_rate must be in [0, 1]", c.Name)
		}
		b := &c.Background
		if b.Enabled() {
			if !(b.Low >= 0 && b.Low <= b.High && b.High <= 1) {
				return fmt.Errorf("cluster %s: background needs 0 <= low <= high <= 1", c.Name)
			}
			if b.Interval.Duration == 0 {
				b.Interval.Duration = 30 * time.Second
			}
			if b.JobSize == [2]int{} {
				b.JobSize = [2]int{1, 8}
			}
			if b.JobSize[0] < 1 || b.JobSize[1] < b.JobSize[0] || b.JobSize[1] > c.Processors {
				return fmt.Errorf("cluster %s: background job_size must be [min, max] with 1 <= min <= max <= processors", c.Name)
			}
			if b.JobRuntime.Duration == 0 {
				b.JobRuntime.Duration = 5 * time.Minute
			}
		}
	}
	sort.Slice(g.Clusters, func(i, j int) bool { return g.Clusters[i].Name < g.Clusters[j].Name })
	if g.Network.DefaultBandwidth == 0 {
		g.Network.DefaultBandwidth = Bandwidth(1e9 / 8)
	}
	if g.Network.Symmetric == nil {
		t := true
		g.Network.Symmetric = &t
	}
	for _, l := range g.Network.Links {
		if !seen[l.From] || !seen[l.To] {
			return fmt.Errorf("network link %s -> %s names an unknown cluster", l.From, l.To)
		}
		if l.Bandwidth <= 0 {
			return fmt.Errorf("network link %s -> %s needs a bandwidth", l.From, l.To)
		}
	}
	files := map[string]bool{}
	for _, f := range g.Files {
		if f.Name == "" || files[f.Name] {
			return fmt.Errorf("file %q: every file needs a unique name", f.Name)
		}
		files[f.Name] = true
		if len(f.Sites) == 0 {
			return fmt.Errorf("file %s: no sites hold it", f.Name)
		}
		for _, s := range f.Sites {
			if !seen[s] {
				return fmt.Errorf("file %s: unknown site %q", f.Name, s)
			}
		}
	}
	for _, e := range g.Events {
		if !seen[e.Cluster] {
			return fmt.Errorf("event at %v: unknown cluster %q", e.At.Duration, e.Cluster)
		}
		if e.Action != "down" && e.Action != "up" {
			return fmt.Errorf("event at %v: action must be down or up, got %q", e.At.Duration, e.Action)
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
