package clock

import (
	"testing"
	"time"
)

func TestScaled(t *testing.T) {
	wall := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	origin := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &Scaled{Origin: origin, WallOrigin: wall, Scale: 60, now: func() time.Time { return wall.Add(2 * time.Second) }}
	if got := c.Now(); !got.Equal(origin.Add(2 * time.Minute)) {
		t.Errorf("2 wall seconds at 60x = %v of core time, want 2m", got.Sub(origin))
	}
	if w := c.Wall(time.Minute); w != time.Second {
		t.Errorf("a core minute takes %v of wall time at 60x", w)
	}
}

func TestFakeNeverGoesBack(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := NewFake(t0)
	f.Set(t0.Add(time.Hour))
	f.Set(t0)
	if !f.Now().Equal(t0.Add(time.Hour)) {
		t.Errorf("fake clock went back to %v", f.Now())
	}
}
