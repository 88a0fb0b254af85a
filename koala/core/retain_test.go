package core

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// A sink that takes only some kinds of events (KindFilter) gets exactly
// the events of those kinds of the full stream, numbered as there; and a
// core that drops its jobs as they end (Forget) emits the same stream and
// hands every job that ends, as it ended, to its function once.
func TestFilteredAndForgetfulCoresChangeNothing(t *testing.T) {
	full := mixedRun(t, mixedOptions{cache: true})
	only := func(kinds ...EventKind) func(EventKind) bool {
		return func(k EventKind) bool {
			for _, x := range kinds {
				if k == x {
					return true
				}
			}
			return false
		}
	}
	for _, c := range []struct {
		name   string
		takes  func(EventKind) bool
		forget bool
	}{
		{"every kind", func(EventKind) bool { return true }, false},
		{"no kind", func(EventKind) bool { return false }, false},
		{"starts and ends", only(EvSubmitted, EvStarted, EvFinished, EvFailed, EvCancelled), false},
		{"the placement tries only", only(EvPlacementTry, EvPlacementFailed), false},
		{"all but the tries", func(k EventKind) bool { return k != EvPlacementTry && k != EvPlacementFailed }, false},
		{"forget", nil, true},
		{"forget, starts and ends", only(EvSubmitted, EvStarted, EvFinished, EvFailed), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := mixedRun(t, mixedOptions{cache: true, takes: c.takes, forget: c.forget})
			want := full.events
			if c.takes != nil {
				want = kindsOf(t, full.events, c.takes)
			}
			sameLines(t, "events", got.events, want)
			sameLines(t, "jobs", got.jobs, full.jobs)
			ended := strings.Count(full.events, `"kind":"finished"`) + strings.Count(full.events, `"kind":"failed"`) +
				strings.Count(full.events, `"kind":"cancelled"`)
			if c.forget && (got.ended != ended || ended < 100) {
				t.Errorf("%d jobs given to Forget's function, %d ended", got.ended, ended)
			}
		})
	}
}

// kindsOf keeps the events of the kinds takes takes, of JSON lines.
func kindsOf(t *testing.T, events string, takes func(EventKind) bool) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(events, "\n") {
		if line == "" {
			continue
		}
		var e struct{ Kind EventKind }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if takes(e.Kind) {
			b.WriteString(line)
		}
	}
	return b.String()
}

// eventKinds lists every kind events.go declares: a kind left out would
// reach every filtering sink whatever it takes.
func TestEventKindsListsEveryKind(t *testing.T) {
	src, err := os.ReadFile("events.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := regexp.MustCompile(`(?m)^\s+(Ev\w+)\s+EventKind = "(\w+)"`).FindAllStringSubmatch(string(src), -1)
	listed := map[EventKind]bool{}
	for _, k := range eventKinds {
		if listed[k] {
			t.Errorf("%s is listed twice", k)
		}
		listed[k] = true
	}
	if len(declared) < 20 || len(declared) != len(listed) {
		t.Errorf("%d kinds declared, %d listed", len(declared), len(listed))
	}
	for _, d := range declared {
		if !listed[EventKind(d[2])] {
			t.Errorf("%s (%q) is not in eventKinds", d[1], d[2])
		}
	}
}
