// Package gwa reads and writes job traces: the Grid Workloads Archive's GWF
// (text and SQLite) and the Parallel Workloads Archive's SWF.
package gwa

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Missing is the value of an unknown numeric field in both formats.
const Missing = -1

// Record is one job of a trace: the 29 fields of GWF, of which fields 1-16
// are SWF's, plus SWF's own fields 17 and 18. Numeric fields hold Missing
// (-1) when unknown; string fields hold "-1".
type Record struct {
	JobID              string
	SubmitTime         float64 // seconds
	WaitTime           float64
	RunTime            float64
	NProcs             float64 // allocated processors
	AvgCPUTimeUsed     float64
	UsedMemory         float64 // KB per processor
	ReqNProcs          float64
	ReqTime            float64
	ReqMemory          float64
	Status             int // 1 completed, 0 failed, 5 cancelled; -1 unknown
	UserID             string
	GroupID            string
	ExecutableID       string
	QueueID            string
	PartitionID        string
	OrigSiteID         string // GWF 17: submission site
	LastRunSiteID      string // GWF 18: execution site
	JobStructure       string // GWF 19: UNITARY or BoT
	JobStructureParams string // GWF 20: for BoT, the batch id
	UsedNetwork        float64
	UsedLocalDiskSpace float64
	UsedResources      string
	ReqPlatform        string
	ReqNetwork         float64
	ReqLocalDiskSpace  float64
	ReqResources       string
	VOID               string
	ProjectID          string
	PrecedingJob       string  // SWF 17
	ThinkTime          float64 // SWF 18
}

// NewRecord returns a record with every field missing.
func NewRecord() Record {
	s := strconv.Itoa(Missing)
	return Record{JobID: s, SubmitTime: Missing, WaitTime: Missing, RunTime: Missing, NProcs: Missing,
		AvgCPUTimeUsed: Missing, UsedMemory: Missing, ReqNProcs: Missing, ReqTime: Missing, ReqMemory: Missing,
		Status: Missing, UserID: s, GroupID: s, ExecutableID: s, QueueID: s, PartitionID: s, OrigSiteID: s,
		LastRunSiteID: s, JobStructure: s, JobStructureParams: s, UsedNetwork: Missing, UsedLocalDiskSpace: Missing,
		UsedResources: s, ReqPlatform: s, ReqNetwork: Missing, ReqLocalDiskSpace: Missing, ReqResources: s,
		VOID: s, ProjectID: s, PrecedingJob: s, ThinkTime: Missing}
}

// GWFFields are the GWF text header names, in order.
var GWFFields = []string{"JobID", "SubmitTime", "WaitTime", "RunTime", "NProcs", "AverageCPUTimeUsed",
	"Used Memory", "ReqNProcs", "ReqTime", "ReqMemory", "Status", "UserID", "GroupID", "ExecutableID",
	"QueueID", "PartitionID", "OrigSiteID", "LastRunSiteID", "JobStructure", "JobStructureParams",
	"UsedNetwork", "UsedLocalDiskSpace", "UsedResources", "ReqPlatform", "ReqNetwork", "ReqLocalDiskSpace",
	"ReqResources", "VOID", "ProjectID"}

func appendNum(b []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// word makes a string field safe for whitespace-separated formats.
func word(s string) string {
	if s == "" {
		return "-1"
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return '_'
			}
			return r
		}, s)
	}
	return s
}

// GWFWriter writes GWF text: a '#' header naming the fields, then one
// tab-separated line per record.
type GWFWriter struct {
	w   *bufio.Writer
	buf []byte
}

// NewGWFWriter writes the header; comments are extra header lines.
func NewGWFWriter(w io.Writer, comments ...string) (*GWFWriter, error) {
	bw := bufio.NewWriter(w)
	for _, c := range comments {
		fmt.Fprintf(bw, "# %s\n", c)
	}
	fmt.Fprintf(bw, "# %s\n", strings.Join(GWFFields, "\t"))
	return &GWFWriter{w: bw}, nil
}

// Write appends one record.
func (g *GWFWriter) Write(r *Record) error {
	b := g.buf[:0]
	b = append(b, word(r.JobID)...)
	for _, v := range []float64{r.SubmitTime, r.WaitTime, r.RunTime, r.NProcs, r.AvgCPUTimeUsed, r.UsedMemory, r.ReqNProcs, r.ReqTime, r.ReqMemory} {
		b = append(b, '\t')
		b = appendNum(b, v)
	}
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(r.Status), 10)
	for _, s := range []string{r.UserID, r.GroupID, r.ExecutableID, r.QueueID, r.PartitionID, r.OrigSiteID, r.LastRunSiteID, r.JobStructure, r.JobStructureParams} {
		b = append(b, '\t')
		b = append(b, word(s)...)
	}
	for _, v := range []float64{r.UsedNetwork, r.UsedLocalDiskSpace} {
		b = append(b, '\t')
		b = appendNum(b, v)
	}
	b = append(b, '\t')
	b = append(b, word(r.UsedResources)...)
	b = append(b, '\t')
	b = append(b, word(r.ReqPlatform)...)
	for _, v := range []float64{r.ReqNetwork, r.ReqLocalDiskSpace} {
		b = append(b, '\t')
		b = appendNum(b, v)
	}
	for _, s := range []string{r.ReqResources, r.VOID, r.ProjectID} {
		b = append(b, '\t')
		b = append(b, word(s)...)
	}
	b = append(b, '\n')
	g.buf = b
	_, err := g.w.Write(b)
	return err
}

// Flush writes buffered data.
func (g *GWFWriter) Flush() error { return g.w.Flush() }

// SWFWriter writes SWF: a ';' header, then 18 whitespace-separated numeric
// fields per record. SWF identifiers are integers: string identifiers
// (users, groups, executables, queues, partitions, job ids) are numbered in
// order of first appearance, from 1, and the numbering is written as header
// comments so it can be reversed.
type SWFWriter struct {
	w    *bufio.Writer
	buf  []byte
	ids  [6]map[string]int // job, user, group, executable, queue, partition
	maps [6][]string
}

var swfIDKinds = [6]string{"Job", "User", "Group", "Executable", "Queue", "Partition"}

// NewSWFWriter writes the header lines (each prefixed with "; ").
func NewSWFWriter(w io.Writer, header ...string) (*SWFWriter, error) {
	s := &SWFWriter{w: bufio.NewWriter(w)}
	for i := range s.ids {
		s.ids[i] = map[string]int{}
	}
	fmt.Fprintf(s.w, "; Version: 2.2\n")
	for _, h := range header {
		fmt.Fprintf(s.w, "; %s\n", h)
	}
	return s, nil
}

func (s *SWFWriter) id(kind int, v string) int {
	if v == "" || v == "-1" {
		return Missing
	}
	if n, ok := s.ids[kind][v]; ok {
		return n
	}
	n := len(s.ids[kind]) + 1
	s.ids[kind][v] = n
	s.maps[kind] = append(s.maps[kind], v)
	return n
}

// Write appends one record.
func (s *SWFWriter) Write(r *Record) error {
	b := s.buf[:0]
	b = strconv.AppendInt(b, int64(s.id(0, r.JobID)), 10)
	for _, v := range []float64{r.SubmitTime, r.WaitTime, r.RunTime, r.NProcs, r.AvgCPUTimeUsed, r.UsedMemory, r.ReqNProcs, r.ReqTime, r.ReqMemory} {
		b = append(b, ' ')
		b = appendNum(b, v)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(r.Status), 10)
	for k, v := range []string{r.UserID, r.GroupID, r.ExecutableID, r.QueueID, r.PartitionID} {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(s.id(k+1, v)), 10)
	}
	b = append(b, ' ')
	prec := Missing
	if n, ok := s.ids[0][r.PrecedingJob]; ok {
		prec = n
	}
	b = strconv.AppendInt(b, int64(prec), 10)
	b = append(b, ' ')
	b = appendNum(b, r.ThinkTime)
	b = append(b, '\n')
	s.buf = b
	_, err := s.w.Write(b)
	return err
}

// Flush writes the identifier tables as trailing comments, then buffered data.
func (s *SWFWriter) Flush() error {
	for k, m := range s.maps {
		for i, v := range m {
			fmt.Fprintf(s.w, "; gmark-%s: %d %s\n", strings.ToLower(swfIDKinds[k]), i+1, word(v))
		}
	}
	return s.w.Flush()
}
