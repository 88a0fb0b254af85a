package generator

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// inputFiles are the input files a unit attaches to its jobs: every job
// reads the one file of InputFile=name:size, or one file of
// InputFilesWithWeights=name:size/w;…, drawn by weight. The names are
// logical: the scheduler's replica catalogue (the grid's [[file]] tables)
// says which sites hold each file, which is what data-aware placement
// (Close-to-Files) acts on. Application units and wl:trace units read the
// same keys.
type inputFiles struct {
	files  []workload.File
	choice *stats.Choice
}

// prepareInputFiles reads a unit's file keys; nil when it has none. Each bad
// item is reported at its own column, and a name given twice with two sizes
// is an error (a logical file has one size).
func prepareInputFiles(o *wdl.Options) (*inputFiles, wdl.ErrorList) {
	var errs wdl.ErrorList
	if opt, ok := o.Get("InputFile"); ok {
		f, err := parseFile(opt.Value)
		if err != nil {
			return nil, wdl.ErrorList{wdl.Errorf(opt.Pos, "InputFile: %v", err)}
		}
		c, _ := stats.NewChoice([]float64{1})
		return &inputFiles{files: []workload.File{f}, choice: c}, nil
	}
	items, ok, err := o.Weighted("InputFilesWithWeights")
	if err != nil {
		return nil, wdl.ErrorList{err.(*wdl.Error)}
	}
	if !ok {
		return nil, nil
	}
	opt, _ := o.Get("InputFilesWithWeights")
	in := &inputFiles{}
	sizes := map[string]int64{}
	w := make([]float64, len(items))
	for i, it := range items {
		f, err := parseFile(it.Value)
		if err == nil {
			if size, seen := sizes[f.Name]; seen && size != f.Size {
				err = fmt.Errorf("input file %q is listed with two sizes (%d and %d bytes): a logical file has one size", wdl.Excerpt(f.Name), size, f.Size)
			}
			sizes[f.Name] = f.Size
		}
		if err != nil {
			errs = append(errs, wdl.Errorf(opt.ItemPos(it), "InputFilesWithWeights: %v", err))
		}
		in.files = append(in.files, f)
		w[i] = it.Weight
	}
	in.choice, _ = stats.NewChoice(w) // ParseWeighted checked the weights
	return in, errs
}

// fill gives j its input file, drawn from r (nil f: none).
func (f *inputFiles) fill(r *rand.Rand, j *workload.Job) {
	j.Files = j.Files[:0]
	if f != nil {
		j.Files = append(j.Files, f.files[f.choice.Pick(r)])
	}
}

// parseFile reads "name:size" (size with an optional unit, e.g. data:2GB).
func parseFile(s string) (workload.File, error) {
	name, size, ok := strings.Cut(s, ":")
	if !ok || name == "" {
		return workload.File{}, fmt.Errorf("input file %q must be name:size, e.g. dataset-1:2GB", wdl.Excerpt(s))
	}
	n, err := wdl.ParseBytes(size)
	if err != nil {
		return workload.File{}, fmt.Errorf("input file %q: %v", wdl.Excerpt(s), err)
	}
	return workload.File{Name: name, Size: n}, nil
}
