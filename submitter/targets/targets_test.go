package targets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/submitter/batch"
	"github.com/gmark/gmark/submitter/local"
	"github.com/gmark/gmark/submitter/slurm"
)

const good = `# every target's settings
[local]
processors = 8
executable = "/usr/bin/gmark"
env = ["A=1"]

[condor]
poll = "5s"
submit_args = ["-a", "x"]

[sge]
command_timeout = "30s"

[slurm]
poll = "1s"
unreachable_after = "2m"
hetjob = false
claim_retry = "20s"
claim_tries = 5
sbatch_args = ["--account=test"]

[[slurm.clusters]]
name = "alpha"
conf = "/etc/slurm-alpha/slurm.conf"

[[slurm.clusters]]
name = "beta"
partition = "batch"
`

func TestParseGood(t *testing.T) {
	f, err := Parse("t.toml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	l, cd, sge, s := Section[local.Config](f, "local"), Section[batch.Config](f, "condor"), Section[batch.Config](f, "sge"), Section[slurm.Config](f, "slurm")
	if l.Processors != 8 || cd.Poll != 5*time.Second || sge.CommandTimeout != 30*time.Second ||
		len(s.Clusters) != 2 || *s.HetJob || s.Clusters[1].Partition != "batch" ||
		s.ClaimRetry != 20*time.Second || s.ClaimTries != 5 {
		t.Fatalf("%+v %+v %+v %+v", l, cd, sge, s)
	}
	if Section[local.Config](f, "slurm") != nil {
		t.Error("a section read as another target's settings")
	}
	if f, err := Parse("empty.toml", nil); err != nil || Section[local.Config](f, "local") != nil || Section[slurm.Config](f, "slurm") != nil {
		t.Fatalf("an empty file: %+v, %v", f, err)
	}
}

// Each error names the file and the line of what is wrong.
func TestParseErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"typo", "[local]\nprocesors = 4\n", `t.toml:2: unknown key local.procesors (known: processors, executable, env)`},
		{"unknown section", "[local]\nprocessors = 4\n\n[pbs]\nqueue = \"x\"\n", `t.toml:4: unknown section pbs (known: sections local, slurm, condor, sge, arc, gram`},
		{"negative processors", "[local]\n\nprocessors = -4\n", `t.toml:3: local.processors: -4 is out of range (1 to 1000000)`},
		{"zero processors", "[local]\nprocessors = 0\n", `t.toml:2: local.processors: 0 is out of range`},
		{"huge processors", "[local]\nprocessors = 99999999999\n", `t.toml:2: local.processors: 99999999999 is out of range`},
		{"processors as text", "[local]\nprocessors = \"4\"\n", `t.toml:2: local.processors: incompatible types`},
		{"dir is the submitter's", "[local]\ndir = \"/tmp\"\n", `t.toml:2: unknown key local.dir`},
		{"bad env", "[local]\nenv = [\"NOEQUALS\"]\n", `t.toml:2: local.env: "NOEQUALS" is not KEY=VALUE`},
		{"poll in nanoseconds", "[slurm]\npoll = 1\n", `t.toml:2: slurm.poll: 1ns is out of range (100ms to 1h0m0s; a bare number is nanoseconds)`},
		{"negative poll", "[condor]\npoll = \"-1s\"\n", `t.toml:2: condor.poll: -1s is out of range`},
		{"bad duration", "[sge]\npoll = \"soon\"\n", `t.toml:2: `},
		{"unreachable too long", "[slurm]\nunreachable_after = \"9000h\"\n", `t.toml:2: slurm.unreachable_after: 9000h0m0s is out of range`},
		{"timeout zero", "[sge]\ncommand_timeout = \"0s\"\n", `t.toml:2: sge.command_timeout: 0s is out of range`},
		{"claim retry zero", "[slurm]\nclaim_retry = \"0s\"\n", `t.toml:2: slurm.claim_retry: 0s is out of range (1s to 24h0m0s`},
		{"claim retry too long", "[slurm]\nclaim_retry = \"25h\"\n", `t.toml:2: slurm.claim_retry: 25h0m0s is out of range`},
		{"claim tries zero", "[slurm]\nclaim_tries = 0\n", `t.toml:2: slurm.claim_tries: 0 is out of range (1 to 100)`},
		{"claim tries too many", "[slurm]\n\nclaim_tries = 101\n", `t.toml:3: slurm.claim_tries: 101 is out of range (1 to 100)`},
		// Checked by the target only when it was made, without the line.
		{"slurm dependencies", "[slurm]\npoll = \"1s\"\ndependencies = \"make\"\n", `t.toml:3: slurm.dependencies: "make": gmark or slurm`},
		{"cluster typo", "[slurm]\n[[slurm.clusters]]\nname = \"a\"\ncnof = \"/x\"\n", `t.toml:4: unknown key slurm.clusters.cnof (known: name, conf, partition)`},
		{"cluster without name", "[slurm]\n[[slurm.clusters]]\nconf = \"/x\"\n", `t.toml:2: slurm.clusters: a cluster has no name`},
		{"cluster named twice", "[[slurm.clusters]]\nname = \"a\"\n[[slurm.clusters]]\nname = \"a\"\n", `t.toml:2: slurm.clusters.name: cluster a is named twice`},
		{"cluster name with a comma", "[[slurm.clusters]]\nname = \"a,b\"\n", `t.toml:2: slurm.clusters.name: cluster name "a,b"`},
		{"arc CE without url", "[arc]\n[[arc.ce]]\nname = \"fs0\"\n", `t.toml:2: arc.ce: CE fs0: url "" is not https://host:port/arex`},
		{"arc CE over http", "[[arc.ce]]\nname = \"fs0\"\nurl = \"http://ce:443/arex\"\n", `t.toml:3: arc.ce.url: CE fs0: url "http://ce:443/arex" is not https`},
		{"arc CE named twice", "[[arc.ce]]\nname = \"a\"\nurl = \"https://a/arex\"\n[[arc.ce]]\nname = \"a\"\nurl = \"https://b/arex\"\n", `t.toml:2: arc.ce.name: CE a is named twice`},
		{"arc CE name with a colon", "[[arc.ce]]\nname = \"a:b\"\nurl = \"https://a/arex\"\n", `t.toml:2: arc.ce.name: CE name "a:b"`},
		{"arc CE typo", "[[arc.ce]]\nname = \"a\"\nurl = \"https://a/arex\"\nqueu = \"main\"\n", `t.toml:4: unknown key arc.ce.queu (known: name, url, queue)`},
		{"arc claim tries", "[arc]\nclaim_tries = 0\n", `t.toml:2: arc.claim_tries: 0 is out of range (1 to 100)`},
		{"arc poll", "[arc]\npoll = \"10ms\"\n", `t.toml:2: arc.poll: 10ms is out of range`},
		{"gram CE without contact", "[[gram.ce]]\nname = \"fs0\"\n", `t.toml:1: gram.ce: gatekeeper fs0: contact "" is not host:port/jobmanager-LRM`},
		{"gram contact without a job manager", "[[gram.ce]]\nname = \"fs0\"\ncontact = \"ce:2119\"\n", `t.toml:3: gram.ce.contact: gatekeeper fs0: contact "ce:2119" is not host:port/jobmanager-LRM`},
		{"gram parallel", "[gram]\nparallel = 0\n", `t.toml:2: gram.parallel: 0 is out of range (1 to 64)`},
		{"gram two phase", "[gram]\ntwo_phase = \"5s\"\n", `t.toml:2: gram.two_phase: 5s is out of range (1m0s to 24h0m0s`},
		{"syntax", "[local\nprocessors = 4\n", `t.toml:2: expected '.' or ']'`},
		{"top-level key", "processors = 4\n", `t.toml:1: unknown key processors`},
		{"dotted key", "local.procesors = 4\n", `t.toml:1: unknown key local.procesors`},
		{"dotted key in a section", "[local]\nprocessors = 2\n\n[slurm]\nx.y.z = 1\n", `t.toml:5: unknown key slurm.x.y.z (known: clusters, poll`},
		// Was "unknown key x.y.z" with the keys of [slurm] as the known ones.
		{"dotted key at the top", "x.y.z = 1\n", `t.toml:1: unknown section x (known: sections local, slurm`},
		// The decoder matches keys in any case; the checks must not be fooled
		// (FuzzParse found "loCAl={prOCessors=-1}" accepted).
		{"section in another case", "loCAl={prOCessors=-1}", `t.toml:1: unknown section loCAl (known: sections local`},
		{"key in another case", "[local]\nProcessors = -4\n", `t.toml:2: unknown key local.Processors (known: processors`},
		{"cluster key in another case", "[[slurm.clusters]]\nName = \"a\"\n", `t.toml:2: unknown key slurm.clusters.Name`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.toml", []byte(c.src))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got %v, want %q...", err, c.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "none.toml")); err == nil {
		t.Fatal("a missing file loaded")
	}
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", MaxFileSize)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Fatalf("a 1 MiB file: %v", err)
	}
	ok := filepath.Join(dir, "t.toml")
	if err := os.WriteFile(ok, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := Load(ok); err != nil || Section[local.Config](f, "local").Processors != 8 {
		t.Fatalf("%+v %v", f, err)
	}
}

// Any input: an error naming the file, or a file whose numbers are all in
// range; never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("[local]\nprocesors = 4\n"))
	f.Add([]byte("[slurm]\npoll = 1\n[[slurm.clusters]]\nname = \"a\"\n"))
	f.Add([]byte("local = { processors = -1 }\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("f.toml", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.toml") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if l := Section[local.Config](file, "local"); l != nil && (l.Processors < 0 || l.Processors > MaxProcessors) {
			t.Fatalf("processors %d accepted", l.Processors)
		}
		if s := Section[slurm.Config](file, "slurm"); s != nil {
			for _, d := range []time.Duration{s.Poll, s.UnreachableAfter, s.CommandTimeout} {
				if d < 0 {
					t.Fatalf("negative duration accepted: %+v", s)
				}
			}
			seen := map[string]bool{}
			for _, c := range s.Clusters {
				if c.Name == "" || seen[c.Name] {
					t.Fatalf("clusters %+v accepted", s.Clusters)
				}
				seen[c.Name] = true
			}
		}
	})
}
