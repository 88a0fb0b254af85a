package gwa

import (
	"sync/atomic"

	"github.com/gmark/gmark/workload"
)

// tracePipe writes the records of a TraceSink's jobs to its GWF and SWF
// writers on a goroutine of its own, in batches, so that gmark generate
// formats the traces on one processor while it generates the jobs and
// writes workload.jsonl on another (writing SWF beside workload.jsonl cost
// more than generating the jobs). A record a format cannot hold is refused
// as it is added (the caller places the error at its job's unit); what the
// goroutine meets after (a write that fails) is returned by the next add
// and by close.
type tracePipe struct {
	gwf   *GWFWriter
	swf   *SWFWriter
	batch *recordBatch
	work  chan *recordBatch
	free  chan *recordBatch
	done  chan struct{}
	err   atomic.Pointer[error]
}

// recordBatch is the records of some jobs; ends[i] is where job i's end.
type recordBatch struct {
	recs []Record
	ends []int
}

// pipeBatch is how many records a batch holds before it is handed over;
// pipeBatches how many batches there are (one filled while the others are
// written).
const (
	pipeBatch   = 1024
	pipeBatches = 3
)

func newTracePipe(gwf *GWFWriter, swf *SWFWriter) *tracePipe {
	p := &tracePipe{gwf: gwf, swf: swf, work: make(chan *recordBatch, pipeBatches), free: make(chan *recordBatch, pipeBatches),
		done: make(chan struct{})}
	for i := 0; i < pipeBatches; i++ {
		p.free <- &recordBatch{recs: make([]Record, 0, pipeBatch+64)}
	}
	p.batch = <-p.free
	go p.run()
	return p
}

// add queues one job's records.
func (p *tracePipe) add(recs []Record) error {
	if e := p.err.Load(); e != nil {
		return *e
	}
	for i := range recs {
		if err := writable(&recs[i]); err != nil {
			return err
		}
	}
	p.batch.recs = append(p.batch.recs, recs...)
	p.queued()
	return nil
}

// addJob queues the records of a job, made in the batch (no copy of them
// made first), as add does.
func (p *tracePipe) addJob(j *workload.Job) error {
	if e := p.err.Load(); e != nil {
		return *e
	}
	b := p.batch
	start := len(b.recs)
	b.recs = AppendJobRecords(b.recs, j)
	for i := start; i < len(b.recs); i++ {
		if err := writable(&b.recs[i]); err != nil {
			clear(b.recs[start:])
			b.recs = b.recs[:start]
			return err
		}
	}
	p.queued()
	return nil
}

// queued ends the job just added to the batch, handing the batch on when
// it is full.
func (p *tracePipe) queued() {
	b := p.batch
	b.ends = append(b.ends, len(b.recs))
	if len(b.recs) >= pipeBatch {
		p.work <- b
		p.batch = <-p.free
	}
}

// close writes what is queued and waits for the goroutine; the writers
// are left to be flushed.
func (p *tracePipe) close() error {
	if len(p.batch.ends) > 0 {
		p.work <- p.batch
	}
	close(p.work)
	<-p.done
	if e := p.err.Load(); e != nil {
		return *e
	}
	return nil
}

func (p *tracePipe) run() {
	defer close(p.done)
	for b := range p.work {
		if p.err.Load() == nil {
			if err := p.write(b); err != nil {
				p.err.Store(&err)
			}
		}
		clear(b.recs) // no strings of jobs written kept alive
		b.recs, b.ends = b.recs[:0], b.ends[:0]
		p.free <- b
	}
}

// write writes a batch; its records were checked as they were added.
func (p *tracePipe) write(b *recordBatch) error {
	start := 0
	for _, end := range b.ends {
		for i := start; i < end; i++ {
			r := &b.recs[i]
			if p.gwf != nil {
				if err := p.gwf.write(r); err != nil {
					return err
				}
			}
			if p.swf != nil {
				if err := p.swf.write(r); err != nil {
					return err
				}
			}
		}
		if p.swf != nil {
			p.swf.ForgetJobIDs() // a workload's jobs name no other job's ids
		}
		start = end
	}
	return nil
}
