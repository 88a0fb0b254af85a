// Package experiment runs placeholder scheduling's experiments (Pinchak's
// thesis, Ch. 5) on emulated sites in simulated time: a workload
// of jobs measured in units of work goes over given sites both ways, as a
// static split (the thesis's "user scripts": each site runs its own list)
// and through classic placeholders (pull, run, resubmit, done; exit on
// refusal). Each site has its own speed (units/s per placeholder) and
// intervals of background load that change it. The placeholders are served
// by the metaqueue's own state machine (metaqueue.Virtual) on the simulated
// clock, so the FCFS pop, the pinned jobs of the static split and the life
// cycle are the server's code. With time_scale it runs in scaled
// wall-clock time on a real server and real placeholder processes
// (scaled.go), on this host or, for a site that names a target, on that
// real system (target.go). docs/placeholder.md describes the file and
// gives Experiment 1 side by side with the thesis.
package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/examples"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/internal/srcerr"
)

// The two ways of running a workload.
const (
	Static      = "static"
	Placeholder = "placeholder"
)

// MaxFile bounds an experiment file; MaxJobs and MaxSites bound what it
// describes.
const (
	MaxFile  = 4 << 20
	MaxJobs  = 1000000
	MaxSites = 10000
	MaxPH    = 100000 // placeholders per site
)

// Spec is an experiment file:
//
//	name = "exp1"
//	modes = ["static", "placeholder"]   # default both
//	split = [17, 16, 17]                # jobs per site for the static run
//	units = [25, 100, 50, …]            # the jobs, in order
//	interval = 2000                     # seconds per throughput bar
//	hour = 3600                         # seconds per row of the hourly table
//	window = [0, 86400]                 # the hourly table's window (default: 0 to the makespan)
//	[[site]]
//	name = "C"
//	rate = 0.325                        # units/s of each placeholder
//	placeholders = 1
//	queue_wait = 0                      # seconds each placeholder waits in the local queue
//	load = [{from = 830, to = 2600, rate = 0.2}]
type Spec struct {
	Name  string    `toml:"name" json:"name"`
	Modes []string  `toml:"modes" json:"modes"`
	Split []int     `toml:"split" json:"split"`
	Units []float64 `toml:"units" json:"units"`
	// Jobs, when units is absent, is a workload of that many jobs of one
	// unit each (CISS-1's grid points).
	Jobs     int       `toml:"jobs" json:"jobs,omitempty"`
	Interval float64   `toml:"interval" json:"interval"`
	Hour     float64   `toml:"hour" json:"hour"`
	Window   []float64 `toml:"window" json:"window,omitempty"`
	Sites    []Site    `toml:"site" json:"sites"`
	// Faults (docs/placeholder.md): transport retries, server outages,
	// the watchdog, and the seed of the sites' loss_rate draws.
	Seed      uint64        `toml:"seed" json:"seed,omitempty"`
	Retries   *int          `toml:"retries" json:"retries,omitempty"`
	RetryWait *float64      `toml:"retry_wait" json:"retry_wait,omitempty"`
	Outages   []Outage      `toml:"outages" json:"outages,omitempty"`
	Watchdog  *WatchdogSpec `toml:"watchdog" json:"watchdog,omitempty"`
	// AutoTotal is the placeholders shared out, in proportion to their
	// rates, over the sites whose count is "auto" and whose free
	// processors are not given.
	AutoTotal int `toml:"auto_total" json:"auto_total,omitempty"`
	// TimeScale, when set, runs the experiment in scaled wall-clock time
	// (experiment seconds per wall second) through a real metaqueue and
	// real placeholder processes on this host; absent: simulated time.
	TimeScale float64 `toml:"time_scale" json:"time_scale,omitempty"`

	jobsFilled bool // units was filled from jobs
}

// Site is an emulated site: Placeholders placeholders (or, in the static
// run, processes working through the site's list) each running one job at
// a time at Rate units/s, or at a Load's rate during it.
type Site struct {
	Name         string  `toml:"name" json:"name"`
	Rate         float64 `toml:"rate" json:"rate"`
	Placeholders int     `toml:"-" json:"placeholders"`
	// Mean and Sigma (seconds), in place of Rate: each execution of a job
	// of one unit at the site takes a lognormal time of that mean and
	// standard deviation (CISS-1's Table 5.5); Rate is then 1/Mean.
	Mean  float64 `toml:"mean" json:"mean,omitempty"`
	Sigma float64 `toml:"sigma" json:"sigma,omitempty"`
	// fromMean: Rate was set from Mean.
	fromMean bool
	// Count is the file's placeholders: a number, or "auto" (Auto): then
	// Placeholders is the site's free Processors, or its rate's share of
	// the spec's AutoTotal, bounded by MaxCount.
	Count      any     `toml:"placeholders" json:"-"`
	Auto       bool    `toml:"-" json:"auto,omitempty"`
	Processors int     `toml:"processors" json:"processors,omitempty"`
	MaxCount   int     `toml:"max_count" json:"max_count,omitempty"`
	QueueWait  float64 `toml:"queue_wait" json:"queue_wait"`
	Load       []Load  `toml:"load" json:"load,omitempty"`
	// StopAt: the site stops executing at this time (its running jobs are
	// lost, its queued placeholders never start).
	StopAt *float64 `toml:"stop_at" json:"stop_at,omitempty"`
	// Lost: at each time, a placeholder running a job vanishes (the one
	// running since longest; none running: the next to start a job).
	Lost []float64 `toml:"lost" json:"lost,omitempty"`
	// LossRate: a running placeholder vanishes at this rate (per second).
	LossRate float64 `toml:"loss_rate" json:"loss_rate,omitempty"`
	// Target (target.go), in scaled time: the real system the site's
	// placeholders run on (its target key and settings); none: processes
	// on this host.
	Target
}

// Load is background load on a site: over [From, To) seconds its
// placeholders run at Rate units/s instead of the site's rate.
type Load struct {
	From float64 `toml:"from" json:"from"`
	To   float64 `toml:"to" json:"to"`
	Rate float64 `toml:"rate" json:"rate"`
}

// LoadFile reads an experiment file. Outside the repository, a shipped
// example named as the repository does (examples/placeholder/exp1.toml)
// is read from the copy built into gmark.
func LoadFile(path string) (*Spec, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if name, ok := examples.Lookup(path); ok {
			b, err := examples.ReadFile(name)
			if err != nil {
				return nil, err
			}
			return Parse(path, b)
		}
	}
	b, err := readlimit.File(path, MaxFile)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// ErrInput is what RunFile's errors of the user's input are (errors.Is): a
// file that cannot be read or is not an experiment, a bad format.
var ErrInput = errors.New("bad input")

type inputError struct{ error }

func (e inputError) Unwrap() error      { return e.error }
func (inputError) Is(target error) bool { return target == ErrInput }

// RunFile runs the experiment of a file and writes its report as text or
// json, or, with dir, into that directory (Report.WriteDir), saying so:
// gmark placeholder experiment.
func RunFile(path, format, dir string, w io.Writer) error {
	if format != "text" && format != "json" {
		return inputError{fmt.Errorf("--format %q: text or json", format)}
	}
	sp, err := LoadFile(path)
	if err != nil {
		return inputError{err}
	}
	var o Options
	if sp.TimeScale > 0 {
		if o.Gmark, err = os.Executable(); err != nil {
			return err
		}
		if dir != "" {
			o.Dir = filepath.Join(dir, "scaled") // the metaqueue's state and the placeholders' output, kept
		}
	}
	r, err := ExperimentWith(sp, o)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case dir != "":
		index, err := r.WriteDir(dir)
		if err == nil {
			_, err = fmt.Fprintf(w, "report written to %s\n", index)
		}
		return err
	case format == "json":
		return r.WriteJSON(w)
	}
	return r.WriteText(w)
}

// tomlLine finds the line in the decoder's own messages ("toml: line 3
// (last key \"rate\"): …"), which are not ParseErrors.
var tomlLine = regexp.MustCompile(`^toml: line (\d+)(?: \(last key "[^"]*"\))?: (.*)$`)

// Parse reads an experiment file's text (name is its path, for errors),
// checks it and fills the defaults. Errors are "file:line: what is wrong".
func Parse(name string, src []byte) (*Spec, error) {
	if len(src) > MaxFile {
		return nil, srcerr.Errorf(srcerr.Pos{File: name}, "larger than %d bytes: not an experiment file", MaxFile)
	}
	var sp Spec
	md, err := toml.Decode(string(src), &sp)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: pe.Position.Line}, "%s", oneLine(pe.Message))
		}
		if m := tomlLine.FindStringSubmatch(oneLine(err.Error())); m != nil {
			line, _ := strconv.Atoi(m[1])
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: line}, "%s", m[2])
		}
		return nil, srcerr.Errorf(srcerr.Pos{File: name}, "%s", oneLine(strings.TrimPrefix(err.Error(), "toml: ")))
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: keyLine(src, k[len(k)-1], 0)}, "unknown key %s", k)
	}
	if err := sp.Check(); err != nil {
		var ce *checkError
		if errors.As(err, &ce) {
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: ce.line(src)}, "%s", ce.msg)
		}
		return nil, srcerr.Errorf(srcerr.Pos{File: name}, "%v", err)
	}
	return &sp, nil
}

// checkError is a problem with a key (of the site-th [[site]] when site
// is not negative), placed at that key's line.
type checkError struct {
	key  string
	site int
	msg  string
}

func (e *checkError) Error() string { return e.msg }

// inWatchdog is the site of a checkError about a key of [watchdog].
const inWatchdog = -2

func (e *checkError) line(src []byte) int {
	if e.site == inWatchdog {
		start := tableLine(src, "[watchdog]")
		if l := keyLine(src, e.key, start); l > 0 && start > 0 {
			return l
		}
		return start
	}
	if e.site < 0 {
		return keyLine(src, e.key, 0)
	}
	start := siteLine(src, e.site)
	if l := keyLine(src, e.key, start); l > 0 {
		return l
	}
	return start
}

func failf(key string, site int, f string, a ...any) error {
	return &checkError{key: key, site: site, msg: fmt.Sprintf(f, a...)}
}

// Check validates the spec and fills its defaults.
func (sp *Spec) Check() error {
	if len(sp.Sites) == 0 {
		return failf("", -1, "no [[site]]")
	}
	if len(sp.Sites) > MaxSites {
		return failf("site", -1, "%d sites; at most %d", len(sp.Sites), MaxSites)
	}
	if err := sp.checkJobs(); err != nil {
		return err
	}
	if len(sp.Units) == 0 || len(sp.Units) > MaxJobs {
		return failf("units", -1, "units must list 1 to %d jobs (the units of work of each)", MaxJobs)
	}
	for i, u := range sp.Units {
		if !(u > 0) || math.IsInf(u, 0) || u > 1e12 {
			return failf("units", -1, "units[%d] = %v: a job is a positive, finite number of units", i, u)
		}
	}
	if len(sp.Modes) == 0 {
		sp.Modes = []string{Static, Placeholder}
	}
	seen := map[string]bool{}
	for _, m := range sp.Modes {
		if m != Static && m != Placeholder || seen[m] {
			return failf("modes", -1, "modes %q: each of %q and %q at most once", sp.Modes, Static, Placeholder)
		}
		seen[m] = true
	}
	for i := range sp.Sites {
		if err := sp.Sites[i].check(i, seen); err != nil {
			return err
		}
	}
	if err := sp.autoCounts(); err != nil {
		return err
	}
	if err := sp.checkSplit(); err != nil {
		return err
	}
	if err := sp.checkFaults(); err != nil {
		return err
	}
	for i := range sp.Sites {
		if err := sp.Sites[i].checkTarget(i, sp.TimeScale); err != nil {
			return err
		}
	}
	if err := sp.checkScaled(); err != nil {
		return err
	}
	return sp.checkTimes()
}

func (s *Site) check(i int, names map[string]bool) error {
	if s.Name == "" || len(s.Name) > 64 || bytes.ContainsAny([]byte(s.Name), "/ \t\n\\") {
		return failf("name", i, "site %d: name %q: 1 to 64 characters, no blanks or slashes", i+1, s.Name)
	}
	if names["site "+s.Name] {
		return failf("name", i, "site %s given twice", s.Name)
	}
	names["site "+s.Name] = true
	if err := s.checkService(i); err != nil {
		return err
	}
	if !positive(s.Rate) {
		return failf("rate", i, "site %s: rate %v must be a number of units/s from 1e-9 to 1e12", s.Name, s.Rate)
	}
	if err := s.checkCount(i); err != nil {
		return err
	}
	if s.Placeholders == 0 && !s.Auto {
		s.Placeholders = 1
	}
	if !s.Auto && (s.Placeholders < 1 || s.Placeholders > MaxPH) {
		return failf("placeholders", i, "site %s: placeholders %d must be from 1 to %d", s.Name, s.Placeholders, MaxPH)
	}
	if !(s.QueueWait >= 0) || s.QueueWait > 1e9 {
		return failf("queue_wait", i, "site %s: queue_wait %v must be from 0 to 1e9 seconds", s.Name, s.QueueWait)
	}
	sort.SliceStable(s.Load, func(a, b int) bool { return s.Load[a].From < s.Load[b].From })
	for k, l := range s.Load {
		if !(l.From >= 0) || !(l.To > l.From) || l.To > 1e12 || !positive(l.Rate) {
			return failf("load", i, "site %s: load [%v, %v) at rate %v: need 0 <= from < to and a positive rate", s.Name, l.From, l.To, l.Rate)
		}
		if k > 0 && l.From < s.Load[k-1].To {
			return failf("load", i, "site %s: loads [%v, %v) and [%v, %v) overlap", s.Name, s.Load[k-1].From, s.Load[k-1].To, l.From, l.To)
		}
	}
	return s.checkSiteFaults(i)
}

func positive(x float64) bool { return x >= 1e-9 && x < 1e12 }

// checkSplit fills or checks the static split: by default the jobs are
// shared out equally, the first sites taking one more.
func (sp *Spec) checkSplit() error {
	n := len(sp.Units)
	if len(sp.Split) == 0 {
		k := len(sp.Sites)
		for i := range k {
			c := n / k
			if i < n%k {
				c++
			}
			sp.Split = append(sp.Split, c)
		}
		return nil
	}
	if len(sp.Split) != len(sp.Sites) {
		return failf("split", -1, "split has %d counts for %d sites", len(sp.Split), len(sp.Sites))
	}
	sum := 0
	for _, c := range sp.Split {
		if c < 0 || c > MaxJobs {
			return failf("split", -1, "split count %d is not from 0 to %d", c, MaxJobs)
		}
		sum += c
	}
	if sum != n {
		return failf("split", -1, "split adds up to %d jobs; units lists %d", sum, n)
	}
	return nil
}

func (sp *Spec) checkTimes() error {
	if sp.Interval == 0 {
		sp.Interval = 2000
	}
	if sp.Hour == 0 {
		sp.Hour = 3600
	}
	if !positive(sp.Interval) || !positive(sp.Hour) {
		return failf("interval", -1, "interval %v and hour %v must be positive numbers of seconds", sp.Interval, sp.Hour)
	}
	if len(sp.Window) != 0 && (len(sp.Window) != 2 || !(sp.Window[0] >= 0) || !(sp.Window[1] > sp.Window[0]) || sp.Window[1] > 1e12) {
		return failf("window", -1, "window %v must be [from, to] seconds with 0 <= from < to", sp.Window)
	}
	if len(sp.Window) == 2 && (sp.Window[1]-sp.Window[0])/sp.Hour > 100000 {
		return failf("window", -1, "window %v holds more than 100,000 rows of %v s", sp.Window, sp.Hour)
	}
	return nil
}

// siteLine is the line of the i-th [[site]] (0: none).
func siteLine(src []byte, i int) int {
	n := 0
	for k, line := range bytes.Split(src, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte("[[site]]")) {
			if n == i {
				return k + 1
			}
			n++
		}
	}
	return 0
}

// tableLine is the line of a table's header (0: none).
func tableLine(src []byte, header string) int {
	for k, line := range bytes.Split(src, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte(header)) {
			return k + 1
		}
	}
	return 0
}

// keyLine is the first line from line `from` on that starts with key
// (0: none; an empty key: 0).
func keyLine(src []byte, key string, from int) int {
	if key == "" {
		return 0
	}
	for k, line := range bytes.Split(src, []byte("\n")) {
		if k+1 >= from && bytes.HasPrefix(bytes.TrimSpace(line), []byte(key)) {
			return k + 1
		}
	}
	return 0
}

func oneLine(s string) string {
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
