// Package targets makes the targets of `gmark submit` and `gmark run` (New)
// from the targets file, the command line's settings and, on --resume, the
// configuration the run recorded.
//
// The targets file (--targets) has one TOML section per target ([local],
// [condor], [sge], [slurm], [arc], [gram]) with its settings (docs/submit.md). A typo must
// not pass silently: an unknown section or key is an error naming its file
// and line, and every number is checked against its documented range before
// any target is made.
package targets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/internal/srcerr"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/submitter/arc"
	"github.com/gmark/gmark/submitter/batch"
	"github.com/gmark/gmark/submitter/gram"
	"github.com/gmark/gmark/submitter/local"
	"github.com/gmark/gmark/submitter/slurm"
	"github.com/gmark/gmark/submitter/target"
)

// File is a targets file. A section that is absent is nil.
type File struct {
	Local  *local.Config `toml:"local"`
	Condor *batch.Config `toml:"condor"`
	SGE    *batch.Config `toml:"sge"`
	Slurm  *slurm.Config `toml:"slurm"`
	ARC    *arc.Config   `toml:"arc"`
	GRAM   *gram.Config  `toml:"gram"`
}

// The documented ranges (docs/submit.md, "The targets file").
const (
	MaxFileSize   = 1 << 20 // a targets file is a few lines
	MaxProcessors = 1_000_000
	MaxClusters   = 1_000
	MaxArgs       = 100 // sbatch_args, submit_args, env
	MaxString     = 4096
)

var (
	pollRange        = [2]time.Duration{100 * time.Millisecond, time.Hour}
	unreachableRange = [2]time.Duration{time.Second, 7 * 24 * time.Hour}
	timeoutRange     = [2]time.Duration{time.Second, time.Hour}
	claimRetryRange  = [2]time.Duration{time.Second, 24 * time.Hour}
)

var typeError = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// Load reads and checks the targets file at path.
func Load(path string) (*File, error) {
	b, err := readlimit.File(path, MaxFileSize)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return nil, readlimit.TooLargef("%s: larger than 1 MiB: not a targets file", path)
	}
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse reads and checks a targets file; name is its path, for errors.
func Parse(name string, src []byte) (*File, error) {
	if len(src) > MaxFileSize {
		return nil, fmt.Errorf("%s: larger than 1 MiB: not a targets file", name)
	}
	var f File
	md, err := toml.Decode(string(src), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: pe.Position.Line}, "%s", pe.Message)
		}
		// A value of the wrong type: "toml: line N (last key K): ...".
		if m := typeError.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: line}, "%s: %s", m[2], m[3])
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	und := md.Undecoded()
	if len(und) == 0 {
		// The decoder matches keys regardless of case ("loCAl"), but the
		// range checks look keys up as written: a key must be spelled as
		// documented, or it is unknown like any other.
		und = misspelled(md.Keys())
	}
	if len(und) > 0 {
		k := und[0]
		what := "key"
		if md.Type(k...) == "Hash" || md.Type(k...) == "ArrayHash" {
			what = "section"
		}
		return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: keyLine(src, k)}, "unknown %s %s (known: %s)", what, k, known(k))
	}
	c := checker{name: name, src: src, md: md}
	c.checkLocal(f.Local)
	for _, s := range []struct {
		name string
		cfg  *batch.Config
	}{{"condor", f.Condor}, {"sge", f.SGE}} {
		c.checkBatch(s.name, s.cfg)
	}
	c.checkSlurm(f.Slurm)
	c.checkARC(f.ARC)
	c.checkGRAM(f.GRAM)
	if c.err != nil {
		return nil, c.err
	}
	return &f, nil
}

// checkLocal checks the [local] section.
func (c *checker) checkLocal(l *local.Config) {
	if l == nil {
		return
	}
	c.count(l.Processors, 1, MaxProcessors, "local", "processors")
	c.str(l.Executable, "local", "executable")
	c.list(l.Env, "local", "env")
	for _, kv := range l.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			c.fail(fmt.Sprintf("%q is not KEY=VALUE", kv), "local", "env")
		}
	}
}

// checkBatch checks a [condor] or [sge] section.
func (c *checker) checkBatch(name string, cfg *batch.Config) {
	if cfg == nil {
		return
	}
	c.str(cfg.WorkDir, name, "workdir")
	c.str(cfg.Executable, name, "executable")
	c.list(cfg.SubmitArgs, name, "submit_args")
	c.duration(cfg.Poll, pollRange, name, "poll")
	c.duration(cfg.UnreachableAfter, unreachableRange, name, "unreachable_after")
	c.duration(cfg.CommandTimeout, timeoutRange, name, "command_timeout")
}

// checkSlurm checks the [slurm] section and its clusters.
func (c *checker) checkSlurm(s *slurm.Config) {
	if s == nil {
		return
	}
	c.str(s.WorkDir, "slurm", "workdir")
	c.str(s.Executable, "slurm", "executable")
	c.list(s.SbatchArgs, "slurm", "sbatch_args")
	c.duration(s.Poll, pollRange, "slurm", "poll")
	c.duration(s.UnreachableAfter, unreachableRange, "slurm", "unreachable_after")
	c.duration(s.CommandTimeout, timeoutRange, "slurm", "command_timeout")
	c.duration(s.ClaimRetry, claimRetryRange, "slurm", "claim_retry")
	c.count(s.ClaimTries, 1, target.MaxClaimTries, "slurm", "claim_tries")
	if len(s.Clusters) > MaxClusters {
		c.fail(fmt.Sprintf("%d clusters; at most %d", len(s.Clusters), MaxClusters), "slurm", "clusters")
	}
	seen := map[string]bool{}
	for _, cl := range s.Clusters {
		switch {
		case cl.Name == "":
			c.fail("a cluster has no name", "slurm", "clusters")
		case !clusterName(cl.Name):
			c.fail(fmt.Sprintf("cluster name %q: use letters, digits, '-' and '_'", cl.Name), "slurm", "clusters", "name")
		case seen[cl.Name]:
			c.fail(fmt.Sprintf("cluster %s is named twice", cl.Name), "slurm", "clusters", "name")
		}
		seen[cl.Name] = true
		c.str(cl.Conf, "slurm", "clusters", "conf")
		c.str(cl.Partition, "slurm", "clusters", "partition")
	}
}

// checker records the first error, with the line of the key it is about.
type checker struct {
	name string
	src  []byte
	md   toml.MetaData
	err  error
}

func (c *checker) fail(msg string, key ...string) {
	if c.err == nil {
		c.err = srcerr.Errorf(srcerr.Pos{File: c.name, Line: keyLine(c.src, key)}, "%s: %s", strings.Join(key, "."), msg)
	}
}

// count checks an integer that was given against [lo, hi].
func (c *checker) count(v, lo, hi int, key ...string) {
	if c.md.IsDefined(key...) && (v < lo || v > hi) {
		c.fail(fmt.Sprintf("%d is out of range (%d to %d)", v, lo, hi), key...)
	}
}

// duration checks a duration that was given against r.
func (c *checker) duration(v time.Duration, r [2]time.Duration, key ...string) {
	if c.md.IsDefined(key...) && (v < r[0] || v > r[1]) {
		c.fail(fmt.Sprintf("%s is out of range (%s to %s; a bare number is nanoseconds)", v, r[0], r[1]), key...)
	}
}

func (c *checker) str(v string, key ...string) {
	if len(v) > MaxString || strings.ContainsRune(v, 0) {
		c.fail(fmt.Sprintf("longer than %d bytes or holds a NUL", MaxString), key...)
	}
}

func (c *checker) list(v []string, key ...string) {
	if len(v) > MaxArgs {
		c.fail(fmt.Sprintf("%d items; at most %d", len(v), MaxArgs), key...)
	}
	for _, s := range v {
		c.str(s, key...)
	}
}

func clusterName(s string) bool {
	if len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b == '-' || b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z') {
			return false
		}
	}
	return true
}

// known lists the keys the section of k takes, for the error.
func known(k toml.Key) string {
	if len(k) == 1 {
		return "sections " + strings.Join(knownNames(k), ", ")
	}
	return strings.Join(knownNames(k), ", ")
}

// knownNames are the keys that may stand where the last element of k is.
func knownNames(k toml.Key) []string {
	if len(k) == 1 {
		return []string{"local", "condor", "sge", "slurm", "arc", "gram"}
	}
	var v any
	switch {
	case k[0] == "arc" && len(k) > 2 && k[1] == "ce":
		v = arc.CEConfig{}
	case k[0] == "arc":
		v = arc.Config{}
	case k[0] == "gram" && len(k) > 2 && k[1] == "ce":
		v = gram.CEConfig{}
	case k[0] == "gram":
		v = gram.Config{}
	case k[0] == "local":
		v = local.Config{}
	case k[0] == "condor" || k[0] == "sge":
		v = batch.Config{}
	case k[0] == "slurm" && len(k) > 2 && k[1] == "clusters":
		v = slurm.ClusterConfig{}
	default:
		v = slurm.Config{}
	}
	var keys []string
	t := reflect.TypeOf(v)
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// misspelled are the keys of keys not spelled exactly as a known key (the
// first one found, as a key up to its misspelled element).
func misspelled(keys []toml.Key) []toml.Key {
	for _, k := range keys {
		for i := range k {
			if !slices.Contains(knownNames(k[:i+1]), k[i]) {
				return []toml.Key{k[:i+1]}
			}
		}
	}
	return nil
}

// keyLine finds the line of key in a TOML source: the line of its
// "key = " inside its table, or of its table's header. 0 when not found
// (a key inside an inline table).
func keyLine(src []byte, key []string) int {
	want := strings.Join(key, ".")
	table := ""
	first := 0
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 64<<10), MaxFileSize+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			h := strings.Trim(line, "[] \t")
			if i := strings.Index(h, "]"); i >= 0 {
				h = h[:i]
			}
			table = normKey(h)
			if table == want {
				return n
			}
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		full := normKey(k)
		if table != "" {
			full = table + "." + full
		}
		if full == want {
			return n
		}
		if first == 0 && strings.HasPrefix(want, full+".") {
			first = n // an inline table holding the key
		}
	}
	return first
}

// normKey turns a TOML key as written (spaces, quotes) into dotted form.
func normKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
