package gwa

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
)

// BoT extraction on a hand-built trace finds exactly the batches built into
// it, for several Δ.
func TestBoTExtraction(t *testing.T) {
	jobs := []struct {
		user   string
		submit float64
	}{
		{"A", 0}, {"B", 30}, {"C", 50}, {"A", 60}, {"B", 100}, {"A", 170}, {"A", 290}, {"B", 400}, {"B", 405},
		{"A", 500}, {"A", 510}, {"D", 700}, {"D", 700}, {"B", 1000}, {"A", 2000},
	}
	var b strings.Builder
	for i, j := range jobs {
		fmt.Fprintf(&b, "%d %g 0 %d 1 -1 -1 1 -1 -1 1 %d 1 -1 -1 1 -1 -1\n", i+1, j.submit, 10*(i+1), int(j.user[0]-'A'+1))
	}
	text := b.String()
	// Batches as user:size@first-submit; users are numbered A=1 … D=4.
	cases := []struct {
		delta float64
		want  string
		sizes [9]int64
	}{
		{0, "4:2@700", [9]int64{1}},
		{60, "1:2@0 1:2@500 2:2@400 4:2@700", [9]int64{4}},
		{120, "1:2@500 1:4@0 2:2@30 2:2@400 4:2@700", [9]int64{5}},
		{300, "1:6@0 2:4@30 4:2@700", [9]int64{2, 1}},
		{1500, "1:7@0 2:5@30 4:2@700", [9]int64{1, 2}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("delta %g", c.delta), func(t *testing.T) {
			r, err := NewReader(strings.NewReader(text), ReadOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			stats, err := AnalyzeBoTs(r, []float64{c.delta}, func(b *Batch) {
				got = append(got, fmt.Sprintf("%s:%d@%g", b.User, b.Size, b.Start))
			})
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(got)
			if s := strings.Join(got, " "); s != c.want {
				t.Errorf("batches %s, want %s", s, c.want)
			}
			st := stats[0]
			if st.SizeClasses != c.sizes || st.Batches != int64(len(got)) || st.Jobs != int64(len(jobs)) {
				t.Errorf("stats %+v", st)
			}
		})
	}
	// The statistics of Δ = 120 s: 12 of 15 jobs in 5 batches.
	r, _ := NewReader(strings.NewReader(text), ReadOptions{Strict: true})
	var batches []Batch
	res, _ := AnalyzeBoTs(r, []float64{DefaultDelta}, func(b *Batch) { batches = append(batches, *b) })
	st := res[0]
	if st.BatchedJobs != 12 || math.Abs(st.JobShare.Value-12.0/15) > 1e-12 || st.MaxSize != 4 || st.Size.Mean.Value != 12.0/5 {
		t.Errorf("Δ=120: %+v size %+v", st, st.Size)
	}
	// Batch seeds at 0, 30, 400, 500, 700: inter-arrival times 30, 370, 100, 200.
	if st.InterArrival.Count != 4 || st.InterArrival.Min.Value != 30 || st.InterArrival.Max.Value != 370 || st.InterArrival.Mean.Value != 175 {
		t.Errorf("batch inter-arrival %+v", st.InterArrival)
	}
	for _, b := range batches {
		if b.User == "1" && b.Size == 4 {
			// jobs 1, 4, 6, 7: run times 10, 40, 60, 70; the last ends at 290 + 70.
			if b.FirstJob != "1" || b.LastJob != "7" || b.MeanRunTime() != 45 || b.End != 360 || b.LastSubmit != 290 {
				t.Errorf("batch %+v", b)
			}
			if sd := b.RunTimeStd(); math.Abs(sd-math.Sqrt((35*35+5*5+15*15+25*25)/4.0)) > 1e-9 {
				t.Errorf("RTV %g", sd)
			}
		}
	}
}

func TestSizeClasses(t *testing.T) {
	for size, want := range map[int]int{1: -1, 2: 0, 4: 0, 5: 1, 9: 1, 10: 2, 19: 2, 20: 3, 49: 3, 50: 4, 99: 4, 100: 5, 199: 5, 200: 6, 499: 6, 500: 7, 999: 7, 1000: 8, 123456: 8} {
		if got := SizeClass(size); got != want {
			t.Errorf("size %d: class %d, want %d", size, got, want)
		}
	}
}
