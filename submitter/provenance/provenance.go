// Package provenance collects what a run was made from, for its provenance
// record, so that the results store alone can reproduce the run
// ('gmark report --reproduce'): the input files by digest and content —
// the WDL spec and the files it read, as the workload's manifest names
// them, the traces its wl:trace units replay, the bundled core's grid, the
// targets file — and the bundled core's scheduler parameters in force.
package provenance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/examples"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter/targets"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// MaxContent is the largest input whose content the store keeps (a trace
// can be gigabytes); a larger one is recorded by digest and size only.
const MaxContent = 64 << 20

// Sources say where a run's inputs are. Relative paths are relative to the
// working directory, as the run named them.
type Sources struct {
	WorkloadDir string          // its manifest names the spec and the files the spec read
	Grid        string          // the bundled core's grid file; "" none
	Targets     string          // the targets file; "" none
	Core        *grid.Scheduler // the scheduler's settings in force; nil when not known
}

// ForTarget are the Sources of a run of the workload in dir on a target
// made by targets.New or targets.Bundled, whose configuration is cfg, with
// the targets file targetsFile ("" none). A bundled core's grid and
// scheduler settings are those it is started with.
func ForTarget(dir string, cfg any, targetsFile string) Sources {
	s := Sources{WorkloadDir: dir, Targets: targetsFile}
	if k, ok := cfg.(targets.KoalaConfig); ok && k.Endpoint == "" && k.Grid != "" {
		s.Grid = k.Grid
		if g, err := k.CoreGrid(); err == nil {
			s.Core = &g.Scheduler
		}
	}
	return s
}

// Collect reads the inputs s names. A file the workload's manifest names
// that is not at its path from here, or no longer has the manifest's
// digest, is recorded by the manifest's digest alone, and a warning says
// so; so is a file that cannot be read.
func Collect(s Sources) (record.Inputs, []string) {
	c := &collector{in: record.Inputs{Contents: map[string][]byte{}}}
	if s.Core != nil {
		c.in.Core = s.Core.Params()
	}
	if s.WorkloadDir != "" {
		if m, err := workload.ReadManifest(s.WorkloadDir); err == nil {
			c.fromManifest(m)
		}
	}
	if s.Grid != "" {
		c.file(store.InputGrid, s.Grid, "")
	}
	if s.Targets != "" {
		c.file(store.InputTargets, s.Targets, "")
	}
	return c.in, c.warnings
}

type collector struct {
	in       record.Inputs
	warnings []string
}

// fromManifest adds the spec and its includes, and the traces of the
// spec's wl:trace units.
func (c *collector) fromManifest(m *workload.Manifest) {
	if m.Spec.Path == "" {
		return
	}
	specOK := c.file(store.InputSpec, m.Spec.Path, m.Spec.SHA256)
	for _, inc := range m.Includes {
		c.file(store.InputInclude, inc.Path, inc.SHA256)
	}
	if !specOK {
		return
	}
	spec, err := wdl.ParseFile(m.Spec.Path)
	if err != nil {
		return
	}
	for _, u := range spec.Units {
		if !strings.EqualFold(u.FullType(), "wl:trace") {
			continue
		}
		if opt, ok := u.Options.Get("File"); ok && opt.Value != "" {
			p := opt.Value
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(opt.Pos.File), p)
			}
			c.file(store.InputTrace, p, "")
		}
	}
}

// file adds the input at path; want, when set, is the digest the
// manifest recorded for it. It reports whether the file was read with
// that digest.
func (c *collector) file(role, path, want string) bool {
	for _, in := range c.in.Files {
		if in.Role == role && in.Path == path {
			return true
		}
	}
	in := store.Input{Role: role, Path: path, SHA256: want}
	content, sum, size, err := read(path)
	switch {
	case err != nil:
		c.warnings = append(c.warnings, fmt.Sprintf("%s %s: %v; recorded by its path and digest only", role, path, err))
	case want != "" && sum != want:
		c.warnings = append(c.warnings, fmt.Sprintf("%s %s has changed since the workload was generated (or is another file from here); recorded by the manifest's digest only", role, path))
		err = fmt.Errorf("digest")
	default:
		in.SHA256, in.Size = sum, size
		if content != nil {
			in.Stored = true
			c.in.Contents[sum] = content
		}
	}
	if in.SHA256 != "" {
		c.in.Files = append(c.in.Files, in)
	}
	return err == nil
}

// read digests the file at path and returns its content when it is at
// most MaxContent bytes (nil otherwise).
//
// A path naming a shipped example the way the repository does that is not
// on disk is the copy built into gmark, which is what gmark read for it.
func read(path string) (content []byte, sum string, size int64, err error) {
	f, err := readlimit.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		if name, ok := examples.Lookup(path); ok {
			if b, err := examples.ReadFile(name); err == nil {
				s := sha256.Sum256(b)
				return b, hex.EncodeToString(s[:]), int64(len(b)), nil
			}
		}
	}
	if err != nil {
		return nil, "", 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, "", 0, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	h := sha256.New()
	var buf bytes.Buffer
	w := io.Writer(h)
	if fi.Size() <= MaxContent {
		w = io.MultiWriter(h, &buf)
	}
	n, err := io.Copy(w, f)
	if err != nil {
		return nil, "", 0, err
	}
	if n <= MaxContent && int64(buf.Len()) == n {
		content = buf.Bytes()
		if content == nil {
			content = []byte{}
		}
	}
	return content, hex.EncodeToString(h.Sum(nil)), n, nil
}

// CollectFor collects the inputs of a run of the workload in dir on a
// target whose configuration is cfg (see ForTarget), writing to warn a
// line "warning: …" for each input it can record by digest only.
func CollectFor(dir string, cfg any, targetsFile string, warn io.Writer) record.Inputs {
	in, warnings := Collect(ForTarget(dir, cfg, targetsFile))
	for _, w := range warnings {
		fmt.Fprintln(warn, "warning:", w)
	}
	return in
}
