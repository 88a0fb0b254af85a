package gwa

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
)

// The job count, site count, span and status counts of the real LCG trace
// agree with its header and with an independent recount by zcat and awk.
func TestLCGAgreesWithHeaderAndAwk(t *testing.T) {
	path := testkit.LCG(t)
	for _, tool := range []string{"zcat", "awk", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	a := analyzeFile(t, path)
	// awk: jobs, distinct partitions/users/groups (not -1), first and last
	// submit, status counts, processor-seconds.
	script := `!/^[ \t]*;/ && NF > 0 {
		n++; if ($16 != -1) p[$16] = 1; if ($12 != -1) u[$12] = 1; if ($13 != -1) g[$13] = 1
		if (n == 1 || $2 < lo) lo = $2; if (n == 1 || $2 > hi) hi = $2
		s[$11]++
		if ($4 > 0) { pr = ($5 > 0) ? $5 : (($8 > 0) ? $8 : 1); cpu += $4 * pr }
	}
	END {
		np = 0; for (k in p) np++; nu = 0; for (k in u) nu++; ng = 0; for (k in g) ng++
		printf "%d %d %d %d %d %d %d %d %d %d %d %.0f\n", n, np, nu, ng, lo, hi, s[1]+0, s[0]+0, s[5]+0, s[-1]+0, s[2]+s[3]+s[4], cpu
	}`
	out, err := exec.Command("sh", "-c", "zcat "+path+" | awk '"+script+"'").Output()
	if err != nil {
		t.Fatalf("zcat | awk: %v", err)
	}
	f := strings.Fields(string(out))
	num := func(i int) int64 {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			t.Fatalf("awk output %q: %v", out, err)
		}
		return v
	}
	got := []int64{a.Totals.Jobs, int64(a.Totals.Sites), int64(a.Totals.Users), int64(a.Totals.Groups),
		int64(a.Totals.FirstSubmit.Value), int64(a.Totals.LastSubmit.Value), a.Status.Completed, a.Status.Failed,
		a.Status.Cancelled, a.Status.Unknown, a.Status.Partial, int64(a.Totals.CPUYears*365*86400 + 0.5)}
	names := []string{"jobs", "sites", "users", "groups", "first submit", "last submit", "completed", "failed", "cancelled", "unknown status", "partial", "processor-seconds"}
	for i := range got {
		if want := num(i); got[i] != want {
			t.Errorf("%s: gmark %d, awk %d", names[i], got[i], want)
		}
	}
	// The header.
	_, h := firstRecord(t, path)
	if h.MaxJobs != int(a.Totals.Jobs) {
		t.Errorf("header MaxJobs %d, %d jobs read", h.MaxJobs, a.Totals.Jobs)
	}
	if v, _ := h.Value("MaxPartitions"); v != strconv.Itoa(a.Totals.Sites) || len(h.Partitions) != a.Totals.Sites {
		t.Errorf("header MaxPartitions %s with %d Partition lines, %d sites in the jobs", v, len(h.Partitions), a.Totals.Sites)
	}
	if h.MaxProcs != a.Totals.Processors {
		t.Errorf("header MaxProcs %d, analysis %d", h.MaxProcs, a.Totals.Processors)
	}
	// The span lies inside the header's StartTime..EndTime.
	start, _ := h.Value("StartTime")
	end, _ := h.Value("EndTime")
	layout := "Mon Jan 02 15:04:05 MST 2006"
	ts, err1 := time.Parse(layout, strings.Join(strings.Fields(start), " "))
	te, err2 := time.Parse(layout, strings.Join(strings.Fields(end), " "))
	if err1 != nil || err2 != nil {
		t.Fatalf("header times %q %q: %v %v", start, end, err1, err2)
	}
	if ts.Unix() != h.UnixStartTime {
		t.Errorf("StartTime %v is not UnixStartTime %d", ts, h.UnixStartTime)
	}
	if a.Totals.FirstSubmit.Value < 0 || float64(h.UnixStartTime)+a.Totals.LastSubmit.Value > float64(te.Unix()) {
		t.Errorf("submissions %g..%g s fall outside the header's %v..%v", a.Totals.FirstSubmit.Value, a.Totals.LastSubmit.Value, ts, te)
	}
	t.Logf("LCG: %d jobs, %d sites, %d users, span %gs, status unknown %d; awk: %s", a.Totals.Jobs, a.Totals.Sites, a.Totals.Users, a.Totals.Span, a.Status.Unknown, strings.TrimSpace(string(out)))
}

func firstRecord(t *testing.T, path string) (Record, *Header) {
	t.Helper()
	r, err := Open(path, ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	return rec, r.Header()
}

// LCG written by gmark as GWF, and as GWF-SQLite, reads back to identical
// analysis results, and the records survive SWF → GWF → SWF and
// GWF → SQLite → GWF exactly.
func TestLCGRoundTrips(t *testing.T) {
	path := testkit.LCG(t)
	dir := t.TempDir()
	orig, origHdr := openAll(t, path)
	want := analysisJSON(t, analyzeFile(t, path))

	gwf := filepath.Join(dir, "lcg.gwf")
	convertFile(t, path, gwf, GWF)
	if got := analysisJSON(t, analyzeFile(t, gwf)); got != want {
		t.Errorf("GWF analysis differs from the SWF's:\n%s\n%s", got[:min(len(got), 400)], want[:min(len(want), 400)])
	}
	db := filepath.Join(dir, "lcg.db3")
	convertFile(t, gwf, db, SQLite)
	if got := analysisJSON(t, analyzeFile(t, db)); got != want {
		t.Errorf("SQLite analysis differs from the SWF's")
	}
	gwf2 := filepath.Join(dir, "back.gwf")
	convertFile(t, db, gwf2, GWF)
	swf := filepath.Join(dir, "back.swf.gz")
	convertFile(t, gwf2, swf, SWF)

	for _, p := range []string{gwf, db, gwf2, swf} {
		recs, h := openAll(t, p)
		if len(recs) != len(orig) {
			t.Fatalf("%s: %d records, want %d", filepath.Base(p), len(recs), len(orig))
		}
		for i := range recs {
			if !reflect.DeepEqual(recs[i], orig[i]) {
				t.Fatalf("%s: record %d\n got %+v\nwant %+v", filepath.Base(p), i, recs[i], orig[i])
			}
		}
		if h.UnixStartTime != origHdr.UnixStartTime || h.MaxProcs != origHdr.MaxProcs || h.MaxJobs != origHdr.MaxJobs ||
			!reflect.DeepEqual(h.Partitions, origHdr.Partitions) || !reflect.DeepEqual(h.Lines, origHdr.Lines) {
			t.Errorf("%s: header changed:\n%+v\nwant\n%+v", filepath.Base(p), h, origHdr)
		}
	}
}

// Without its MaxProcs line, LCG's system size is
// estimated as the peak of processors in use at once, which a sort of
// every start and end recounts exactly; the utilization on it is at most
// 100%, and the ranking says its cores and utilization rest on it.
func TestLCGEstimatedSize(t *testing.T) {
	path := testkit.LCG(t)
	recs, h := openAll(t, path)
	type event struct{ t, d float64 }
	var ev []event
	for i := range recs {
		r := &recs[i]
		if r.RunTime > 0 {
			p := max(r.Procs(), 1)
			ev = append(ev, event{r.Start(), p}, event{r.Start() + r.RunTime, -p})
		}
	}
	sort.Slice(ev, func(i, j int) bool { return ev[i].t < ev[j].t || ev[i].t == ev[j].t && ev[i].d < ev[j].d })
	load, peak := 0.0, 0.0
	for _, e := range ev {
		load += e.d
		peak = max(peak, load)
	}
	noSize := *h
	noSize.MaxProcs = 0
	an := NewAnalyzer(&noSize, AnalysisOptions{})
	for i := range recs {
		an.Add(&recs[i])
	}
	a := an.Result()
	u := a.Utilization
	if float64(u.Processors) != peak || !u.ProcessorsEstimated || u.Average.Value > 1 {
		t.Errorf("estimate %d processors (estimated %v), utilization %v; the recount's peak is %g", u.Processors, u.ProcessorsEstimated, u.Average, peak)
	}
	if !a.Ranking.Estimated[CatCores] || !a.Ranking.Estimated[CatUtilization] {
		t.Errorf("ranking %v does not say it rests on an estimate", a.Ranking)
	}
	t.Logf("LCG without MaxProcs: %d processors estimated (header: %d), utilization %.2f%%, ranking %v", u.Processors, h.MaxProcs, 100*u.Average.Value, a.Ranking)
}
