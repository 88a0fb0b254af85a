// Package gwa reads, analyses, selects and writes job traces: the Grid
// Workloads Archive's GWF (text and GWF-SQLite) and the Parallel Workloads
// Archive's SWF.
//
// Reading streams. A Reader returns one Record at a time, whatever the
// format (Open detects it, and reads gzip transparently); filters, scaling,
// mixing and area selection wrap Readers. Every figure is a function of the
// set of jobs, not of the order of the lines: the Analyzer keeps each job's
// times and the distributions' values within a memory budget (ExactBudget),
// so that its percentiles are exact, and bounded state past it (log-binned
// sketches); selections, replays and bags-of-tasks read a trace through
// InSubmitOrder, which sorts what it holds.
//
// Times are seconds. A record's SubmitTime is an offset from the trace's
// time base, Header.UnixStartTime (SWF's header key; GWF files holding
// absolute Unix times are normalized to offsets on reading, and the base is
// kept there). docs/trace.md describes the formats, the oddities the readers
// handle and the definitions of every analysis result.
package gwa
