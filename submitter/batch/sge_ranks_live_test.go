package batch

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/gmark/gmark/apps/output"
	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/submitter/batch/sgetest"
	"github.com/gmark/gmark/workload"
)

var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

// TestLiveSGERanks: the sge printer's script of a parallel smpi job, run by
// a real Grid Engine cell with no mpiexec on the job's PATH, starts the job's
// processes itself; each of the real gmark's processes learns a distinct
// rank 0..P−1 of P from what Grid Engine and the script give it (nothing
// else sets a rank) and exchanges with all the others. A job of one
// processor runs alone.
func TestLiveSGERanks(t *testing.T) {
	cell := sgetest.Start(t, sgetest.Options{Slots: 4})
	bin := t.TempDir() // the job's PATH: the tools the script uses, and no mpiexec
	for _, tool := range []string{"grep", "hostname"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s is not installed", tool)
		}
		if err := os.Symlink(path, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	gmark := gmarkBin.Path(t)
	const supersteps, exchange = 3, 50
	for _, counts := range [][]int{{4}, {2, 2}, {1}} {
		j := &workload.Job{ID: "ranks-" + strconv.Itoa(len(counts)) + "-" + strconv.Itoa(counts[0]),
			Kind: workload.Unitary, Type: "smpi",
			App: workload.App{Name: "smpi", Params: []workload.Param{{Key: "supersteps", Value: strconv.Itoa(supersteps)},
				{Key: "memory", Value: "1"}, {Key: "exchange", Value: strconv.Itoa(exchange)},
				{Key: "rendezvous-timeout", Value: "1m"}, {Key: "quiet"}}}}
		for _, n := range counts {
			j.Components = append(j.Components, workload.Component{Site: workload.AnySite, Count: n})
		}
		p, work := j.Processors(), t.TempDir()
		var script bytes.Buffer
		if err := mustPrinter(t, "sge").Print(&script, j, printers.Config{Executable: gmark, WorkDir: work}); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(work, "job.sge")
		if err := os.WriteFile(path, script.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := cell.Cmd("qsub", "-sync", "y", "-v", "PATH="+bin, path).CombinedOutput(); err != nil {
			stderr, _ := os.ReadFile(filepath.Join(work, j.ID+".err"))
			t.Fatalf("%s: qsub -sync y: %v: %s\nstderr: %s\n%s", j.ID, err, out, stderr, cell.Logs())
		}
		stdout, err := os.ReadFile(filepath.Join(work, j.ID+".out"))
		if err != nil {
			t.Fatal(err)
		}
		var ranks []int
		for _, line := range bytes.Split(stdout, []byte("\n")) {
			if len(line) == 0 || line[0] != '{' {
				continue
			}
			s, err := output.ParseSummary(line)
			if err != nil {
				t.Fatalf("%s: %v", j.ID, err)
			}
			num := func(k string) int { f, _ := s[k].(float64); return int(f) }
			ranks = append(ranks, num("rank"))
			elements := supersteps * exchange * (p - 1)
			if s["ok"] != true || s["job_id"] != j.ID || num("size") != p || num("peers") != p-1 ||
				num("sent_elements") != elements || num("received_elements") != elements {
				t.Errorf("%s: summary %v; want ok, size %d, %d peers, %d elements sent and received", j.ID, s, p, p-1, elements)
			}
		}
		slices.Sort(ranks)
		want := make([]int, p)
		for i := range want {
			want[i] = i
		}
		if !slices.Equal(ranks, want) {
			t.Errorf("%s: ranks %v, want %v\n%s", j.ID, ranks, want, stdout)
		}
	}
}

func mustPrinter(t *testing.T, name string) printers.Printer {
	t.Helper()
	p, err := printers.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
