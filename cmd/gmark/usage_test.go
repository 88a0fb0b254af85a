package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// usageCases are bad usage of every command, run in a directory of
// fixtures (usageFixtures): each must exit 2 and leave the directory as it
// was, byte for byte (README: "nothing is written" on exit 2). Every
// visible command has a case of its own here, besides the unknown flag and
// the malformed flag values that TestUsageErrorsWriteNothing gives every
// command.
var usageCases = [][]string{
	{"app"},
	{"app", "nosuchapp"},
	{"completion", "tcsh"},
	{"examples", "bogus"},
	{"examples", "write"},
	{"fit"},
	{"fit", "none.swf"},
	{"fit", "--field", "colour", "t.swf"},
	{"fit", "--families", "Nope", "t.swf"},
	{"generate"},
	{"generate", "bad.wdl"},
	{"generate", "none.wdl"},
	{"generate", "--jdf", "nope", "s.wdl"},
	{"generate", "--format", "nope", "s.wdl"},
	{"generate", "-o", "w", "s.wdl"}, // a workload is there
	{"koala", "jobs", "--state", "bogus"},
	{"koala", "serve", "--grid", "bad.toml"},
	{"koala", "serve", "--grid", "none.toml"},
	{"koala", "serve", "--listen", "10.1.2.3:7070"},
	{"koala", "serve", "--listen", "127.0.0.1:99999"},
	{"koala", "serve", "--policy", "XX"},
	{"koala", "serve", "--token-file", "none.token"},
	{"koala", "simulate"},
	{"koala", "simulate", "--db", "x.db", "cw"}, // composite jobs
	{"koala", "simulate", "--db", "x.db", "--policy", "XX", "w"},
	{"koala", "simulate", "--db", "x.db", "--grid", "bad.toml", "w"},
	{"koala", "simulate", "--db", "x.db", "--priority", "bogus", "w"},
	{"koala", "simulate", "--db", "x.db", "none"},
	{"koala", "simulate", "--db", "x.db", "cut"},
	{"koala", "simulate", "--db", "x.db", "--events", "ev.jsonl", "--runner", "bogus", "w"},
	{"koala", "simulate", "--resume", "R1", "w"},
	{"placeholder", "serve", "--groups", "bad.toml"},
	{"placeholder", "serve", "--groups", "none.toml"},
	{"placeholder", "serve", "--listen", "10.1.2.3:7071"},
	{"placeholder", "serve", "--listen", "127.0.0.1:99999"},
	{"placeholder", "serve", "--retries", "-1"},
	{"placeholder", "experiment"},
	{"placeholder", "experiment", "bad.toml"},
	{"placeholder", "add", "cmds.txt"}, // no --group
	{"placeholder", "add", "-g", "g"},
	{"placeholder", "start"},
	{"placeholder", "stop"},
	{"placeholder", "status"},
	{"report", "--db", "none.db"},
	{"report", "--db", "results.db", "--format", "bogus"},
	{"report", "--db", "results.db", "extra"},
	{"report", "--db", "results.db", "--compare", "colour", "--format", "text"},
	{"report", "sql", "--db", "results.db"},
	{"report", "sql", "--db", "none.db", "SELECT 1"},
	{"run"},
	{"run", "none.wdl"},
	{"run", "bad.wdl"},
	{"run", "--policy", "XX", "s.wdl"},
	{"run", "--policy", "XX", "examples/quickstart.wdl"}, // the built-in copy
	{"run", "--target", "nope", "s.wdl"},
	{"run", "--priority", "bogus", "s.wdl"},
	{"run", "--runner", "bogus", "s.wdl"},
	{"run", "--grid", "bad.toml", "s.wdl"},
	{"run", "--grid", "none.toml", "s.wdl"},
	{"run", "--target", "slurm", "--targets", "bad.toml", "s.wdl"},
	{"run", "--target", "slurm", "--targets", "none.toml", "s.wdl"},
	{"run", "--workers", "0", "s.wdl"},
	{"run", "--speedup", "0", "s.wdl"},
	{"run", "site.wdl"}, // a site the grid lacks
	{"run", "big.wdl"},  // a job larger than any cluster
	{"sim"},
	{"sim", "run"},
	{"sim", "run", "bad.toml"},
	{"sim", "run", "--scale", "2", "examples/sim/sweep.toml"},
	{"sim", "run", "--parallel", "0", "examples/sim/sweep.toml"},
	{"sim", "report", "--db", "none.db"},
	{"sim", "report", "--db", "results.db", "--format", "bogus"},
	{"submit"},
	{"submit", "w"}, // no --target
	{"submit", "--target", "nope", "w"},
	{"submit", "--target", "dryrun", "none"},
	{"submit", "--target", "dryrun", "cut"},
	{"submit", "--target", "dryrun", "bad"}, // a malformed line, no manifest
	{"submit", "--target", "slurm", "--targets", "bad.toml", "w"},
	{"submit", "--target", "slurm", "--targets", "none.toml", "w"},
	{"submit", "--target", "slurm", "--targets", "local.toml", "w"}, // no [slurm]
	{"submit", "--target", "koala", "--policy", "XX", "w"},
	{"submit", "--target", "koala", "--priority", "bogus", "w"},
	{"submit", "--target", "koala", "--grid", "bad.toml", "w"},
	{"submit", "--target", "koala", "--endpoint", "ftp://x", "--token", "t", "w"},
	{"submit", "--target", "koala", "--endpoint", "http://127.0.0.1:1", "--token-file", "none.token", "w"},
	{"submit", "--target", "dryrun", "--run-id", "a b", "w"},
	{"submit", "--target", "dryrun", "--resume", "R1", "--run-id", "R2", "w"},
	{"submit", "--resume", "R1"},                              // no store
	{"submit", "--resume", "NOPE", "--db", "results.db"},      // no such run
	{"submit", "--target", "local", "--processors", "0", "w"}, // out of range
	{"trace"},
	{"trace", "stats"},
	{"trace", "stats", "none.swf"},
	{"trace", "plot", "t.swf"}, // no -o
	{"trace", "select", "t.swf"},
	{"trace", "select", "--status", "bogus", "-o", "out.swf", "t.swf"},
	{"trace", "convert", "t.swf"},
	{"trace", "convert", "--format", "bogus", "t.swf", "out.x"},
	{"trace", "bots"},
	{"trace", "bots", "--delta", "soon", "t.swf"},
	{"trace", "imbalance"},
	{"trace", "imbalance", "--by", "colour", "t.swf"},
	{"trace", "imbalance", "--sizes", "fs0=many", "t.swf"},
	{"trace", "rank"},
	{"trace", "rank", "--categories", "colour", "t.swf"},
	{"version", "extra"},
	{"help", "bogus"},
	{"bogus"},
	{},
}

// Bad usage of every command writes nothing: each case of usageCases, and
// for every command an unknown flag and each numeric flag given a word.
func TestUsageErrorsWriteNothing(t *testing.T) {
	t.Parallel()
	fixtures := t.TempDir()
	if err := makeFixtures(t, fixtures); err != nil {
		t.Fatal(err)
	}
	cases := append([][]string(nil), usageCases...)
	covered := map[string]bool{}
	for _, c := range usageCases {
		covered[commandPath(c)] = true
	}
	eachCommand(newApp().Commands, "gmark", func(path string, c *cli.Command) {
		words := strings.Fields(path)[1:]
		if !c.Hidden && !covered[strings.Join(words, " ")] && len(c.Subcommands) == 0 {
			t.Errorf("%s: no usage error of its own in usageCases", path)
		}
		if c.SkipFlagParsing {
			return
		}
		cases = append(cases, append(append([]string(nil), words...), "--no-such-flag"))
		for _, f := range c.Flags {
			switch f.(type) {
			case *cli.IntFlag, *cli.Int64Flag, *cli.Uint64Flag, *cli.Float64Flag, *cli.DurationFlag, *cli.IntSliceFlag:
				cases = append(cases, append(append([]string(nil), words...), "--"+f.Names()[0], "notanumber"))
			}
		}
	})
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel() // each case in a directory of its own
			dir := t.TempDir()
			copyTree(t, fixtures, dir)
			before := snapshot(t, dir)
			cache := []string{"XDG_CACHE_HOME=" + t.TempDir()} // the built-in examples go there, not into the directory
			_, stderr, code := runEnv(t, cache, dir, args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if diff := snapshotDiff(before, snapshot(t, dir)); diff != "" {
				t.Errorf("bad usage changed the directory:\n%s\nstderr:\n%s", diff, stderr)
			}
		})
	}
}

// commandPath is the command words of args, before the first flag or
// argument that is not a command.
func commandPath(args []string) string {
	cmds, path := newApp().Commands, []string{}
	for _, a := range args {
		c := findCommand(cmds, a)
		if c == nil {
			break
		}
		path, cmds = append(path, a), c.Subcommands
	}
	return strings.Join(path, " ")
}

// makeFixtures writes into dir what the cases name: a spec (s.wdl) and bad
// ones, workloads (w unitary, cw composite, cut truncated, bad malformed
// without a manifest), a store with one run (R1), a grid, targets and a
// trace.
func makeFixtures(t *testing.T, dir string) error {
	files := map[string]string{
		"s.wdl":              "1\tunitary\t3\thello\tsingle\t1\t*:1\tC(1s)\n",
		"site.wdl":           "# a site DAS-2 lacks\n1\tunitary\t3\thello\tsingle\t1\tfs9:1\tC(1s)\n",
		"big.wdl":            "# larger than any DAS-2 cluster (the largest has 144)\n1\tunitary\t3\thello\tsingle\t200\t*:200\tC(1s)\n",
		"bad.wdl":            "1\tunitary\tthree\thello\tsingle\t1\t*:1\tC(1s)\n",
		"bad.toml":           "garbage [\n",
		"local.toml":         "[local]\nprocessors = 2\n",
		"cmds.txt":           "echo hi\n",
		"t.swf":              "; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n2 5 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n",
		"bad/workload.jsonl": "{\"id\":\"a\"}\nnot json\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	gm := buildGmark(t)
	quick, err := filepath.Abs("../../examples/quickstart.wdl")
	if err != nil {
		return err
	}
	for _, args := range [][]string{
		{"generate", "-q", "-o", "w", "s.wdl"},
		{"generate", "-q", "-o", "cut", "s.wdl"},
		{"generate", "-q", "-o", "cw", quick},
		{"submit", "w", "--target", "dryrun", "--speedup", "1000", "--run-id", "R1", "-q"},
	} {
		cmd := exec.Command(gm, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("gmark %v: %v\n%s", args, err, out)
		}
	}
	jobs := filepath.Join(dir, "cut", "workload.jsonl")
	b, err := os.ReadFile(jobs)
	if err != nil {
		return err
	}
	return os.WriteFile(jobs, b[:len(b)/2], 0o644)
}

// copyTree copies the regular files and directories of src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot is every entry under dir: its type, mode and, for a file, the
// SHA-256 of its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		desc := info.Mode().String()
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := sha256.Sum256(b)
			desc += " " + hex.EncodeToString(s[:8])
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func snapshotDiff(before, after map[string]string) string {
	var lines []string
	for p, a := range after {
		if b, ok := before[p]; !ok {
			lines = append(lines, "  added   "+p)
		} else if a != b {
			lines = append(lines, "  changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			lines = append(lines, "  removed "+p)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
