package generator

import (
	"os"
	"strings"
	"testing"

	"github.com/gmark/gmark/stats"
)

// docs/wdl.md documents every distribution, application parameter and DAG
// structure the code knows; this keeps the two from drifting apart.
func TestWDLDocCoversRegistries(t *testing.T) {
	b, err := os.ReadFile("../docs/wdl.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var want []string
	for _, f := range stats.Families() {
		want = append(want, "`"+f.Name)
	}
	for _, a := range appSpecs {
		want = append(want, "`"+a.Name+"`")
		for _, p := range a.Params {
			if p.Key != "" {
				want = append(want, "`"+p.Key+"`")
			}
		}
	}
	for _, s := range dagShapes {
		want = append(want, "`"+s.Name+"`")
	}
	for _, w := range want {
		if !strings.Contains(doc, w) {
			t.Errorf("docs/wdl.md does not mention %s", w)
		}
	}
}
