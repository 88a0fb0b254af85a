package generator

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// Bounds of one FuzzGenerate run, so that a spec within the documented
// limits (10^9 jobs of 10^5 tasks, random DAGs of O(N²) work) still runs in
// a fraction of a second: every unit makes at most fuzzJobs jobs of at most
// fuzzTasks tasks, TargetLoad searches at most fuzzIterations steps,
// generation stops after fuzzTasks jobs and tasks, and a trace replay reads
// no file above fuzzTraceBytes. The costs of the largest sizes are the
// subject of TestDependencyCap and TestSizesCheckedBeforeAllocation.
const (
	fuzzJobs       = 5
	fuzzIterations = 2
	fuzzTasks      = 500
	fuzzTraceBytes = 1 << 20
)

// boundForFuzzing applies the bounds above to a parsed spec; false when the
// spec is not worth generating under them.
func boundForFuzzing(spec *wdl.Spec) bool {
	for _, u := range spec.Units {
		o := u.Options
		u.NTimes = min(u.NTimes, fuzzJobs)
		if o.Has("TargetLoad") {
			o.Set(wdl.Option{Key: "MaxIterations", Value: fmt.Sprint(fuzzIterations), Pos: u.Pos})
		}
		for _, key := range []string{"N", "NJobs", "MaxBoTSize"} {
			if opt, ok := o.Get(key); ok {
				if r, err := wdl.ParseRange(opt.Value); err == nil && r.Max > fuzzTasks {
					opt.Value = fmt.Sprint(fuzzTasks)
					if r.Min < fuzzTasks {
						opt.Value = fmt.Sprintf("%d-%d", r.Min, fuzzTasks)
					}
					o.Set(opt)
				}
			}
		}
		if u.Workload && u.Type == "bot" && !o.Has("MaxBoTSize") {
			o.Set(wdl.Option{Key: "MaxBoTSize", Value: fmt.Sprint(fuzzTasks), Pos: u.Pos})
		}
		if opt, ok := o.Get("File"); ok && u.Workload && u.Type == "trace" {
			path := opt.Value
			if !filepath.IsAbs(path) {
				path = filepath.Join(filepath.Dir(opt.Pos.File), path)
			}
			if fi, err := os.Stat(path); err == nil && fi.Size() > fuzzTraceBytes {
				return false
			}
		}
	}
	return true
}

var (
	errFuzzBudget = errors.New("budget spent")
	atPosition    = regexp.MustCompile(`^[^:\n]+:\d+:\d+: `)
)

// FuzzGenerate parses any spec and generates the first jobs of its workload:
// no panic; every error of New and Generate at a file:line:col; and every
// job within the limits, in submit order: no negative or wrapped duration,
// no size out of range, whatever the distributions draw.
func FuzzGenerate(f *testing.F) {
	for _, glob := range []string{"../examples/*.wdl", "../examples/thesis/*.wdl"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b, uint64(1))
			}
		}
	}
	for _, s := range []string{
		"5\tsser\tsingle\t1\t*:?\tPoisson(60s)\tRunTime=LogNorm(1000,1000)\n",
		"5\tsser\tsingle\t1\t*:?\tPoisson(60s)\tRunTime=Pareto(0.5,10s)\n5\tsser\tsingle\t1\t*:?\tPoisson(60s)\tRunTime=Pow2(N(40,1))\n",
		"5\tsser\tsingle\t1\t*:?\tPoisson(60s)\tRunTime=Emp(1s/1e7;3000000000s/1)\n",
		"5\tsmpi\tunordered\t?\t*:1\tPoisson(60s)\tNSites=10000000\n",
		"# File-version: 1.1\n?\tcomposite\t1\tchain\tsingle\t1\t-\tZero\tN=100000000\n",
		"2\tsameprob\tsingle\t1\t*:?\tZero\tN=10000,EdgeProb=1\n2\tsamepred\tsingle\t1\t*:?\tZero\tN=50-60,MeanPred=3\n",
		"4\tsser\tsingle\t1\t*:?\tU(5s,5s)\tRunTime=U(5s,5s),StartAt=36500d\n0\thello\tsingle\t1\t*:?\tZero\n",
		"3\twl:lublin\tsingle\t1\t*:?\t-\tVariant=grid,Processors=64,Size=Pareto(0.5,1),RunTime=LogNorm(4,1)\n",
		"3\twl:bot\tsingle\t1\t*:?\t-\tBoTSize=Pow2(N(20,5)),MaxBoTSize=100,ART=LogNorm(3,1)\n",
		"4\tswf\tsingle\t1\t*:?\tPoisson(1s)\tRunTime=LogNorm(4,1),TargetLoad=0.5,Processors=8\n",
		"2\tsmpi\tsingle\t1\t*:?\tZero\tNComponentsWithWeights=1024,ComponentSizeWithWeights=16384,SiteTypesWithWeights=nonfixed\n",
		"4\tswf\tunordered\t?\t-\tRSD(1,60,0.9)\tNComponentsWithWeights=RSD(2,4,1),ComponentSizeWithWeights=RSD(4,32,0.9),RunTime=RSD(1,3600,1e-3)\n",
	} {
		f.Add([]byte(s), uint64(7))
	}
	// A trace replay whose jobs read input files (testdata/small.swf: ten jobs).
	f.Add([]byte("2\twl:trace\tsingle\t1\t*:?\t-\tFile=testdata/small.swf,SiteMap=alpha:fs0,InputFilesWithWeights=a:1GB;b:2GB/3;c:1PB/0\n"), uint64(7))
	f.Add([]byte("1\twl:trace\tsingle\t1\t*:?\t-\tFile=testdata/small.swf,InputFilesWithWeights=a:1GB;a:2GB,InputFile=x\n"), uint64(7))
	f.Add([]byte("3\tsser\tsingle\t1\t*:?\tPoisson(1s)\tRunTime=LogNorm(4,1)\n"), uint64(1<<64-1))
	f.Add([]byte("3\tswf\tunordered\t8\t*:?\tPoisson(1m)\tNSites=2,RunTime=Exp(0.005),Deadline=U(1s,3599s)\n4\tsser\tsingle\t1\t*:?\tZero\tDeadline=2h\n"), uint64(3))
	f.Fuzz(func(t *testing.T, src []byte, seed uint64) {
		spec, err := wdl.Parse("f.wdl", src, wdl.ReadFile)
		if err != nil {
			return // FuzzParse checks the parser's errors
		}
		if !boundForFuzzing(spec) {
			return
		}
		g, err := New(spec, seed)
		if err != nil {
			var l wdl.ErrorList
			if !errors.As(err, &l) || len(l) == 0 {
				t.Fatalf("New: %T %v", err, err)
			}
			for _, e := range l {
				if !atPosition.MatchString(e.Error()) {
					t.Fatalf("New: error without file:line:col: %q", e.Error())
				}
			}
			return
		}
		spent := 0
		var last workload.Job
		_, err = g.Generate(func(j *workload.Job) error {
			checkJobInRange(t, j)
			if spent > 0 && j.Submit < last.Submit {
				t.Fatalf("job %s at %v after job %s at %v", j.ID, j.Submit, last.ID, last.Submit)
			}
			last.ID, last.Submit = j.ID, j.Submit
			spent += 1 + len(j.Tasks)
			if spent > fuzzTasks {
				return errFuzzBudget
			}
			return nil
		})
		var we *wdl.Error
		if err != nil && !errors.Is(err, errFuzzBudget) && (!errors.As(err, &we) || !atPosition.MatchString(err.Error())) {
			t.Fatalf("Generate: an error that is not at a unit's position: %T %v", err, err)
		}
	})
}
