package report

import "github.com/gmark/gmark/plots"

// CompareDrawings draws each of c's figures in memory, for the figure
// checks of the external tests: by file name, the drawing or the error.
func CompareDrawings(c *Comparison) (names []string, drawings []*plots.Drawing, errs []error) {
	for _, f := range c.compareFigures() {
		d, err := f.draw()
		names, drawings, errs = append(names, f.name), append(drawings, d), append(errs, err)
	}
	return names, drawings, errs
}

// FlatJSON is flatJSON, for the fuzz test.
var FlatJSON = flatJSON
