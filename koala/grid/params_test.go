package grid

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

const paramsGrid = `name = "g"
[scheduler]
policy = "CF"
scan_interval = "30s"
[[cluster]]
name = "a"
processors = 8
`

// Params holds every setting of the scheduler section, by its TOML key,
// with the defaults in: none is forgotten when one is added.
func TestParamsNameEverySetting(t *testing.T) {
	g, err := Parse("g.toml", []byte(paramsGrid))
	if err != nil {
		t.Fatal(err)
	}
	p := g.Scheduler.Params()
	if n := reflect.TypeOf(Scheduler{}).NumField(); len(p) != n {
		t.Errorf("%d params for %d settings: %v", len(p), n, p)
	}
	want := map[string]any{"policy": "CF", "scan_interval": "30s", "claim_l": 0.75, "claim_threshold": 1.0,
		"place_on_submit": true, "time_scale": 1.0, "max_restarts": 10, "max_output": int64(DefaultMaxOutput), "execution": "emulated"}
	for k, v := range want {
		if !reflect.DeepEqual(p[k], v) {
			t.Errorf("%s = %#v, want %#v", k, p[k], v)
		}
	}
	if _, err := json.Marshal(p); err != nil {
		t.Error(err)
	}
}

func TestApplyOverrides(t *testing.T) {
	policy, scale, zero, neg, tiny := "WF", 50.0, 0.0, -time.Second, time.Millisecond
	scan := 2 * time.Second
	for _, c := range []struct {
		name string
		o    Overrides
		err  string // "" for none
	}{
		{"none", Overrides{}, ""},
		{"all", Overrides{Policy: &policy, TimeScale: &scale, ScanInterval: &scan}, ""},
		{"zero time scale", Overrides{TimeScale: &zero}, "--time-scale must be > 0"},
		{"negative scan interval", Overrides{ScanInterval: &neg}, "--scan-interval must be > 0"},
		{"scan interval out of range", Overrides{ScanInterval: &tiny}, "with the command line's settings: scheduler.scan_interval"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Parse("g.toml", []byte(paramsGrid))
			if err != nil {
				t.Fatal(err)
			}
			err = g.Apply(c.o)
			if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
				t.Fatalf("Apply: %v, want %q", err, c.err)
			}
			if c.name == "all" && (g.Scheduler.Policy != "WF" || g.Scheduler.TimeScale != 50 || g.Scheduler.ScanInterval.Duration != scan) {
				t.Errorf("not applied: %+v", g.Scheduler)
			}
		})
	}
}
