package apps

import (
	"fmt"
	"math"
	"time"

	"github.com/gmark/gmark/apps/kernel"
)

func init() {
	register(&app{
		name:  "sser",
		short: "sequential synthetic application: supersteps of computation on memory",
		long: `Each of N supersteps sweeps every one of M×1000 memory items of S float64
elements C times with a multiply-add: N × M×1000 × S × C element updates in all
(0.5 to 1.5 ns each on one core; see docs/apps.md). Memory is capped by --max-memory:
beyond it, items reuse the allocated memory cyclically, so every update still
happens but at most that much memory is touched. Prints one "gmark-step" record
per superstep.`,
		define: func(fs *flagSet) instance {
			var p bspParams
			p.define(fs)
			return instance{run: func(r *runner) error {
				mem, err := p.memory(r)
				if err != nil {
					return err
				}
				s := &stepper{r: r, p: p, mem: mem}
				return s.run()
			}, work: func(int) Work { return p.work() }}
		},
	})
}

// bspParams are the parameters of GrenchMark's bulk-synchronous
// applications (sser, sserio, smpi).
type bspParams struct {
	supersteps, items, elements, compute int64
	maxMemory                            int64
}

const maxParam = math.MaxInt32

func (p *bspParams) define(fs *flagSet) {
	fs.Int(&p.supersteps, "supersteps", "N", 10, 1, maxParam, "number of supersteps N")
	fs.Int(&p.items, "memory", "M", 100, 1, maxParam, "memory items, in thousands: M×1000 items")
	fs.Int(&p.elements, "elements", "S", 10, 1, maxParam, "float64 elements per memory item S")
	fs.Int(&p.compute, "compute", "C", 10, 1, maxParam, "computation per memory item C: sweeps over each item per superstep")
	fs.Size(&p.maxMemory, "max-memory", kernel.DefaultMaxBytes, 8, "cap on the memory allocated; items beyond it reuse memory cyclically")
}

// memory allocates the application's memory; sizes whose product overflows
// are usage errors.
func (p *bspParams) memory(r *runner) (*kernel.Memory, error) {
	kp := kernel.Params{Items: p.items * 1000, Elements: int(p.elements), Compute: int(p.compute),
		MaxBytes: p.maxMemory, Seed: int64(r.env.Rank)}
	perStep, err := kernel.UpdatesPerSuperstep(kp)
	if err == nil && perStep > math.MaxInt64/p.supersteps {
		err = fmt.Errorf("--supersteps × --memory × 1000 × --elements × --compute is too large")
	}
	if err != nil {
		return nil, &UsageError{App: r.app, Msg: fmt.Sprintf("%v: %d × %d×1000 × %d × %d element updates", err, p.supersteps, p.items, p.elements, p.compute)}
	}
	mem, err := kernel.New(kp)
	if err != nil {
		return nil, err
	}
	r.sum.Set("supersteps", int64(0)).Set("supersteps_requested", p.supersteps).
		Set("memory", p.items).Set("elements", p.elements).Set("compute", p.compute).
		Set("memory_bytes", mem.Bytes()).Set("element_updates", int64(0)).Set("checksum", 0.0)
	r.logf("%d supersteps of %d element updates on %d bytes of memory", p.supersteps, perStep, mem.Bytes())
	return mem, nil
}

// stepper runs the supersteps: compute, then (for smpi) exchange, then a
// record. It keeps the summary current, so that a run stopped half-way
// reports what it did.
type stepper struct {
	r   *runner
	p   bspParams
	mem *kernel.Memory
	// exchange, when set, runs after each superstep's computation and
	// returns the elements sent and received.
	exchange func(step int) (sent, received int64, err error)
	// interrupted, when set, explains a superstep cut short better than the
	// walltime or a signal can (smpi: a lost peer).
	interrupted func() error

	updates                     int64
	checksum                    float64
	sent, received              int64
	computeTotal, exchangeTotal float64 // seconds
}

func (s *stepper) run() error {
	r := s.r
	for step := int64(1); step <= s.p.supersteps; step++ {
		t0 := time.Now()
		u, sum, complete := s.mem.Superstep(r.stop)
		s.updates += u
		s.checksum += sum
		s.computeTotal += time.Since(t0).Seconds()
		r.sum.Set("element_updates", s.updates).Set("checksum", s.checksum).Set("compute_s", s.computeTotal)
		if !complete {
			if s.interrupted != nil {
				if err := s.interrupted(); err != nil {
					return err
				}
			}
			return stopped("during superstep %d of %d", step, s.p.supersteps)
		}
		computeS := time.Since(t0).Seconds()
		var sent, recv int64
		var exchangeS float64
		if s.exchange != nil {
			t1 := time.Now()
			var err error
			sent, recv, err = s.exchange(int(step))
			exchangeS = time.Since(t1).Seconds()
			s.exchangeTotal += exchangeS
			if err != nil {
				return err
			}
			s.sent += sent
			s.received += recv
		}
		r.sum.Set("supersteps", step)
		r.out.Write(r.record("step").Int("step", step).Int("of", s.p.supersteps).
			Float("compute_s", computeS).Float("exchange_s", exchangeS).
			Int("updates", u).Int("sent", sent).Int("received", recv))
	}
	return nil
}
