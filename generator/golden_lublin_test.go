package generator

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gmark/gmark/internal/version"
)

// lublinGolden are the SHA-256 digests of every file `gmark generate`
// writes for 10^5 wl:lublin jobs (seed 1) with the GWF and SWF traces,
// recorded from the code before the generation path was made faster
// (append-style SWF numbers, fewer copies): the speed work may change no
// byte of any output. The gmark version in the manifest and the traces'
// headers is replaced by "VERSION" before digesting, so that a released
// build digests as the development one. A deliberate change of a format
// updates these, saying why in its commit.
var lublinGolden = []struct {
	name, spec string
	digests    map[string]string
}{{
	name: "defaults",
	spec: "100000\twl:lublin\tsingle\t1\t*:?\t-\t-\n",
	digests: map[string]string{
		"manifest.json":  "daf69322f3e051329533d6dfe0f207fb4ae505d561d5fcd55dbf4825389d0f43",
		"workload.gwf":   "d8ae325e35c554a4bd29b28b52ab035de5a7760e56c44899bc5b39623e92d390",
		"workload.jsonl": "749f5f865a29df71a0864886db907b23bd60877f70d3b39d2cc3d28b0b94686e",
		"workload.swf":   "c43a906eca5f54e32d454312391e17732cb59f1737e5cd24be9375b22839b9e8",
	},
}, {
	// Users, the grid variant's daily cycle from 6 in the morning: the
	// user field of both formats, another clock.
	name: "grid-users",
	spec: "100000\twl:lublin\tsingle\t1\t*:?\t-\tVariant=grid,Users=50,TimeOfDay=6h,Processors=512\n",
	digests: map[string]string{
		"manifest.json":  "93a40de77faf00d7f9e7b8a94fb6c113b69c20617c68e3de9b9e1422d3adf8ce",
		"workload.gwf":   "3c351faa14c5ed48548e98d0255706b2351b71c6815dac019acc1c942d495b81",
		"workload.jsonl": "632465bf85cd8d2ed63d6ce6d2ea6fd57347f9bef8f1088c40fd2ea9fe958a6f",
		"workload.swf":   "f05ab0cd475a1e6f7866ab890d1c17d2800ee4f10ee477160f71c5ccdf0b51a8",
	},
}}

func TestLublinOutputsUnchanged(t *testing.T) {
	for _, c := range lublinGolden {
		t.Run(c.name, func(t *testing.T) {
			got := lublinOutputs(t, c.spec)
			names := make([]string, 0, len(got))
			for n := range got {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				want, ok := c.digests[n]
				switch {
				case !ok:
					t.Errorf("%s: %s, not in the golden", n, got[n])
				case got[n] != want:
					t.Errorf("%s: sha256 %s, want %s", n, got[n], want)
				}
			}
			for n := range c.digests {
				if _, ok := got[n]; !ok {
					t.Errorf("%s: not written", n)
				}
			}
		})
	}
}

// lublinOutputs generates spec (seed 1, GWF and SWF) as gmark generate
// does and returns the digest of every file written, by name.
func lublinOutputs(t *testing.T, spec string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir) // the manifest names the spec as given: lf.wdl
	if err := os.WriteFile("lf.wdl", []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	s := parseSpecFile(t, "lf.wdl")
	g, err := New(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteDir(s, g, DirOptions{Out: "w", SpecPath: "lf.wdl", Seed: 1, Traces: []string{"gwf", "swf"}}); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	ents, err := os.ReadDir("w")
	if err != nil {
		t.Fatal(err)
	}
	v := []byte(version.String())
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("w", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.ReplaceAll(b, v, []byte("VERSION"))
		s := sha256.Sum256(b)
		out[e.Name()] = hex.EncodeToString(s[:])
	}
	if len(out) < 4 {
		t.Fatalf("wrote %d files, want workload.jsonl, manifest.json and the two traces", len(out))
	}
	return out
}
