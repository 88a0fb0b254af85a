// Package target is the kit the targets of package submitter are built
// from, as database/sql/driver stands apart from database/sql: what a
// target needs to talk to a resource manager, and nothing of the runner
// that drives it.
//
//   - Transient and IsTransient (transient.go): the mark of an error the
//     same call may get past later, which the runner retries.
//   - Command (command.go): a resource manager's command run with a
//     timeout, its failure a CommandError with the exit status, marked
//     Transient when it timed out or said the manager's "not now".
//   - Pollers and JobFiles (pollers.go): the periodic status polls of a
//     target that asks about its jobs, and where a target running gmark's
//     applications keeps its files.
//   - Orphans and Procs (orphans.go): the submit commands an earlier,
//     killed submitter left running, which a Find waits for.
//   - UnixSeconds and ExitStatus (reported.go): a scheduler's numbers,
//     checked before they are used.
//   - PartsOf, LatestTries, JoinTargetID and SplitTargetID, Reach
//     (parts.go): jobs submitted as parts (the whole job, or each
//     component on its own, in claiming tries): the names that are the
//     parts' idempotency keys, the latest try of each component found
//     after a crash, the target id of a job's parts, whether the
//     resource manager answers its polls.
//   - Claim (claim.go): co-allocation by claiming, as KOALA does it
//     without reservations: each component holds its processors until a
//     release file appears, a component that does not start is claimed
//     again, and the job gives up after its last try.
//
// The Slurm target (submitter/slurm) and the targets through grid
// middleware (submitter/ce) share parts.go and claim.go: what a part's
// state is, how it is submitted and cancelled, and what is said of it
// are each target's own.
//
// The contract itself (Target, Submission, Update, Reporter) is package
// submitter's; the runner imports this package, never the other way.
package target
