package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gmark/gmark/analyzer/store"
)

// RowFormats are the formats WriteRows writes.
var RowFormats = []string{"text", "csv", "json"}

// WriteRows writes the rows of a query (`gmark report sql`) as an aligned
// text table, CSV with a header, or a JSON array of objects (column →
// value, every value a string).
func WriteRows(w io.Writer, format string, rows *store.Rows) error {
	switch format {
	case "csv":
		cw := csv.NewWriter(w)
		if err := cw.Write(rows.Columns); err != nil {
			return err
		}
		if err := cw.WriteAll(rows.Values); err != nil {
			return err
		}
		return cw.Error()
	case "json":
		objs := make([]map[string]string, len(rows.Values))
		for i, rec := range rows.Values {
			objs[i] = map[string]string{}
			for k, col := range rows.Columns {
				objs[i][col] = rec[k]
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(objs)
	case "text":
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(rows.Columns, "\t")+"\t")
		for _, rec := range rows.Values {
			fmt.Fprintln(tw, strings.Join(rec, "\t")+"\t")
		}
		return tw.Flush()
	}
	return fmt.Errorf("unknown format %q: want text, csv or json", format)
}
