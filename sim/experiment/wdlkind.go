package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// A wdl workload is a workload description of gmark's own (a WDL spec
// file, the generator's input), generated afresh for each run from the
// run's workload seed and brought to the run's load level by scaling its
// submit times: its offered load over its own span, on the whole
// topology, becomes the level (as a trace's is). Start deadlines keep
// their distance from the submission. Its jobs are
// placed as the spec says (named sites, or "*").

func (p *parser) wdlSpec(m *workloadSpec, w *Workload, path func(string) string) {
	for _, k := range []string{"span", "tolerance", "max_iterations", "lf", "trace", "format", "from", "to", "sites"} {
		if wsSet(m, k) {
			p.errorf(path(k), "%s is not a setting of a %s workload: its spec gives its jobs and span", k, KindWDL)
		}
	}
	if m.Spec == nil || *m.Spec == "" {
		p.errorf(path("kind"), "a %s workload needs spec = \"FILE\" (a workload description, relative to the experiment file)", KindWDL)
		return
	}
	w.Spec, w.SpecPath = *m.Spec, *m.Spec
	if !filepath.IsAbs(w.SpecPath) {
		w.SpecPath = filepath.Join(filepath.Dir(p.file), w.SpecPath)
	}
	sum, err := fileSHA256(w.SpecPath)
	if err != nil {
		p.errorf(path("spec"), "spec %q: %v", excerpt(w.Spec), unwrapPath(err))
		return
	}
	w.SpecSHA256 = sum
	spec, err := wdl.ParseFile(w.SpecPath)
	if err != nil {
		p.errorf(path("spec"), "spec %q: %v", excerpt(w.Spec), err)
		return
	}
	if w.SpecInputs, err = inputsDigest(w.SpecPath, generator.Inputs(spec)); err != nil {
		p.errorf(path("spec"), "spec %q: %v", excerpt(w.Spec), err)
	}
}

// inputsDigest identifies the files a spec reads besides itself (its
// traces, workflows, grid and fit files): a run of the same spec over
// another trace is another run. It is "" for a spec that reads none, so
// that such specs keep the digests they had before inputs were covered.
// Each input is named relative to the spec, so a directory moved whole
// keeps its digests.
func inputsDigest(specPath string, inputs []string) (string, error) {
	if len(inputs) == 0 {
		return "", nil
	}
	h := sha256.New()
	for _, in := range inputs {
		name, err := filepath.Rel(filepath.Dir(specPath), in)
		if err != nil {
			name = in
		}
		d, err := generator.InputDigest(in)
		if err != nil {
			return "", fmt.Errorf("the file it reads, %s: %v", name, unwrapPath(err))
		}
		fmt.Fprintf(h, "%s\x00%s\n", filepath.ToSlash(name), d)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// wdlSource generates the spec twice: once to measure its offered load,
// once, scaled, for the run.
func wdlSource(ctx context.Context, top *topology.Topology, w *RunWorkload) (*stream, error) {
	gen := func() (*generator.Generator, error) {
		spec, err := wdl.ParseFile(w.SpecPath)
		if err != nil {
			return nil, err
		}
		return generator.New(spec, w.Seed)
	}
	g, err := gen()
	if err != nil {
		return nil, err
	}
	a := newLoadAccount(top) // its offered load as it is, over its own span
	if _, err := g.Generate(func(j *workload.Job) error {
		a.add(j)
		return ctx.Err()
	}); err != nil {
		return nil, fmt.Errorf("spec %s: %w", w.Spec, err)
	}
	first, last := a.tFirst, a.tEnd
	natural := offered(a.tWork, top.Processors(), last-first)
	targets := gridTargets(top, w.ClusterLoads)
	target := 0.0
	for _, t := range targets {
		target += t
	}
	target /= float64(max(1, len(targets)))
	if a.tJobs < 2 || !(natural > 0) || !(target > 0) {
		return nil, fmt.Errorf("spec %s: its %d jobs span no time or hold no work: they cannot be brought to a load", w.Spec, a.tJobs)
	}
	scale := natural / target
	cutoff := (first + w.Scale*(last-first)) * scale
	if g, err = gen(); err != nil {
		return nil, err
	}
	s := newStream(ctx, g, func(j *workload.Job) bool { return j.Submit.Seconds() <= cutoff*(1+1e-12) }, top)
	s.edit = func(j *workload.Job) {
		// A start deadline is kept relative to its submission (the job
		// model writes it from the workload's start).
		old := j.Submit
		j.Submit = scaledDuration(j.Submit, scale)
		if j.Deadline > 0 {
			j.Deadline += j.Submit - old
		}
		for i := range j.Tasks { // a composite job's tasks' too
			if t := &j.Tasks[i]; t.Deadline > 0 {
				t.Deadline += j.Submit - old
			}
		}
	}
	return s, nil
}

// scaledDuration is d × f, rounded to the nanosecond.
func scaledDuration(d time.Duration, f float64) time.Duration {
	return time.Duration(math.Round(float64(d) * f))
}
