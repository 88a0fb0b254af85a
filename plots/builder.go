package plots

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Builder is a figure in gmark's style that the functions of this package
// do not draw (the trace toolbox's, the fits'): add its plotters with Add,
// set its axes on Plot, then Done pads the axes and makes the Drawing, which
// the checks (ProblemsAt) see whole.
type Builder struct{ f *figure }

// NewBuilder starts a figure with its title and axis labels, styled.
func NewBuilder(title, x, y string) *Builder { return &Builder{newPlot(title, x, y)} }

// Plot is the gonum plot being drawn, for its axes and legend.
func (b *Builder) Plot() *plot.Plot { return b.f.Plot }

// Add adds plotters to the figure.
func (b *Builder) Add(ps ...plot.Plotter) { b.f.Add(ps...) }

// Done widens the axes to what is drawn (see figure.finish) and returns
// the figure as a Drawing, with its note.
func (b *Builder) Done(note string) *Drawing { return b.f.drawing(b.f.Title.Text, note) }

// Plot is the drawing's gonum plot, for a caller that lays it out at
// another size (WriteTo).
func (d *Drawing) Plot() *plot.Plot { return d.plot.Plot }

// OnSave, when set, sees every drawing as it is saved (by Save, SavePDF
// or a caller's Saving) at the size it is laid out at: tests set it
// (testkit.CheckFigures) to run the figure checks on every figure a
// package draws. It may be called from several goroutines at once.
var OnSave func(name string, d *Drawing, width, height vg.Length)

// Saving tells OnSave of a drawing that a caller saves itself, laid out at
// width by height (the trace toolbox's figures).
func (d *Drawing) Saving(name string, width, height vg.Length) {
	if f := OnSave; f != nil {
		f(name, d, width, height)
	}
}
