// Package coresim runs the bundled core in simulated time: `gmark koala
// simulate`. Simulate (sim.go) submits every job of a workload directory
// at its submit time to a core of a grid, with emulated execution, the
// core running as the central architecture's core model of the engine
// (package sim): one event loop for both, no second stepping loop of the
// grids. It keeps what the summary counts as the jobs end, and, when
// asked, a record of each job: Record writes the run to the results store
// all at once; with Options.DB (simstream.go) each job's records go to the
// store as the job ends, through the submitter's recording path, so
// memory holds only the jobs in progress.
//
// A simulated run walks straight down: the command, this package, the
// engine, the core, the store. The koala target (submitter/koalatarget)
// is the core live and knows nothing of this package or the engine; the
// cross-validation of the engine against the core (sim/xval) runs
// Simulate.
package coresim
