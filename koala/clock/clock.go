// Package clock gives the scheduler's live driver its time. The core itself
// never reads a clock: the driver asks a Clock for the time and hands it to
// the core. A scaled clock runs faster than the wall clock, so that a
// two-hour workload of emulated jobs runs in minutes.
package clock

import (
	"sync"
	"time"
)

// Clock is the time source of a driver.
type Clock interface {
	// Now is the current (core) time.
	Now() time.Time
	// Wall converts a core duration into the wall-clock time to wait for it.
	Wall(d time.Duration) time.Duration
}

// Scaled runs Scale times faster than the wall clock from an origin: core
// time = Origin + Scale x (wall time since WallOrigin). Scale 1 is real time.
type Scaled struct {
	Origin     time.Time
	WallOrigin time.Time
	Scale      float64
	now        func() time.Time // the wall clock; time.Now unless a test sets it
}

// NewScaled starts a clock at origin (core time) now.
func NewScaled(origin time.Time, scale float64) *Scaled {
	return &Scaled{Origin: origin, WallOrigin: time.Now(), Scale: scale, now: time.Now}
}

// NewReal is the wall clock as a Scaled clock of scale 1 whose core time is
// the wall time (one instant for both origins, so converting is exact).
func NewReal() *Scaled {
	now := time.Now()
	return &Scaled{Origin: now, WallOrigin: now, Scale: 1, now: time.Now}
}

// Now implements Clock.
func (s *Scaled) Now() time.Time {
	wall := s.now().Sub(s.WallOrigin)
	return s.Origin.Add(time.Duration(float64(wall) * s.Scale))
}

// Wall implements Clock.
func (s *Scaled) Wall(d time.Duration) time.Duration {
	return time.Duration(float64(d) / s.Scale)
}

// Fake is a clock moved by hand, for tests of drivers.
type Fake struct {
	mu sync.Mutex
	t  time.Time
}

// NewFake starts a fake clock at t.
func NewFake(t time.Time) *Fake { return &Fake{t: t} }

// Now implements Clock.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

// Set moves the clock (never back).
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.After(f.t) {
		f.t = t
	}
}

// Wall implements Clock: a fake clock does not move by itself, so drivers
// poll it briefly.
func (f *Fake) Wall(time.Duration) time.Duration { return time.Millisecond }
