package slurm

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"time"

	"github.com/gmark/gmark/internal/slurmcli"
)

// activeStates are the job states squeue is asked for at each poll: those
// gmark does not take as final, and NODE_FAIL, which a job Slurm requeues
// passes through (slurmcli.Record.Class).
const activeStates = "PD,CF,RQ,RH,RF,RD,R,CG,SI,SO,S,RS,ST,NF"

// compTail is what the poller has read of a cluster's job completion log:
// where it stopped (the end of the last whole line), the file it read (a
// log replaced or cut is read again from its start), and the records read
// of the target's jobs not final yet (the log is written at a job's end,
// the poller may read it while squeue still lists the job): a run reads
// each line of the log once, and keeps only its own jobs' lines.
type compTail struct {
	file os.FileInfo
	off  int64
	recs map[int64]*slurmcli.Record   // by job id
	het  map[int64][]*slurmcli.Record // the other components of a heterogeneous job, by its leader's id
}

// forget drops what the tail keeps of a job that is final.
func (c *compTail) forget(id int64) {
	delete(c.recs, id)
	delete(c.het, id)
}

// jobCompTail reads what the cluster's job completion log has gained since
// the last poll, keeps the records of the jobs in ours, and returns every
// record it keeps (nil when the cluster has no log gmark can read).
func (t *Target) jobCompTail(ctx context.Context, c *cluster, ours map[int64]bool) (map[int64]*slurmcli.Record, map[int64][]*slurmcli.Record) {
	if _, ok := t.jobCompPath(ctx, c); !ok {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	tl := &c.tail
	if tl.recs == nil {
		tl.recs, tl.het = map[int64]*slurmcli.Record{}, map[int64][]*slurmcli.Record{}
	}
	f, err := os.Open(c.jobcomp)
	if err != nil {
		return tl.recs, tl.het
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return tl.recs, tl.het
	}
	if tl.file == nil || !os.SameFile(tl.file, fi) || fi.Size() < tl.off {
		tl.off = 0 // a new log (rotated, replaced) or one cut short
	}
	tl.file = fi
	// Line by line from where the last read stopped, to the end of the last
	// whole line: a line being written is read next time.
	sc := bufio.NewScanner(io.NewSectionReader(f, tl.off, fi.Size()-tl.off))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			return i + 1, data[:i], nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		tl.off += int64(len(sc.Bytes())) + 1
		r, ok := slurmcli.ParseJobCompLine(sc.Bytes(), time.Local)
		switch {
		case !ok:
		case r.HetJobID != 0 && r.HetOff != 0:
			if ours[r.HetJobID] {
				tl.het[r.HetJobID] = append(tl.het[r.HetJobID], &r)
			}
		case ours[r.ID]:
			tl.recs[r.ID] = &r // a later line (a requeued job's next end) replaces an earlier one
		}
	}
	return tl.recs, tl.het
}

// skipOldLog starts the poller's reading of the cluster's job completion
// log at its end: what it holds was written before this run started (a
// resumed run's jobs that had ended are found whole, by Find).
func (t *Target) skipOldLog(ctx context.Context, c *cluster) {
	path, ok := t.jobCompPath(ctx, c)
	if !ok {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	c.mu.Lock()
	c.tail.file, c.tail.off = fi, fi.Size()
	c.mu.Unlock()
}

// jobCompPath is where the cluster's job completion log is, when it is a
// local text file.
func (t *Target) jobCompPath(ctx context.Context, c *cluster) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.jobcompKnown {
		out, err := t.run(ctx, c, "scontrol", "show", "config")
		if err != nil {
			return "", false
		}
		conf := slurmcli.ParseConfig(out)
		if conf["JobCompType"] == "jobcomp/filetxt" {
			c.jobcomp = conf["JobCompLoc"]
		}
		c.jobcompKnown = true
	}
	return c.jobcomp, c.jobcomp != ""
}
