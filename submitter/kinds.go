package submitter

// DeadlinesAnnotation is the kind of the annotation that holds the
// bundled core's start-deadline figures of a run (core.DeadlineSummary as
// JSON), written by both producers of the core's runs: the koala target
// when a live run ends (submitter/koalatarget) and a simulated run's
// record (sim/coresim); the report reads it back.
const DeadlinesAnnotation = "koala-deadlines"
