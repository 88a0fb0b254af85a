// Package gwa reads, analyses, selects and writes job traces: the Grid
// Workloads Archive's GWF (text and GWF-SQLite) and the Parallel Workloads
// Archive's SWF.
//
// Everything streams. A Reader returns one Record at a time, whatever the
// format (Open detects it, and reads gzip transparently); filters, scaling,
// mixing and area selection wrap Readers; the Analyzer and the bag-of-tasks
// extractor consume records one by one and keep bounded state (distributions
// are log-binned sketches, not value lists), so a trace of 10^7 jobs is
// analysed in the memory a trace of 10^5 jobs needs.
//
// Times are seconds. A record's SubmitTime is an offset from the trace's
// time base, Header.UnixStartTime (SWF's header key; GWF files holding
// absolute Unix times are normalized to offsets on reading, and the base is
// kept there). docs/trace.md describes the formats, the oddities the readers
// handle and the definitions of every analysis result.
package gwa
