package targets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check refuses each kind of bad target input as New would, as an
// *InputError, and writes nothing, not even the run's directory.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "runs", "R")
	bad := filepath.Join(dir, "bad.toml")
	local := filepath.Join(dir, "local.toml")
	for p, s := range map[string]string{bad: "garbage [\n", local: "[local]\nprocessors = 2\n"} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	koala := func(k KoalaOptions) Options {
		if !k.Grid.Set {
			k.Grid = Flag{Value: "examples/das2.toml"}
		}
		return Options{RunDir: runDir, Koala: k}
	}
	for _, tc := range []struct {
		name, target string
		o            Options
		want         string // "" for no error
	}{
		{"dryrun", "dryrun", Options{RunDir: runDir}, ""},
		{"local from a file", "local", Options{RunDir: runDir, File: local}, ""},
		// (A new target is listed after these.)
		{"unknown target", "nope", Options{}, `unknown target "nope" (known: dryrun, local, slurm, condor, sge, koala, arc, gram`},
		{"misspelt target", "slrum", Options{}, `; did you mean slurm?`},
		{"bad targets file", "local", Options{File: bad}, "targets file"},
		{"missing targets file", "slurm", Options{File: filepath.Join(dir, "none.toml")}, "none.toml"},
		{"no slurm section", "slurm", Options{File: local}, "no [slurm] section"},
		{"bundled core", "koala", koala(KoalaOptions{}), ""},
		{"unknown policy", "koala", koala(KoalaOptions{Policy: Flag{Value: "XX", Set: true}}), `unknown placement policy "XX"`},
		{"unknown priority", "koala", koala(KoalaOptions{Priority: Flag{Value: "bogus", Set: true}}), `unknown priority "bogus"`},
		{"unknown runner", "koala", koala(KoalaOptions{Runner: Flag{Value: "bogus", Set: true}}), `unknown runner "bogus"`},
		{"missing grid", "koala", koala(KoalaOptions{Grid: Flag{Value: filepath.Join(dir, "none.toml"), Set: true}}), "none.toml"},
		{"bad grid", "koala", koala(KoalaOptions{Grid: Flag{Value: bad, Set: true}}), "bad.toml"},
		{"endpoint not http", "koala", koala(KoalaOptions{Endpoint: Flag{Value: "ftp://x", Set: true}, Token: "t"}), "http"},
		{"endpoint without a token", "koala", koala(KoalaOptions{Endpoint: Flag{Value: "http://127.0.0.1:1", Set: true}}), "token"},
		{"missing token file", "koala", koala(KoalaOptions{Endpoint: Flag{Value: "http://127.0.0.1:1", Set: true},
			TokenFile: Flag{Value: filepath.Join(dir, "none.token"), Set: true}}), "--token-file"},
	} {
		err := Check(tc.target, tc.o, nil)
		var ie *InputError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an input error with %q", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); !os.IsNotExist(err) {
		t.Errorf("Check wrote the run's directory: %v", err)
	}
}
