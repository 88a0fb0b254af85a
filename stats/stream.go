// Package stats provides gmark's random streams, its probability
// distributions (sample, density, CDF, quantile) and, on top of gonum, the
// statistics the other packages need.
package stats

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mathext/prng"
)

// NewStream returns the random stream for one purpose of one unit of a
// workload. Every draw gmark makes comes from such a stream, so that adding a
// unit, or drawing more from one purpose, never changes the numbers another
// unit or purpose sees.
//
// The generator is MT19937, as in GrenchMark's reference implementation (its
// thesis appendix validates it); it is seeded with all 256 bits of
// SHA-256("gmark" | seed | unit | purpose), so nearby seeds and units give
// unrelated streams.
func NewStream(seed uint64, unit int, purpose string) *rand.Rand {
	h := sha256.New()
	var buf [8]byte
	h.Write([]byte("gmark\x00"))
	binary.LittleEndian.PutUint64(buf[:], seed)
	h.Write(buf[:])
	h.Write([]byte(strconv.Itoa(unit)))
	h.Write([]byte{0})
	h.Write([]byte(purpose))
	sum := h.Sum(nil)
	keys := make([]uint32, len(sum)/4)
	for i := range keys {
		keys[i] = binary.LittleEndian.Uint32(sum[4*i:])
	}
	src := prng.NewMT19937()
	src.SeedFromKeys(keys)
	return rand.New(src)
}
