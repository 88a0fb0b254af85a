package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/srcerr"
	"github.com/gmark/gmark/placeholder/site"
)

// A site's target is checked at its line: a known kind, its settings
// present and no other kind's, the files it names there, and time_scale
// given (a real target runs in wall-clock time).
func TestTargetParseErrors(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	tok := filepath.Join(dir, "token")
	for _, f := range []string{conf, tok} {
		if err := os.WriteFile(f, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	head := "units = [1, 2]\ntime_scale = 10\n[[site]]\nname = \"A\"\nrate = 1\n"
	koala := "target = \"koala\"\nkoala = \"http://127.0.0.1:7070\"\nkoala_token_file = \"" + tok + "\"\ncluster = \"c1\"\n"
	cases := []struct{ src, want string }{
		{strings.Replace(head, "time_scale = 10\n", "", 1) + "target = \"slurm\"\n", "x.toml:5: site A: target \"slurm\" runs in wall-clock time: give time_scale"},
		{head + "target = \"pbs\"\n", "x.toml:6: site A: target \"pbs\" is not zinf"},
		{head + "slurm_conf = \"" + conf + "\"\n", "x.toml:6: site A: slurm_conf is a setting of target = \"slurm\", not of an emulated site"},
		{head + "target = \"zinf\"\npartition = \"p\"\n", "x.toml:7: site A: partition is a setting of target = \"slurm\", not of target = \"zinf\""},
		{head + koala + "partition = \"p\"\n", "x.toml:10: site A: partition is a setting"},
		{head + "target = \"slurm\"\nkoala = \"http://127.0.0.1:1\"\n", "x.toml:7: site A: koala is a setting of target = \"koala\""},
		{head + "target = \"slurm\"\nslurm_conf = \"" + filepath.Join(dir, "none.conf") + "\"\n", "x.toml:7: site A: slurm_conf: stat"},
		{head + "target = \"slurm\"\nwall_time = \"5s\"\n", "x.toml:7: site A: wall_time \"5s\""},
		{head + "target = \"slurm\"\nqueue_wait = 3\n", "x.toml:7: site A: queue_wait: the queue of target \"slurm\""},
		{head + "target = \"koala\"\nkoala = \"http://127.0.0.1:7070\"\ncluster = \"c1\"\n", "x.toml:6: site A: target = \"koala\" needs koala_token_file"},
		{head + "target = \"koala\"\nkoala_token_file = \"" + tok + "\"\ncluster = \"c1\"\n", "x.toml:6: site A: target = \"koala\" needs koala\n"},
		{head + strings.Replace(koala, tok, filepath.Join(dir, "none"), 1), "x.toml:8: site A: koala_token_file: stat"},
		{head + strings.Replace(koala, "http://127.0.0.1:7070", "ftp://x", 1), "x.toml:7: site A: koala \"ftp://x\""},
		{head + strings.Replace(koala, "\"c1\"", "\"c 1\"", 1), "x.toml:9: site A: cluster \"c 1\""},
		{head + "\n[[site]]\nname = \"B\"\nrate = 2\ntarget = \"\"\nwall_time = \"1h\"\n", "x.toml:11: site B: wall_time is a setting of target = \"slurm\""},
	}
	for _, c := range cases {
		_, err := Parse("x.toml", []byte(c.src))
		var se *srcerr.Error
		want := strings.TrimSuffix(c.want, "\n")
		if err == nil || !errors.As(err, &se) || !strings.HasPrefix(err.Error(), want) || strings.HasSuffix(c.want, "\n") && err.Error() != want {
			t.Errorf("%q: %v; want %q…", c.src, err, c.want)
		}
	}
}

// A site with a target becomes the metaqueue's site of that kind with its
// settings; one without, or with target = "zinf", a zinf site on this host.
func TestTargetSiteSpec(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	tok := filepath.Join(dir, "token")
	for _, f := range []string{conf, tok} {
		if err := os.WriteFile(f, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	src := `units = [1, 2, 3, 4]
time_scale = 50
[[site]]
name = "em"
rate = 1
[[site]]
name = "z"
rate = 1
target = "zinf"
[[site]]
name = "s"
rate = 2
target = "slurm"
slurm_conf = "` + conf + `"
partition = "debug"
wall_time = "10m"
[[site]]
name = "k"
rate = 3
target = "koala"
koala = "http://127.0.0.1:7070"
koala_token_file = "` + tok + `"
cluster = "c1"
`
	sp, err := Parse("x.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []site.Spec{
		{Name: "em", Kind: site.Zinf, Mode: site.Classic},
		{Name: "z", Kind: site.Zinf, Mode: site.Classic},
		{Name: "s", Kind: site.Slurm, Mode: site.Classic, SlurmConf: conf, Partition: "debug", WallTime: "10m"},
		{Name: "k", Kind: site.Koala, Mode: site.Classic, Koala: "http://127.0.0.1:7070", KoalaTokenFile: tok, Cluster: "c1"},
	}
	for i, st := range sp.Sites {
		got := st.siteSpec()
		if got.Name != want[i].Name || got.Kind != want[i].Kind || got.Mode != want[i].Mode || got.SlurmConf != want[i].SlurmConf ||
			got.Partition != want[i].Partition || got.WallTime != want[i].WallTime || got.Koala != want[i].Koala ||
			got.KoalaTokenFile != want[i].KoalaTokenFile || got.Cluster != want[i].Cluster {
			t.Errorf("site %s: %+v; want %+v", st.Name, got, want[i])
		}
		if err := got.Check(); err != nil {
			t.Errorf("site %s: %v", st.Name, err)
		}
	}
}
