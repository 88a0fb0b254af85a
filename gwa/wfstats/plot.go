package wfstats

import (
	"os"
	"sort"
	"strconv"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/plots"
)

// Plot writes the workflow figures into dir, each as PNG and SVG with its
// data as CSV (plots' Drawing.Save), names prefixed by prefix, and returns
// them: the critical path against the total work (one point a workflow),
// the distribution of the widths, and the parallelism over time of the
// workflow of most tasks. A figure with no data is not drawn.
func Plot(s *Summary, dir, prefix string) ([]plots.Figure, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var figs []plots.Figure
	for _, f := range []struct {
		name string
		draw func() (*plots.Drawing, error)
	}{
		{"workflow_critical_path_vs_work", func() (*plots.Drawing, error) { return criticalPathVsWork(s) }},
		{"workflow_width", func() (*plots.Drawing, error) { return widths(s) }},
		{"workflow_parallelism", func() (*plots.Drawing, error) { return parallelism(s) }},
	} {
		d, err := f.draw()
		if plots.NoData(err) {
			continue
		}
		if err != nil {
			return figs, err
		}
		fig, err := d.Save(dir, prefix+f.name)
		if err != nil {
			return figs, err
		}
		figs = append(figs, fig)
	}
	return figs, nil
}

func criticalPathVsWork(s *Summary) (*plots.Drawing, error) {
	work := make([]float64, len(s.PerWorkflow))
	cp := make([]float64, len(s.PerWorkflow))
	for i, w := range s.PerWorkflow {
		work[i], cp[i] = w.TotalWork, w.CriticalPath
	}
	d, err := plots.Scatter("Critical path against total work, one point a workflow", "total work (s, the sum of its tasks' run times)", "critical path (s)", work, cp)
	if err == nil {
		d.Note = join(d.Note, "a workflow on the diagonal is a chain; far below it, a wide one (work / critical path is its average parallelism on an unbounded machine)")
	}
	return d, err
}

// widths draws how many workflows have each width: one bar a width, or,
// for more than 30 widths, one a power-of-two range.
func widths(s *Summary) (*plots.Drawing, error) {
	count := map[int]int{}
	for _, w := range s.PerWorkflow {
		count[w.Width]++
	}
	keys := make([]int, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var labels []string
	var values []float64
	if len(keys) <= 30 {
		for _, k := range keys {
			labels = append(labels, strconv.Itoa(k))
			values = append(values, float64(count[k]))
		}
	} else {
		bins := map[int]int{}
		top := 0
		for _, k := range keys {
			b := 0
			for 1<<(b+1) <= k {
				b++
			}
			bins[b] += count[k]
			top = max(top, b)
		}
		for b := 0; b <= top; b++ {
			labels = append(labels, strconv.Itoa(1<<b)+"–"+strconv.Itoa(1<<(b+1)-1))
			values = append(values, float64(bins[b]))
		}
	}
	if len(values) == 0 {
		return plots.Grouped("", "", "", nil, nil)
	}
	return plots.Grouped("Width distribution: the most tasks on one level of a workflow", "width (tasks)", "workflows", labels,
		[]plots.Series{{Label: "workflows", Values: values}})
}

// parallelism draws the running tasks over time of the workflow of most
// tasks (the first such, in submit order).
func parallelism(s *Summary) (*plots.Drawing, error) {
	best := -1
	for i, w := range s.PerWorkflow {
		if best < 0 || w.Tasks > s.PerWorkflow[best].Tasks {
			best = i
		}
	}
	if best < 0 || len(s.PerWorkflow[best].Parallelism) == 0 {
		return plots.Lines("", "", "", nil, nil, 0)
	}
	w := s.PerWorkflow[best]
	var xs, ys []float64
	prev := 0
	for _, st := range w.Parallelism {
		xs, ys = append(xs, st.At, st.At), append(ys, float64(prev), float64(st.Running))
		prev = st.Running
	}
	return plots.Lines("Parallelism over time of workflow "+clip(w.ID, 40)+" ("+strconv.Itoa(w.Tasks)+" tasks), as the trace ran it",
		"time since its submission (s)", "tasks running", [][]float64{xs}, []plots.Series{{Label: "running", Values: ys}}, 0)
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// Collect wraps a reader so that the records it returns are kept, for the
// workflow analysis after another pass over them (gwa's analysis streams).
// The records are kept only when the trace's format holds workflows.
func Collect(r gwa.Reader) (gwa.Reader, func() []gwa.Record) {
	c := &collector{Reader: r, keep: gwa.HasWorkflows(r.Header().Format)}
	return c, func() []gwa.Record { return c.recs }
}

type collector struct {
	gwa.Reader
	keep bool
	recs []gwa.Record
}

func (c *collector) Next() (gwa.Record, error) {
	rec, err := c.Reader.Next()
	if err == nil && c.keep {
		c.recs = append(c.recs, rec)
	}
	return rec, err
}
