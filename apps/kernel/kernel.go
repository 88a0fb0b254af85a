// Package kernel is the computation of GrenchMark's synthetic applications:
// N supersteps over M memory items of S float64 elements each, where every
// superstep sweeps each item C times with a multiply-add. Its cost is
// N × items × S × C element updates, each a load, a multiply, an add and a
// store, so the work is real arithmetic on real memory.
//
// The parameter sets go up to 5 million items of 1000 elements (40 GB), far
// more than a shared machine can give one job. So memory is capped: the
// kernel allocates at most MaxBytes, rounded down to whole items, and maps
// the logical items onto the allocated slots cyclically (item k uses slot
// k mod slots). Every logical element update is still performed; only the
// amount of distinct memory touched is bounded.
package kernel

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"
)

// The update x ← a·x + b has the fixed point b/(1−a) = 1: values stay
// finite and normal (never denormal, which would make some processors
// slow down by orders of magnitude) whatever the number of sweeps.
const (
	mulA = 1 - 1.0/(1<<20)
	addB = 1.0 / (1 << 20)
)

// DefaultMaxBytes is the memory cap when Params.MaxBytes is 0.
const DefaultMaxBytes = 128 << 20

// Params sizes a Memory.
type Params struct {
	Items    int64 // logical memory items (the applications' M × 1000)
	Elements int   // float64 elements per item (S)
	Compute  int   // sweeps per item per superstep (C)
	MaxBytes int64 // cap on allocated memory; 0 means DefaultMaxBytes
	// Seed varies the initial values (the processes of a parallel job use
	// their rank), so that what a process receives from its peers differs
	// from what it has and really changes its computation.
	Seed int64
}

// Memory is the state of one process's computation.
type Memory struct {
	p     Params
	buf   []float64
	slots int64 // items that fit in buf
	// check is how many items to process between looks at the stop flag:
	// about 64K element updates, so stopping is prompt and the look is cheap.
	check int64
}

// New allocates and initialises the memory. Every allocated element is
// written once, so the pages are really committed.
func New(p Params) (*Memory, error) {
	if p.Items < 0 || p.Elements < 0 || p.Compute < 0 {
		return nil, fmt.Errorf("kernel: negative size %+v", p)
	}
	if _, err := UpdatesPerSuperstep(p); err != nil {
		return nil, err
	}
	if p.MaxBytes == 0 {
		p.MaxBytes = DefaultMaxBytes
	}
	m := &Memory{p: p}
	if p.Items == 0 || p.Elements == 0 {
		return m, nil
	}
	itemBytes := int64(p.Elements) * 8
	m.slots = min(p.Items, max(1, p.MaxBytes/itemBytes))
	m.buf = make([]float64, m.slots*int64(p.Elements))
	shift := int(p.Seed % 1024)
	for i := range m.buf {
		m.buf[i] = float64((i+shift*37)&1023) / 1024
	}
	perItem := max(1, int64(p.Elements)*int64(p.Compute))
	m.check = max(1, (1<<16)/perItem)
	return m, nil
}

// UpdatesPerSuperstep is Items × Elements × Compute, or an error when that
// does not fit in an int64 (no machine could run it anyway).
func UpdatesPerSuperstep(p Params) (int64, error) {
	hi, lo := bits.Mul64(uint64(p.Items), uint64(p.Elements))
	if hi == 0 {
		hi, lo = bits.Mul64(lo, uint64(p.Compute))
	}
	if hi != 0 || lo > math.MaxInt64 {
		return 0, errors.New("memory × elements × compute is too large")
	}
	return int64(lo), nil
}

// Bytes is the memory allocated.
func (m *Memory) Bytes() int64 { return int64(len(m.buf)) * 8 }

// Len is the number of elements allocated.
func (m *Memory) Len() int { return len(m.buf) }

// Slots is the number of items allocated (≤ Items).
func (m *Memory) Slots() int64 { return m.slots }

// Superstep sweeps every logical item Compute times. It returns the element
// updates done and the sum of the items' final values (fold it into a
// checksum: that is what keeps the work from being optimised away). When
// stop becomes true it returns early with complete == false.
func (m *Memory) Superstep(stop *atomic.Bool) (updates int64, sum float64, complete bool) {
	s := m.p.Elements
	if len(m.buf) == 0 || m.p.Compute == 0 {
		return 0, 0, true
	}
	perItem := int64(s) * int64(m.p.Compute)
	var slot int64
	for k := int64(0); k < m.p.Items; k++ {
		if k%m.check == 0 && stop != nil && stop.Load() {
			return k * perItem, sum, false
		}
		off := slot * int64(s)
		sum += UpdateItem(m.buf[off:off+int64(s):off+int64(s)], m.p.Compute)
		if slot++; slot == m.slots {
			slot = 0
		}
	}
	return m.p.Items * perItem, sum, true
}

// UpdateItem sweeps item compute times with x ← a·x + b and returns the sum
// of the final values. compute ≥ 1. This is the measured kernel: one
// element update per element per sweep.
func UpdateItem(item []float64, compute int) float64 {
	for c := 1; c < compute; c++ {
		for i := range item {
			item[i] = item[i]*mulA + addB
		}
	}
	var sum float64
	for i := range item {
		v := item[i]*mulA + addB
		item[i] = v
		sum += v
	}
	return sum
}

// Window copies len(dst) elements starting at element off (cyclically) into
// dst: the data a parallel process sends. With no memory it sends zeros.
func (m *Memory) Window(off int64, dst []float64) {
	n := int64(len(m.buf))
	if n == 0 {
		clear(dst)
		return
	}
	j := off % n
	for i := range dst {
		dst[i] = m.buf[j]
		if j++; j == n {
			j = 0
		}
	}
}

// Mix folds received elements into memory starting at element off
// (cyclically), averaging, so that what peers sent changes what this
// process computes next.
func (m *Memory) Mix(off int64, src []float64) {
	n := int64(len(m.buf))
	if n == 0 {
		return
	}
	j := off % n
	for _, v := range src {
		m.buf[j] = (m.buf[j] + v) * 0.5
		if j++; j == n {
			j = 0
		}
	}
}

// FoldBytes folds input bytes into memory starting at element off
// (cyclically) and returns the next offset: how an input file's content
// becomes part of the computation.
func (m *Memory) FoldBytes(off int64, p []byte) int64 {
	n := int64(len(m.buf))
	if n == 0 {
		return off
	}
	j := off % n
	for _, b := range p {
		m.buf[j] = m.buf[j]*0.5 + float64(b)/512
		if j++; j == n {
			j = 0
		}
	}
	return j
}

// Fill writes memory's elements (cyclically from element off, as
// little-endian float64 bits) into p and returns the next offset: how
// output files get their content. With no memory it writes a counter.
func (m *Memory) Fill(off int64, p []byte) int64 {
	n := int64(len(m.buf))
	var word [8]byte
	for len(p) > 0 {
		var v uint64
		if n == 0 {
			v = uint64(off)
		} else {
			v = math.Float64bits(m.buf[off%n])
		}
		binary.LittleEndian.PutUint64(word[:], v)
		k := copy(p, word[:])
		p = p[k:]
		off++
	}
	if n != 0 {
		off %= n
	}
	return off
}
