package sim

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/workload"
)

// runSeries simulates with a series, failing the test on error.
func runSeries(t testing.TB, cfg Config, top *topology.Topology, src Source) (*Result, *Series) {
	t.Helper()
	res, ser, err := RunWithSeries(cfg, top, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res, ser
}

func sum(v []int64) int64 {
	var n int64
	for _, x := range v {
		n += x
	}
	return n
}

// T1 (Sec. 6.4.1) in the series: 100 jobs at t = 0, 10 processors, 10,000
// s each: 100 arrivals in the first bin and 10 starts in the bins at 0,
// 10,000, …, 90,000 s, none elsewhere; the ends are the starts a wave
// later. The run lasts 100,000 s, and its last bin starts there: 200 bins
// of 500 s fall one short, so the bins are of 1,000 s (1, 5, 10, 50, 100,
// 500, 1,000 s), 101 of them.
func TestSeriesT1(t *testing.T) {
	top := topo(t, topology.Spec{Clusters: []topology.ClusterSpec{{Name: "c", Processors: 10}}})
	jobs := wave("j", "c", 100, 1, 0, 10_000*time.Second)
	for _, arch := range []string{"central", "sep-c", "cern"} {
		cfg := DefaultConfig(arch)
		cfg.InfoPeriod, cfg.CoolDown = 0, true
		res, ser := runSeries(t, cfg, top, &SliceSource{Jobs: jobs})
		if ser.Interval != 1000*time.Second {
			t.Fatalf("%s: interval %v, want 1000s", arch, ser.Interval)
		}
		if res.End != 100_000 || len(ser.Starts) != 101 {
			t.Fatalf("%s: end %v s, %d bins; want 100000 s, 101 (the last starting at the end)", arch, res.End, len(ser.Starts))
		}
		for i := range ser.Starts {
			at := time.Duration(i) * ser.Interval
			wantStarts, wantEnds, wantArrivals := int64(0), int64(0), int64(0)
			if at%(10_000*time.Second) == 0 && at < 100_000*time.Second {
				wantStarts = 10
			}
			if at%(10_000*time.Second) == 0 && at > 0 {
				wantEnds = 10
			}
			if i == 0 {
				wantArrivals = 100
			}
			if ser.Starts[i] != wantStarts || ser.Ends[i] != wantEnds || ser.Arrivals[i] != wantArrivals {
				t.Fatalf("%s: bin %d (t = %v): %d arrivals, %d starts, %d ends; want %d, %d, %d", arch, i, at,
					ser.Arrivals[i], ser.Starts[i], ser.Ends[i], wantArrivals, wantStarts, wantEnds)
			}
		}
	}
}

// The series adds up to the run's totals, and recording it changes
// nothing of the run, under every architecture, with failures (restarts)
// and leases (KeepAlives), with and without cool-down; under central's core
// model (hosted jobs); cut at a horizon; with the thesis's failures.
func TestSeriesTotals(t *testing.T) {
	top := flat(t, 64, 32, 16)
	jobs := synth(top, 0.8, 12*time.Hour, 7, nil)
	type variant struct {
		name string
		cfg  Config
	}
	var variants []variant
	for _, arch := range ArchNames() {
		for _, cool := range []bool{false, true} {
			cfg := DefaultConfig(arch)
			cfg.CoolDown = cool
			cfg.Outages = []Outage{{Cluster: "c1", At: 3 * time.Hour, For: time.Hour}}
			variants = append(variants, variant{fmt.Sprintf("%s cool-down %v", arch, cool), cfg})
		}
	}
	core := DefaultConfig("central")
	core.CentralModel, core.CoolDown = CentralCore, true
	variants = append(variants, variant{"central core", core})
	cut := DefaultConfig("dmm")
	cut.CoolDown, cut.Horizon = true, 6*time.Hour
	variants = append(variants, variant{"dmm cut at 6 h", cut})
	failing := DefaultConfig("condor")
	failing.Failures, failing.CoolDown = FailuresThesis, true
	variants = append(variants, variant{"condor with the thesis's failures", failing})
	restarts, keepAlives := 0, int64(0)
	for _, v := range variants {
		plain, tr := run(t, v.cfg, top, jobs)
		restarts += plain.Restarts
		keepAlives += plain.Messages[KeepAlive]
		res, ser := runSeries(t, v.cfg, top, &SliceSource{Jobs: jobs})
		if !reflect.DeepEqual(plain, res) {
			t.Fatalf("%s: the series changed the result:\n%+v\n%+v", v.name, plain, res)
		}
		starts, ends := 0, 0
		for id := range tr.started {
			starts += len(tr.started[id])
			ends += len(tr.ended[id])
		}
		if starts == 0 || sum(ser.Arrivals) != int64(res.Jobs) || sum(ser.Starts) != int64(starts) || sum(ser.Ends) != int64(ends) {
			t.Errorf("%s: series %d arrivals, %d starts, %d ends; run %d, %d, %d", v.name,
				sum(ser.Arrivals), sum(ser.Starts), sum(ser.Ends), res.Jobs, starts, ends)
		}
		for k := range ser.Messages {
			if got := sum(ser.Messages[k]); got != res.Messages[k] {
				t.Errorf("%s: %d %v messages in the series, %d in the result", v.name, got, MsgType(k), res.Messages[k])
			}
		}
		if n := len(ser.Starts); n > SeriesBins || time.Duration(n-1)*ser.Interval > secDuration(res.End) {
			t.Errorf("%s: %d bins of %v for a run of %v s", v.name, n, ser.Interval, res.End)
		}
	}
	if restarts == 0 || keepAlives == 0 {
		t.Errorf("%d restarts, %d KeepAlives in all: the test tests neither", restarts, keepAlives)
	}
}

// KeepAlives are filed when due: a single job of 1,000 s with a period of
// 300 s renews its lease at 300, 600 and 900 s.
func TestSeriesKeepAlivesWhenDue(t *testing.T) {
	top := flat(t, 4)
	cfg := DefaultConfig("condor")
	cfg.CoolDown, cfg.AlignedCycles, cfg.KeepAlivePeriod = true, true, 300*time.Second
	res, ser := runSeries(t, cfg, top, &SliceSource{Jobs: []workload.Job{job("a", "c0", 1, 0, 1000*time.Second)}})
	if res.Messages[KeepAlive] != 3 {
		t.Fatalf("%d KeepAlives, want 3", res.Messages[KeepAlive])
	}
	var at []time.Duration
	for i, n := range ser.Messages[KeepAlive] {
		for ; n > 0; n-- {
			at = append(at, time.Duration(i)*ser.Interval)
		}
	}
	start := secDuration(res.End) - 1000*time.Second
	for k, a := range at {
		due := start + time.Duration(k+1)*300*time.Second
		if a > due || due >= a+ser.Interval {
			t.Errorf("KeepAlive %d in the bin at %v (interval %v), due at %v", k+1, a, ser.Interval, due)
		}
	}
}

// Edges: no job at all (one bin at 0, all zero), and one job.
func TestSeriesEdges(t *testing.T) {
	top := flat(t, 4)
	res, ser := runSeries(t, DefaultConfig("central"), top, &SliceSource{})
	if res.Jobs != 0 || len(ser.Starts) != 1 || ser.Interval != time.Second || sum(ser.Arrivals) != 0 {
		t.Errorf("no job: %d jobs, %d bins of %v", res.Jobs, len(ser.Starts), ser.Interval)
	}
	res, ser = runSeries(t, DefaultConfig("central"), top, &SliceSource{Jobs: []workload.Job{job("a", "c0", 1, 7*time.Second, time.Second)}})
	if res.Jobs != 1 || ser.Arrivals[7] != 1 || len(ser.Arrivals) != 8 {
		t.Errorf("one job at 7 s: %d jobs, arrivals %v", res.Jobs, ser.Arrivals)
	}
}
