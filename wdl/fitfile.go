package wdl

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/stats"
)

// The writer of fit files. Their reader, LoadFitFile, is in dist.go with
// the Fit(file,key) distribution that uses it; the records are
// stats.FitRecord; docs/models.md describes the format.

// FitFileHeader is the provenance a fit file opens with, as comments: who
// wrote it, when, and from what.
type FitFileHeader struct {
	Version  string    // of gmark
	Written  time.Time // written as UTC, to the second
	Traces   []string  // the traces fitted, as named on the command line
	Families []string  // the families tried
	Log2     bool      // fitted on log2 of the values
	CensorAt float64   // the censoring point; 0: none
}

// EncodeFitFile writes a fit file to w: the header, then one TOML table
// per key of recs, in key order.
func EncodeFitFile(w io.Writer, h FitFileHeader, recs map[string]stats.FitRecord) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# gmark fit file, written by gmark %s on %s\n", h.Version, h.Written.UTC().Format(time.RFC3339))
	fmt.Fprintf(&buf, "# traces: %s\n", strings.Join(h.Traces, ", "))
	fmt.Fprintf(&buf, "# families tried: %s; log2: %v", strings.Join(h.Families, ", "), h.Log2)
	if h.CensorAt > 0 {
		fmt.Fprintf(&buf, "; censored at %g", h.CensorAt)
	}
	buf.WriteString("\n# Read back in a WDL spec with Fit(FILE,KEY) or Model=FILE; the format is in docs/models.md.\n\n")
	for _, k := range FitKeys(recs) {
		enc := toml.NewEncoder(&buf)
		enc.Indent = ""
		if err := enc.Encode(map[string]stats.FitRecord{k: recs[k]}); err != nil {
			return err
		}
		buf.WriteString("\n")
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteFitFile writes the fit file to path as an output of internal/outfile:
// a file is replaced whole or not at all, a link or a FIFO written through.
func WriteFitFile(path string, h FitFileHeader, recs map[string]stats.FitRecord) error {
	var buf bytes.Buffer
	if err := EncodeFitFile(&buf, h, recs); err != nil {
		return err
	}
	return outfile.WriteFile(path, buf.Bytes())
}
