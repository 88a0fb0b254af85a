package printers

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gmark/gmark/workload"
)

// recorder is a reporter that collects failures instead of failing the test;
// Fatalf stops the check as on a *testing.T.
type recorder struct{ failures []string }

type fatal struct{}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(fatal{})
}

func runCheck(check structureCheck, j *workload.Job, cfg Config, out string) (failures []string) {
	r := &recorder{}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(fatal); !ok {
				panic(v)
			}
		}
		failures = r.failures
	}()
	check(r, j, cfg, out)
	return r.failures
}

// TestStructureChecksCatchBrokenOutput breaks printed descriptions in the
// ways a printer bug would and wants each check to notice: a check that
// cannot fail proves nothing.
func TestStructureChecksCatchBrokenOutput(t *testing.T) {
	tests := []struct {
		format, name string
		job          func() *workload.Job
		old, new     string
	}{
		{"rsl", "unbalanced parenthesis", singleJob, `(count=1)`, `(count=1`},
		{"rsl", "bad quote", smpiJob, `""big""`, `"big"`},
		{"rsl", "wrong DUROC index", coallocJob, `(GLOBUS_DUROC_SUBJOB_INDEX 1)`, `(GLOBUS_DUROC_SUBJOB_INDEX 0)`},
		{"rsl", "lost site", coallocJob, `( &(resourceManagerContact="fs2")`, `( &`},
		{"rsl", "single request for co-allocation", coallocJob, "+\n", "&\n"},
		{"koala", "wrong request type", coallocJob, `(koalaRequestType=semifixed)`, `(koalaRequestType=fixed)`},
		{"koala", "lost input file", coallocJob, ` ("input-b.dat" 4096)`, ``},
		{"classad", "two queues", singleJob, "queue\n", "queue\nqueue\n"},
		{"classad", "misspelled command", singleJob, "request_cpus", "request_cpu"},
		{"classad", "old argument syntax", smpiJob, `arguments = "`, `arguments = `},
		{"classad", "wrong machine count", smpiJob, "machine_count = 8", "machine_count = 4"},
		{"sbatch", "directive after the command", singleJob, "#SBATCH --ntasks=1\nexport GMARK_JOB_ID=1-0\n", "export GMARK_JOB_ID=1-0\n#SBATCH --ntasks=1\n"},
		{"sbatch", "tasks do not add up", coallocJob, "#SBATCH --ntasks=2\n", "#SBATCH --ntasks=3\n"},
		{"sbatch", "unknown option", singleJob, "--chdir=", "--workdir="},
		{"sbatch", "comment without the id", singleJob, "--comment=gmark:1-0", "--comment=gmark"},
		{"sge", "directive after the command", singleJob, "#$ -l h_rt=0:10:00\nexport GMARK_JOB_ID=1-0\n", "export GMARK_JOB_ID=1-0\n#$ -l h_rt=0:10:00\n"},
		{"sge", "no parallel environment", smpiJob, "#$ -pe mpi 8\n", ""},
		{"pbs", "wrong chunk count", smpiJob, "select=8:", "select=1:"},
		{"pbs", "no id in the environment", singleJob, "export GMARK_JOB_ID=1-0\n", ""},
		{"dagman", "lost dependency", diamondJob, "PARENT 4-0.b CHILD 4-0.d\n", ""},
		{"dagman", "node declared twice", diamondJob, "JOB 4-0.b submit-4-0.b\n", "JOB 4-0.b submit-4-0.b\nJOB 4-0.b submit-4-0.b\n"},
		{"dagman", "unclosed description", singleJob, "    queue\n}\n", "    queue\n"},
		{"dagman", "two queues in a node", singleJob, "    queue\n", "    queue\n    queue\n"},
		{"dagman", "lost retry", diamondJob, "RETRY 4-0.c 2\n", ""},
		{"dot", "lost edge", diamondJob, "\t\"4-0.c\" -> \"4-0.d\";\n", ""},
		{"dot", "not a digraph", singleJob, "digraph", "graph"},
		{"xrsl", "unbalanced parenthesis", singleJob, `(count=1)`, `(count=1`},
		{"xrsl", "wall time in minutes", singleJob, `(wallTime="600 seconds")`, `(wallTime="10")`},
		{"xrsl", "stdout not kept", singleJob, `(outputFiles=("1-0.out" "")`, `(outputFiles=`},
		{"xrsl", "wrong rank base", coallocJob, `("GMARK_RANK_BASE" "4")`, `("GMARK_RANK_BASE" "2")`},
		{"xrsl", "one request for co-allocation", coallocJob, "+\n", "&\n"},
		{"xrsl", "one process started of four", coallocJob, `GMARK_LOCAL_RANK=3 gmark app smpi --n 20 --x 1000 & `, ``},
		{"xrsl", "a $ in the launch script", coallocJob, `GMARK_LOCAL_RANK=0`, `GMARK_LOCAL_RANK=$r`},
	}
	for _, tt := range tests {
		t.Run(tt.format+"/"+tt.name, func(t *testing.T) {
			j := tt.job()
			out := printToString(t, mustLookup(t, tt.format), j, goldenConfig)
			if failures := runCheck(structureChecks[tt.format], j, goldenConfig, out); len(failures) > 0 {
				t.Fatalf("the check fails on correct output: %q", failures)
			}
			broken := strings.Replace(out, tt.old, tt.new, 1)
			if broken == out {
				t.Fatalf("the test is stale: %q is not in the output", tt.old)
			}
			if failures := runCheck(structureChecks[tt.format], j, goldenConfig, broken); len(failures) == 0 {
				t.Errorf("the check passes on broken output:\n%s", broken)
			}
		})
	}
}
