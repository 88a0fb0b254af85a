// Package printers turns gmark jobs into job description files (JDFs) for real
// resource managers: Globus RSL, KOALA, HTCondor, Slurm, SGE, PBS, DAGMan and
// Graphviz dot. Printers are pure functions of a job and a Config, registered
// by name.
package printers

import (
	"fmt"
	"io"
	"sort"

	"github.com/gmark/gmark/workload"
)

// Config is what a printer needs besides the job.
type Config struct {
	// Executable is the program every job runs; its arguments are
	// "app NAME --param value …" (see workload.App.Args). Default "gmark".
	Executable string
	// WorkDir is the directory jobs run in and write their output to. Default ".".
	WorkDir string
	// Retries is how many times DAGMan resubmits a failed node before the DAG
	// fails: one "RETRY <task> N" line per node. The default, 0, writes no
	// RETRY lines, so a benchmark sees every failure as the scheduler made it.
	// Negative values count as 0.
	Retries int
	// HoldUntil, when set, makes a batch script hold its processors once the
	// resource manager has started it, until this file exists, before it
	// starts the program (sbatch; rsl and xrsl in PrintComponent and xrsl's
	// requests). It is how a co-allocated job is started without
	// reservations, as KOALA did: each component is claimed through its
	// cluster's resource manager, and the application is released when
	// every component holds its processors (the claimer creates the file in
	// a directory all components see).
	HoldUntil string
	// Name, when set, names the request and its standard output and error
	// (Name.out, Name.err) instead of the job's id (rsl's PrintComponent,
	// xrsl): a submitter that submits each component and claiming try as
	// a job of its own names each by its idempotency key.
	Name string
	// Queue, when set, is the request's queue (rsl's PrintComponent, xrsl):
	// the CE's share or partition the job goes to.
	Queue string
	// Env are NAME=value pairs added to the request's environment (rsl's
	// PrintComponent, xrsl), after the ones the printer writes.
	Env []string
}

// withDefaults fills unset fields.
func (c Config) withDefaults() Config {
	if c.Executable == "" {
		c.Executable = "gmark"
	}
	if c.WorkDir == "" {
		c.WorkDir = "."
	}
	if c.Retries < 0 {
		c.Retries = 0
	}
	return c
}

// Printer writes the job description of one job.
type Printer interface {
	// Name is the registry name, as given to --jdf ("rsl", "sbatch", …).
	Name() string
	// Ext is the file extension of the format, without the dot.
	Ext() string
	// Describe is one line for --help.
	Describe() string
	// Composite reports whether the format describes a whole DAG (dagman,
	// dot). Such printers get composite jobs whole, and print a unitary job
	// as a DAG of one node. Other printers are given only unitary jobs: the
	// tasks of a composite job are printed one by one.
	Composite() bool
	// Print writes the description of j.
	Print(w io.Writer, j *workload.Job, cfg Config) error
	// Comment returns text as a comment line of the format (with its newline),
	// used to separate jobs in a --single-file stream.
	Comment(text string) string
}

// A ComponentPrinter also writes one component of a co-allocated job as a
// job of its own, for a submitter that submits the components one by one
// through middleware that does not co-allocate (an ARC CE, a GRAM5
// gatekeeper since DUROC is gone) and starts them together itself. The
// request carries the component's place in the job's rank space
// (GMARK_COMPONENT, GMARK_RANK_BASE, GMARK_SIZE).
type ComponentPrinter interface {
	PrintComponent(w io.Writer, j *workload.Job, i int, cfg Config) error
}

// checkComponent rejects a component index a job does not have.
func checkComponent(format string, j *workload.Job, i int) error {
	if err := checkUnitary(format, j); err != nil {
		return err
	}
	if i < 0 || i >= len(j.Components) {
		return fmt.Errorf("job %s has %d components, not a component %d", j.ID, len(j.Components), i)
	}
	return nil
}

var registry = map[string]Printer{}

// Register adds a printer; it panics on a duplicate name, a programming error.
func Register(p Printer) {
	if _, dup := registry[p.Name()]; dup {
		panic("printers: duplicate printer " + p.Name())
	}
	registry[p.Name()] = p
}

// Lookup returns the printer registered under name.
func Lookup(name string) (Printer, error) {
	p, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown job description format %q (known: %v)", name, Names())
	}
	return p, nil
}

// Names lists the registered printers, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
