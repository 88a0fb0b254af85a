package printers

import (
	"time"

	"github.com/gmark/gmark/workload"
)

// The jobs every printer is tested on. Built as literals: the tests must not
// depend on the generator.

// singleJob is a sequential job on one processor, anywhere.
func singleJob() *workload.Job {
	return &workload.Job{
		ID: "1-0", Unit: 1, Index: 0, Kind: workload.Unitary, Type: "sser",
		Submit: 12 * time.Second, SiteType: workload.Single, WallTime: 10 * time.Minute,
		App: workload.App{Name: "sser", Params: []workload.Param{
			{Key: "n", Value: "5"}, {Key: "m", Value: "100"},
		}},
		Components: []workload.Component{{Site: workload.AnySite, Count: 1}},
	}
}

// smpiJob is an MPI job of 8 processors on one site. Its parameters carry
// blanks, quotes, a '$' and a bare flag, to exercise every format's quoting.
func smpiJob() *workload.Job {
	return &workload.Job{
		ID: "2-3", Unit: 2, Index: 3, Kind: workload.Unitary, Type: "smpi",
		Submit: 30 * time.Second, SiteType: workload.Single, WallTime: 15 * time.Minute,
		App: workload.App{Name: "smpi", Params: []workload.Param{
			{Key: "n", Value: "10"},
			{Key: "x", Value: "5000"},
			{Key: "tag", Value: `it's a "big" $run`},
			{Key: "noinput"},
		}},
		Components: []workload.Component{{Site: workload.AnySite, Count: 8}},
	}
}

// coallocJob is a co-allocated job of three components, two placed by the
// scheduler and one fixed on fs2, with two input files; its wall time is not
// a whole number of minutes.
func coallocJob() *workload.Job {
	return &workload.Job{
		ID: "3-1", Unit: 3, Index: 1, Kind: workload.Unitary, Type: "smpi",
		Submit: 45 * time.Second, SiteType: workload.SemiOrdered, WallTime: 90 * time.Second,
		App: workload.App{Name: "smpi", Params: []workload.Param{
			{Key: "n", Value: "20"}, {Key: "x", Value: "1000"},
		}},
		Components: []workload.Component{
			{Site: workload.AnySite, Count: 4},
			{Site: workload.AnySite, Count: 2},
			{Site: "fs2", Count: 2},
		},
		Files: []workload.File{{Name: "input-a.dat", Size: 1 << 20}, {Name: "input-b.dat", Size: 4096}},
	}
}

// orderedJob is a co-allocated job whose two components are fixed on two
// different sites, which no single batch job can honour.
func orderedJob() *workload.Job {
	return &workload.Job{
		ID: "5-2", Unit: 5, Index: 2, Kind: workload.Unitary, Type: "smpi",
		Submit: 50 * time.Second, SiteType: workload.Ordered, WallTime: 2 * time.Hour,
		App: workload.App{Name: "smpi", Params: []workload.Param{{Key: "n", Value: "50"}}},
		Components: []workload.Component{
			{Site: "fs0", Count: 16},
			{Site: "fs1", Count: 8},
		},
	}
}

// deadlineJob is a co-allocated job of two 8-processor components with a
// start deadline 10.4 s after its submission and a wall time of 200 s (not
// a whole number of minutes), as Ballier et al.'s global jobs are.
func deadlineJob() *workload.Job {
	return &workload.Job{
		ID: "6-0", Unit: 6, Index: 0, Kind: workload.Unitary, Type: "smpi",
		Submit: 100 * time.Second, SiteType: workload.Unordered, WallTime: 200 * time.Second,
		Deadline: 110400 * time.Millisecond,
		App:      workload.App{Name: "smpi", Params: []workload.Param{{Key: "n", Value: "5"}}},
		Components: []workload.Component{
			{Site: workload.AnySite, Count: 8},
			{Site: workload.AnySite, Count: 8},
		},
	}
}

// diamondJob is a composite job of four tasks: a → b, a → c, b → d, c → d.
func diamondJob() *workload.Job {
	task := func(node string, procs int) workload.Job {
		return workload.Job{
			ID: "4-0." + node, Unit: 4, Index: 0, Kind: workload.Unitary, Type: "sser",
			SiteType: workload.Single, WallTime: 5 * time.Minute,
			App:        workload.App{Name: "sser", Params: []workload.Param{{Key: "n", Value: "2"}}},
			Components: []workload.Component{{Site: workload.AnySite, Count: procs}},
		}
	}
	return &workload.Job{
		ID: "4-0", Unit: 4, Index: 0, Kind: workload.Composite, Type: "diamond",
		Submit: time.Minute,
		Tasks:  []workload.Job{task("a", 1), task("b", 1), task("c", 2), task("d", 1)},
		Deps: []workload.Dependency{
			{From: "4-0.a", To: "4-0.b"}, {From: "4-0.a", To: "4-0.c"},
			{From: "4-0.b", To: "4-0.d"}, {From: "4-0.c", To: "4-0.d"},
		},
	}
}

// testCase is one job to print, by the name of its golden files.
type testCase struct {
	name string
	job  func() *workload.Job
}

var unitaryCases = []testCase{
	{"single", singleJob},
	{"smpi", smpiJob},
	{"coalloc", coallocJob},
	{"ordered", orderedJob},
	{"deadline", deadlineJob},
}

var compositeCase = testCase{"diamond", diamondJob}
