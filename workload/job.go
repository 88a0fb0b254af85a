// Package workload is the job model every gmark stage shares, and the on-disk
// workload directory that carries it from the generator to the submitter.
//
// Times inside a workload are offsets from the workload start. A job is either
// unitary (one program, in one or more co-allocated components) or composite (a
// DAG of unitary sub-jobs, the tasks, linked by dependencies).
package workload

import (
	"fmt"
	"time"
)

// Kind tells unitary jobs from composite ones.
type Kind string

const (
	Unitary   Kind = "unitary"
	Composite Kind = "composite"
)

// SiteType is how a job's components are placed, in GrenchMark's words; the
// KOALA request type each one maps to is given beside it.
type SiteType string

const (
	Single      SiteType = "single"       // one component
	Unordered   SiteType = "unordered"    // KOALA non-fixed: the scheduler picks every site
	Ordered     SiteType = "ordered"      // KOALA fixed: every component names its site
	SemiOrdered SiteType = "semi-ordered" // KOALA semi-fixed: some components name a site
	Flexible    SiteType = "flexible"     // KOALA flexible: only the total is given
)

// AnySite is the site of a component that the scheduler may place anywhere.
const AnySite = "*"

// Job is one job of a workload.
type Job struct {
	ID       string        // unique in the workload: "<unit>-<index>", sub-jobs "<unit>-<index>.<node>"
	Unit     int           // the WDL unit that generated the job
	Index    int           // the job's number within its unit, from 0
	Kind     Kind          // Unitary or Composite
	Type     string        // the unit type: an application name, a DAG shape, a model name
	Submit   time.Duration // scheduled submission, from the workload start
	SiteType SiteType      // how Components are placed
	WallTime time.Duration // maximum run time the job asks for; 0 = none
	RunTime  time.Duration // expected run time when the generator knows it (traces, models); 0 = unknown, unless ZeroRunTime
	// ZeroRunTime says that a RunTime of 0 is known: the job runs for no
	// time (a trace's job that ran 0 s, a model's draw of 0), which is not
	// a run time the generator does not know.
	ZeroRunTime bool
	// Deadline is the job's start deadline, from the workload start; 0 =
	// none. A job with a deadline must start at it (Ballier et al., 2006:
	// a co-allocated job not started at its deadline fails); it may lie
	// before Submit (the deadline had passed when the job was submitted).
	Deadline time.Duration
	User     string // optional
	Group    string // optional
	// Warm marks a job of a trace replay's warm start: queued or running in
	// the trace when the replayed window opens, submitted at the window's
	// start (docs/workload.md). Metrics leave warm jobs out by default.
	Warm bool
	App  App // what each component runs (unitary jobs)
	// Components are the parts of a co-allocated job, each placed on one site.
	// A single-site job has exactly one.
	Components []Component
	Files      []File // input files the job needs at its execution sites
	// Outputs are the files the job writes where it runs (a workflow
	// task's, from a WfFormat trace): the bundled core holds a replica of
	// each at the job's sites once it has succeeded, so that the tasks that
	// read them can be placed close to them (Close-to-Files).
	Outputs []File
	Tasks   []Job        // sub-jobs of a composite job, in topological order
	Deps    []Dependency // edges between Tasks (by ID)
}

// App is the program a job runs and its parameters, in the order the
// program's command line takes them.
type App struct {
	Name   string
	Params []Param
}

// Param is one named application parameter. Values are kept as text so a
// parameter is printed exactly as the generator chose it.
type Param struct {
	Key   string
	Value string
}

// Component is one co-allocated part of a job.
type Component struct {
	Site  string // a site name, or AnySite
	Count int    // processors (or processes) the component asks for
}

// File is an input file by logical name, with its size in bytes.
type File struct {
	Name string
	Size int64
}

// Dependency says that task To may start only after task From succeeded.
type Dependency struct {
	From string
	To   string
}

// KnownRunTime is the job's run time and whether it is known: a RunTime
// above 0, or 0 with ZeroRunTime.
func (j *Job) KnownRunTime() (time.Duration, bool) {
	return j.RunTime, j.RunTime > 0 || j.ZeroRunTime && j.RunTime == 0
}

// Processors is the total processor count a job asks for: the sum over its
// components, or for a composite job the largest of its tasks.
func (j *Job) Processors() int {
	if j.Kind == Composite {
		max := 0
		for i := range j.Tasks {
			if p := j.Tasks[i].Processors(); p > max {
				max = p
			}
		}
		return max
	}
	n := 0
	for _, c := range j.Components {
		n += c.Count
	}
	return n
}

// Param returns the value of the named application parameter.
func (a App) Param(key string) (string, bool) {
	for _, p := range a.Params {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

// Args is the program's command line after its name: "--key value" for each
// parameter, in order. A parameter with an empty value is a bare flag.
func (a App) Args() []string {
	args := make([]string, 0, 2*len(a.Params))
	for _, p := range a.Params {
		args = append(args, "--"+p.Key)
		if p.Value != "" {
			args = append(args, p.Value)
		}
	}
	return args
}

// Validate checks the invariants every stage relies on, and every number
// against the format's ranges (limits.go), so a hand-edited, truncated or
// hostile workload file is rejected with a reason instead of misbehaving
// later.
func (j *Job) Validate() error {
	if err := checkName("job id", j.ID); err != nil {
		return err
	}
	if err := j.validateNumbers(); err != nil {
		return fmt.Errorf("job %s: %v", j.ID, err)
	}
	switch j.Kind {
	case Unitary:
		if len(j.Tasks) > 0 || len(j.Deps) > 0 {
			return fmt.Errorf("job %s: a unitary job has no tasks or dependencies", j.ID)
		}
		if len(j.Components) == 0 {
			return fmt.Errorf("job %s: no components", j.ID)
		}
		if len(j.Components) > MaxComponents {
			return fmt.Errorf("job %s: %d components (at most %d)", j.ID, len(j.Components), MaxComponents)
		}
		total := 0
		for i, c := range j.Components {
			if c.Count < 1 || c.Count > MaxProcessors {
				return fmt.Errorf("job %s: component %d asks for %d processors (1 to %d)", j.ID, i, c.Count, MaxProcessors)
			}
			if c.Site == "" {
				return fmt.Errorf("job %s: component %d has no site (use %q for any)", j.ID, i, AnySite)
			}
			if total += c.Count; total > MaxProcessors {
				return fmt.Errorf("job %s: more than %d processors in all", j.ID, MaxProcessors)
			}
		}
		if j.App.Name == "" {
			return fmt.Errorf("job %s: no application", j.ID)
		}
	case Composite:
		if len(j.Tasks) == 0 {
			return fmt.Errorf("job %s: composite job without tasks", j.ID)
		}
		if j.Deadline != 0 {
			return fmt.Errorf("job %s: a composite job has no start deadline (its tasks may)", j.ID)
		}
		if len(j.Tasks) > MaxTasks || len(j.Deps) > MaxDeps {
			return fmt.Errorf("job %s: %d tasks and %d dependencies (at most %d and %d)", j.ID, len(j.Tasks), len(j.Deps), MaxTasks, MaxDeps)
		}
		pos := make(map[string]int, len(j.Tasks))
		for i := range j.Tasks {
			t := &j.Tasks[i]
			if t.Kind != Unitary {
				return fmt.Errorf("job %s: task %s is not unitary", j.ID, t.ID)
			}
			if t.Warm {
				return fmt.Errorf("job %s: task %s is warm: warm marks a top-level job", j.ID, t.ID)
			}
			if err := t.Validate(); err != nil {
				return err
			}
			if _, dup := pos[t.ID]; dup {
				return fmt.Errorf("job %s: duplicate task id %s", j.ID, t.ID)
			}
			pos[t.ID] = i
		}
		for _, d := range j.Deps {
			from, ok1 := pos[d.From]
			to, ok2 := pos[d.To]
			if !ok1 || !ok2 {
				return fmt.Errorf("job %s: dependency %s -> %s names an unknown task", j.ID, d.From, d.To)
			}
			if from >= to {
				return fmt.Errorf("job %s: dependency %s -> %s goes against the task order", j.ID, d.From, d.To)
			}
		}
	default:
		return fmt.Errorf("job %s: unknown kind %q", j.ID, j.Kind)
	}
	return nil
}

// validateNumbers checks the fields every kind of job has against the
// format's ranges.
func (j *Job) validateNumbers() error {
	if j.Unit < 0 || j.Unit > MaxUnit || j.Index < 0 || j.Index > MaxUnit {
		return fmt.Errorf("unit %d, index %d: each must be in [0, %d]", j.Unit, j.Index, MaxUnit)
	}
	if err := checkTime("submit time", j.Submit); err != nil {
		return err
	}
	if err := checkTime("walltime", j.WallTime); err != nil {
		return err
	}
	if err := checkTime("runtime", j.RunTime); err != nil {
		return err
	}
	if err := checkTime("deadline", j.Deadline); err != nil {
		return err
	}
	switch j.SiteType {
	case "", Single, Unordered, Ordered, SemiOrdered, Flexible:
	default:
		return fmt.Errorf("unknown site type %q", j.SiteType)
	}
	if len(j.App.Params) > MaxParams {
		return fmt.Errorf("%d application parameters (at most %d)", len(j.App.Params), MaxParams)
	}
	for _, p := range j.App.Params {
		if err := checkName("parameter name", p.Key); err != nil {
			return err
		}
	}
	if len(j.Files) > MaxFiles || len(j.Outputs) > MaxFiles {
		return fmt.Errorf("%d input and %d output files (at most %d each)", len(j.Files), len(j.Outputs), MaxFiles)
	}
	for _, f := range append(j.Files[:len(j.Files):len(j.Files)], j.Outputs...) {
		if f.Size < 0 || f.Size > MaxFileSize {
			return fmt.Errorf("input file %q of %d bytes (0 to %d)", f.Name, f.Size, int64(MaxFileSize))
		}
		if f.Name == "" {
			return fmt.Errorf("an input file without a name")
		}
	}
	return nil
}
