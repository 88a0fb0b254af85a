package submitter

import (
	"github.com/gmark/gmark/record"
)

// jobSource streams the workload's top-level jobs to the dispatcher, in
// file order, each with its index, and holds the one it read ahead.
type jobSource struct {
	*record.Jobs
	held *top // read ahead by the dispatcher, not yet due
}

// stream starts reading the workload again from its first job.
func (r *Runner) stream() (*jobSource, error) {
	jobs, err := r.w.Stream()
	if err != nil {
		return nil, err
	}
	return &jobSource{Jobs: jobs}, nil
}

// bitset is a set of job indexes, one bit each.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }
