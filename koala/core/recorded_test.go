package core

import (
	"encoding/json"
	"testing"

	"github.com/gmark/gmark/record"
)

// The core's utilization is recorded (the koala-utilization annotation)
// with the grid's figures first, in the run record's fields and order,
// then the clusters; the report decodes the same bytes into the run
// record's struct, every field kept.
func TestUtilizationAsRecorded(t *testing.T) {
	u := UtilizationSummary{CoreUtilization: record.CoreUtilization{Seconds: 10, Background: 0.125, Grid: 0.25, Wasted: 0.0625,
		Gained: 0.5, Total: 0.4375, Stacked: 0.9375}, Clusters: map[string]Utilization{"a": {Grid: 0.25, Up: true}}}
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"seconds":10,"background":0.125,"grid":0.25,"wasted":0.0625,"gained":0.5,"total":0.4375,"stacked":0.9375,` +
		`"clusters":{"a":{"background":0,"grid":0.25,"wasted":0,"gained":0,"up":true}}}`
	if string(b) != want {
		t.Fatalf("recorded as\n%s\nwant\n%s", b, want)
	}
	var back record.CoreUtilization
	if err := json.Unmarshal(b, &back); err != nil || back != u.CoreUtilization {
		t.Fatalf("read back %+v (%v), want %+v", back, err, u.CoreUtilization)
	}
}
