package report

import "github.com/gmark/gmark/plots"

// FigureDrawings draws each of r's figures in memory, for the figure
// checks of the external tests: by file name, the drawing or the error.
func FigureDrawings(r *Report) (names []string, drawings []*plots.Drawing, errs []error) {
	for _, f := range newFigureContext(r.Runs).figures() {
		d, err := f.draw()
		names, drawings, errs = append(names, f.name), append(drawings, d), append(errs, err)
	}
	return names, drawings, errs
}

// BuildStore is buildStore, for the external tests.
var BuildStore = buildStore
