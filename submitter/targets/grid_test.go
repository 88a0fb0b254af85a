package targets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check refuses an arc or gram target that cannot be made, before anything
// is written: no section, no CE, a proxy that is not there; and makes
// nothing (no work directory).
func TestCheckGridTargets(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	none := filepath.Join(dir, "no-proxy.pem")
	cases := []struct{ target, file, want string }{
		{"arc", write("empty.toml", "[local]\nprocessors = 2\n"), "no [arc] section"},
		{"gram", write("empty2.toml", "[local]\nprocessors = 2\n"), "no [gram] section"},
		{"arc", write("noce.toml", "[arc]\npoll = \"2s\"\n"), "arc: no CE"},
		{"arc", write("noproxy.toml", "[arc]\nproxy = \""+none+"\"\nca_dir = \""+dir+"\"\n[[arc.ce]]\nname = \"a\"\nurl = \"https://a:443/arex\"\n"), "no-proxy.pem"},
		{"gram", write("gnoce.toml", "[gram]\n"), "gram: no gatekeeper"},
		{"gram", write("gnoproxy.toml", "[gram]\nproxy = \""+none+"\"\n[[gram.ce]]\nname = \"a\"\ncontact = \"a:2119/jobmanager-fork\"\n"), "no-proxy.pem"},
	}
	for _, c := range cases {
		err := Check(c.target, Options{File: c.file, RunDir: filepath.Join(dir, "run")}, nil)
		var ie *InputError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ie) {
			t.Errorf("%s %s: %v, want an input error with %q", c.target, filepath.Base(c.file), err, c.want)
		}
	}
	if err := Check("arc", Options{RunDir: dir}, nil); err == nil || !strings.Contains(err.Error(), "needs a targets file") {
		t.Errorf("no targets file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "run")); err == nil {
		t.Error("Check made the run directory")
	}
}
