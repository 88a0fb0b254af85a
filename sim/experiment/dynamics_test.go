package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/examples"
	"github.com/gmark/gmark/sim"
)

// runRow is a run's scenario and result as the store holds them.
type runRow struct {
	scenario, settings string
	res                sim.Result
}

func storedRuns(t *testing.T, db string) []runRow {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.DB().Query(`SELECT s.name, s.definition, res.result FROM sim_runs r
		JOIN sim_scenarios s ON s.id = r.scenario_id JOIN sim_results res ON res.digest = r.digest ORDER BY r.idx`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []runRow
	for rows.Next() {
		var r runRow
		var res string
		if err := rows.Scan(&r.scenario, &r.settings, &res); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(res), &r.res); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestT1SelfTest runs examples/sim/t1-selftest.toml through the
// experiment manager: with δ = 0 the makespan is 100,000 s; with δ > 0 it
// is 100,000 + δ when the grid scheduler overcommits (the thesis's "shifted
// by exactly δ") and 100,000 + 10·δ under soft reservation (docs/sim.md).
func TestT1SelfTest(t *testing.T) {
	const name = "sim/t1-selftest.toml"
	b, err := examples.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Parse(filepath.Join("examples", name), b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "t1.db")
	if _, err := Execute(context.Background(), e, RunOptions{DB: db, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"delta-0": 100_000, "delta-120": 100_120, "delta-300": 100_300, "delta-3600": 103_600,
		"reserve-delta-0": 100_000, "reserve-delta-120": 101_200, "reserve-delta-300": 103_000, "reserve-delta-3600": 136_000,
	}
	runs := storedRuns(t, db)
	if len(runs) != len(want) {
		t.Fatalf("%d runs, want %d", len(runs), len(want))
	}
	for _, r := range runs {
		w, ok := want[r.scenario]
		switch {
		case !ok:
			t.Errorf("scenario %q not expected", r.scenario)
		case r.res.End != w || r.res.Jobs != 100 || r.res.Finished != 100 || r.res.Processors != 10:
			t.Errorf("%s: makespan %v s, %d of %d jobs finished on %d processors; want %v s, 100 of 100 on 10", r.scenario, r.res.End, r.res.Finished, r.res.Jobs, r.res.Processors, w)
		}
	}
}

// TestDynamicsSettings: failures and growth switched on per scenario are
// in the scenario's record and in the runs' results (restarts, wasted,
// processors at the end); the scenario without them has none.
func TestDynamicsSettings(t *testing.T) {
	dir := t.TempDir()
	e := load(t, dir, `name = "dyn"
seed = 2
topology = "das2"
architectures = ["dmm"]
loads = [60]
[workload]
span = "6h"
[settings]
cool_down = true
[[scenario]]
name = "calm"
[[scenario]]
name = "failing"
[scenario.settings]
failures = "thesis"
failure_scale = 1.5
[[scenario]]
name = "growing"
[scenario.settings]
growth = "thesis"
growth_per_year = 100
growth_span = "14d"
growth_size_per_year = 0
`)
	sc := e.Scenarios
	if len(sc) != 3 || sc[1].Settings["failures"] != `"thesis"` || sc[1].Settings["failure_scale"] != "1.5" ||
		sc[2].Settings["growth"] != `"thesis"` || sc[2].Settings["growth_per_year"] != "100" || sc[2].Settings["growth_span"] != "336h0m0s" || sc[2].Settings["growth_size_per_year"] != "0" {
		t.Fatalf("settings recorded: %v / %v", sc[1].Settings, sc[2].Settings)
	}
	db := filepath.Join(dir, "r.db")
	if _, err := Execute(context.Background(), e, RunOptions{DB: db, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	runs := storedRuns(t, db)
	if len(runs) != 3 {
		t.Fatalf("%d runs", len(runs))
	}
	calm, failing, growing := runs[0], runs[1], runs[2]
	if calm.res.Restarts != 0 || calm.res.Processors != 400 || strings.Contains(calm.settings, "failures") {
		t.Errorf("calm: %d restarts, %d processors, record %s", calm.res.Restarts, calm.res.Processors, calm.settings)
	}
	if failing.res.Restarts == 0 || !(failing.res.Wasted > 0) || !strings.Contains(failing.settings, `"failures":"\"thesis\""`) {
		t.Errorf("failing: %d restarts, %v wasted, record %s", failing.res.Restarts, failing.res.Wasted, failing.settings)
	}
	if failing.res.Finished != failing.res.Jobs {
		t.Errorf("failing: %d of %d jobs finished after the cool-down", failing.res.Finished, failing.res.Jobs)
	}
	// 5 clusters at 10,000% a year: 5·101^(14/365) = 5.9; the first
	// would join at day 14.4, after the run: the run is the calm one, with
	// another digest (the settings are in its definition).
	r, err := e.Run(2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Config.GrowthPerYear != 100 || r.Config.GrowthSpan.Hours() != 14*24 || r.Config.GrowthSizePerYear == nil || *r.Config.GrowthSizePerYear != 0 {
		t.Errorf("growing: config %+v", r.Config)
	}
	if growing.res.Jobs != calm.res.Jobs || growing.res.Restarts != 0 || growing.res.End != calm.res.End || growing.res.Processors != 400 {
		t.Errorf("growing: %d jobs (calm %d), %d restarts, end %v (calm %v), %d processors", growing.res.Jobs, calm.res.Jobs, growing.res.Restarts, growing.res.End, calm.res.End, growing.res.Processors)
	}
	// The report gives them: a table of the restarts and the time they
	// wasted, the failing scenario's as stored.
	rep, err := ReadReport(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	var txt strings.Builder
	if err := rep.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("failing      dmm      60   1/1    %6.1f", float64(failing.res.Restarts))
	if !strings.Contains(txt.String(), "runs killed by failures or expired leases") || !strings.Contains(strings.Join(strings.Fields(txt.String()), " "), strings.Join(strings.Fields(want), " ")) {
		t.Errorf("the report's restarts table lacks %q:\n%s", want, txt.String())
	}
	t.Logf("calm: end %.0f s U %.3f; failing: %d restarts, %.4f CPU-years wasted, end %.0f s; growing: %d processors at the end %.0f s",
		calm.res.End, calm.res.Utilization, failing.res.Restarts, failing.res.Wasted, failing.res.End, growing.res.Processors, growing.res.End)
}
