package koalatarget

import (
	"bytes"
	"testing"
	"time"

	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
)

// The event-stream client reads whatever the server sends: it never
// panics, reports only the jobs it tracks, in states it knows, at times
// within range, and remembers the last sequence number it saw.
func FuzzEventStream(f *testing.F) {
	f.Add([]byte(": keep-alive\n\nid: 1\nevent: submitted\ndata: {\"seq\":1,\"time\":\"2026-11-23T22:08:53.694158555Z\",\"kind\":\"submitted\",\"job\":\"k1\",\"key\":\"r/1-0/1\"}\n\n"+
		"data: {\"seq\":2,\"time\":\"2026-11-23T22:08:54Z\",\"kind\":\"started\",\"job\":\"k1\",\"key\":\"r/1-0/1\",\"sites\":[\"A\"]}\n\n"+
		"data: {\"seq\":3,\"time\":\"2026-11-23T22:08:55Z\",\"kind\":\"finished\",\"job\":\"k1\",\"key\":\"r/1-0/1\"}\n\n"), 1.0)
	f.Add([]byte("data: {\"seq\":18446744073709551615,\"time\":\"0001-01-01T00:00:01Z\",\"kind\":\"failed\",\"key\":\"r/1-1/1\",\"reason\":\"x\"}\ndata: {\"seq\":-1}\ndata: not json\ndata: {\"kind\":\"placed\",\"key\":\"r/1-1/1\"}\n"), 300.0)
	f.Add([]byte("data: {\"seq\":4,\"time\":\"9999-12-31T23:59:59Z\",\"kind\":\"cancelled\",\"key\":\"other/1-0/1\"}\n"), 1e-9)
	f.Fuzz(func(t *testing.T, stream []byte, scale float64) {
		if !(scale > 0) || scale > 1e9 {
			return // Watch takes only a positive scale from the core
		}
		rep := newReporter()
		origin := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
		tg := &Target{jobs: map[string]*tracked{"r/1-0/1": {}, "r/1-1/1": {}}, rep: rep, scale: scale,
			origin: origin, wallOrigin: origin.Add(time.Hour)}
		var last uint64
		_, _ = tg.read(bytes.NewReader(stream), &last)
		rep.mu.Lock()
		defer rep.mu.Unlock()
		for key, us := range rep.updates {
			if tg.jobs[key] == nil {
				t.Fatalf("an update of %q, which is not tracked", key)
			}
			for _, u := range us {
				switch u.State {
				case submitter.Queued, submitter.Running, submitter.Succeeded, submitter.Failed, submitter.Cancelled:
				default:
					t.Fatalf("state %q", u.State)
				}
				for _, tm := range []time.Time{u.Time, u.Start, u.End} {
					if !tm.IsZero() && target.UnixSeconds(tm.Unix()) == 0 {
						t.Fatalf("time %v out of range in %+v", tm, u)
					}
				}
				if u.Time.IsZero() {
					t.Fatalf("an update without a time: %+v", u)
				}
			}
		}
	})
}
