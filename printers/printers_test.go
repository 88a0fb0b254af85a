package printers

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/workload"
)

func TestRegistry(t *testing.T) {
	want := []string{"classad", "dagman", "dot", "koala", "pbs", "rsl", "sbatch", "sge", "xrsl"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	composite := map[string]bool{"dagman": true, "dot": true}
	for _, name := range want {
		p := mustLookup(t, name)
		if p.Composite() != composite[name] {
			t.Errorf("%s: Composite() = %v", name, p.Composite())
		}
		if p.Describe() == "" || p.Ext() == "" || strings.Contains(p.Ext(), ".") {
			t.Errorf("%s: describe %q ext %q", name, p.Describe(), p.Ext())
		}
		if c := p.Comment("job 1-0"); !strings.HasSuffix(c, "\n") || strings.Count(c, "\n") != 1 || !strings.Contains(c, "job 1-0") {
			t.Errorf("%s: Comment gives %q, want one line", name, c)
		}
	}
	if _, err := Lookup("nosuch"); err == nil || !strings.Contains(err.Error(), "sbatch") {
		t.Errorf("Lookup(nosuch) error %v should list the known formats", err)
	}
}

func TestPrintErrors(t *testing.T) {
	newline := singleJob()
	newline.App.Params[1].Value = "1\n#SBATCH --uid=0"
	spacedID := singleJob()
	spacedID.ID = "1 0"
	noComponents := singleJob()
	noComponents.Components = nil
	tests := []struct {
		format string
		job    *workload.Job
		cfg    Config
		want   string // in the error
	}{
		{"rsl", diamondJob(), Config{}, "unitary"},
		{"koala", diamondJob(), Config{}, "unitary"},
		{"classad", diamondJob(), Config{}, "unitary"},
		{"sbatch", diamondJob(), Config{}, "unitary"},
		{"sge", diamondJob(), Config{}, "unitary"},
		{"pbs", diamondJob(), Config{}, "unitary"},
		{"rsl", noComponents, Config{}, "no components"},
		{"sbatch", newline, Config{}, "control character"},
		{"dagman", newline, Config{}, "control character"},
		{"dot", newline, Config{}, "control character"},
		{"rsl", singleJob(), Config{Executable: "a\tb"}, "control character"},
		{"sge", singleJob(), Config{WorkDir: "/my runs"}, "work directory"},
		{"pbs", spacedID, Config{}, "job id"},
		{"pbs", singleJob(), Config{WorkDir: "host:/dir"}, "work directory"},
		{"dagman", spacedID, Config{}, "node name"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		err := mustLookup(t, tt.format).Print(&buf, tt.job, tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s job %q: err = %v, want one about %q", tt.format, tt.job.ID, err, tt.want)
		}
	}
}

// TestConfig checks that the configuration reaches every format: the
// executable, the work directory and the DAGMan retries.
func TestConfig(t *testing.T) {
	cfg := Config{Executable: "/opt/gmark/bin/gmark", WorkDir: "/scratch/run 1"}
	tests := []struct {
		format string
		want   []string
	}{
		{"rsl", []string{`(executable="/opt/gmark/bin/gmark")`, `(directory="/scratch/run 1")`}},
		{"koala", []string{`(executable="/opt/gmark/bin/gmark")`, `(directory="/scratch/run 1")`}},
		{"classad", []string{"executable = /opt/gmark/bin/gmark\n", "initialdir = /scratch/run 1\n"}},
		{"sbatch", []string{`#SBATCH --chdir="/scratch/run 1"` + "\n", "exec /opt/gmark/bin/gmark app sser"}},
		{"dagman", []string{"    executable = /opt/gmark/bin/gmark\n"}},
	}
	for _, tt := range tests {
		out := printToString(t, mustLookup(t, tt.format), singleJob(), cfg)
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", tt.format, w, out)
			}
		}
	}
	for _, tt := range []struct {
		workDir string
		sge     string
		pbs     []string
	}{
		{".", "#$ -cwd\n", []string{"#PBS -o 1-0.out\n", `cd "$PBS_O_WORKDIR" || exit 1`}},
		{"/scratch/runs", "#$ -wd /scratch/runs\n", []string{"#PBS -o /scratch/runs/1-0.out\n", "cd /scratch/runs || exit 1"}},
		{"runs/a", "#$ -wd runs/a\n", []string{"#PBS -o runs/a/1-0.out\n", `cd "$PBS_O_WORKDIR"/runs/a || exit 1`}},
	} {
		cfg := Config{WorkDir: tt.workDir}
		if out := printToString(t, mustLookup(t, "sge"), singleJob(), cfg); !strings.Contains(out, tt.sge) {
			t.Errorf("sge with work dir %s: no %q in\n%s", tt.workDir, tt.sge, out)
		}
		out := printToString(t, mustLookup(t, "pbs"), singleJob(), cfg)
		for _, w := range tt.pbs {
			if !strings.Contains(out, w) {
				t.Errorf("pbs with work dir %s: no %q in\n%s", tt.workDir, w, out)
			}
		}
	}
	for _, retries := range []int{0, -1} {
		out := printToString(t, mustLookup(t, "dagman"), diamondJob(), Config{Retries: retries})
		if strings.Contains(out, "RETRY") {
			t.Errorf("Retries %d writes RETRY lines:\n%s", retries, out)
		}
	}
}

func TestWallTimes(t *testing.T) {
	tests := []struct {
		d       time.Duration
		minutes int64
		hms     string
		sbatch  string
	}{
		{time.Second, 1, "0:00:01", "0:00:01"},
		{90 * time.Second, 2, "0:01:30", "0:01:30"},
		{10 * time.Minute, 10, "0:10:00", "10"},
		{10*time.Minute + time.Millisecond, 11, "0:10:01", "0:10:01"},
		{26*time.Hour + 3*time.Minute + 4*time.Second, 1564, "26:03:04", "26:03:04"},
	}
	for _, tt := range tests {
		if got := wallMinutes(tt.d); got != tt.minutes {
			t.Errorf("wallMinutes(%v) = %d, want %d", tt.d, got, tt.minutes)
		}
		if got := string(appendHMS(nil, tt.d)); got != tt.hms {
			t.Errorf("appendHMS(%v) = %s, want %s", tt.d, got, tt.hms)
		}
		j := singleJob()
		j.WallTime = tt.d
		if out := printToString(t, mustLookup(t, "sbatch"), j, Config{}); !strings.Contains(out, "--time="+tt.sbatch+"\n") {
			t.Errorf("sbatch with wall time %v: want --time=%s in\n%s", tt.d, tt.sbatch, out)
		}
	}
	// No wall time, no limit.
	j := singleJob()
	j.WallTime = 0
	for _, name := range Names() {
		out := printToString(t, mustLookup(t, name), j, Config{})
		for _, limit := range []string{"maxWallTime", "--time", "h_rt", "walltime", "periodic_remove"} {
			if strings.Contains(out, limit) {
				t.Errorf("%s writes %s for a job without wall time", name, limit)
			}
		}
	}
}

func TestKoalaRequestType(t *testing.T) {
	any1, fs0 := workload.Component{Site: workload.AnySite, Count: 1}, workload.Component{Site: "fs0", Count: 1}
	tests := []struct {
		siteType workload.SiteType
		comps    []workload.Component
		want     string
	}{
		{workload.Single, []workload.Component{any1}, KoalaNonFixed},
		{workload.Single, []workload.Component{fs0}, KoalaFixed},
		{workload.Ordered, []workload.Component{fs0, fs0}, KoalaFixed},
		{workload.Unordered, []workload.Component{any1, any1}, KoalaNonFixed},
		{workload.SemiOrdered, []workload.Component{fs0, any1}, KoalaSemiFixed},
		{workload.Flexible, []workload.Component{any1}, KoalaFlexible},
		{"", []workload.Component{fs0, any1}, KoalaSemiFixed},
		{"", []workload.Component{fs0, fs0}, KoalaFixed},
	}
	for _, tt := range tests {
		j := &workload.Job{SiteType: tt.siteType, Components: tt.comps}
		if got := koalaRequestType(j); got != tt.want {
			t.Errorf("%q with %v: %s, want %s", tt.siteType, tt.comps, got, tt.want)
		}
	}
}

// tricky are values that break naive quoting.
var tricky = []string{"", "plain", "two words", "it's", `say "hi"`, `back\slash`, "$HOME", "$(X)", "a'b\"c", "*", "#hash", "~user", "a=b", "%j", "é"}

func TestShellWord(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not installed; shell quoting is not checked against a shell")
	}
	var script []byte
	script = append(script, "printf '%s\\0'"...)
	for _, s := range tricky {
		script = append(script, ' ')
		script = appendShellWord(script, s)
	}
	out, err := exec.Command(sh, "-c", string(script)).Output()
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); !slices.Equal(got, tricky) {
		t.Errorf("sh read back %q, want %q", got, tricky)
	}
}

func TestCondorArgs(t *testing.T) {
	// The examples of the HTCondor manual for the new arguments syntax.
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"3", "simple", "arguments"}, `3 simple arguments`},
		{[]string{"one", "two with spaces", "3"}, `one 'two with spaces' 3`},
		{[]string{"one", `"two"`, "spacey 'quoted' argument"}, `one ""two"" 'spacey ''quoted'' argument'`},
		{[]string{"", "$HOME"}, `'' $(DOLLAR)HOME`},
	}
	for _, tt := range tests {
		var b []byte
		for i, a := range tt.args {
			if i > 0 {
				b = append(b, ' ')
			}
			b = appendCondorArg(b, a)
		}
		if string(b) != tt.want {
			t.Errorf("%q: got %s, want %s", tt.args, b, tt.want)
		}
		if back, err := splitCondorArgs(string(b)); err != nil || !slices.Equal(back, tt.args) {
			t.Errorf("%s reads back as %q (%v)", b, back, err)
		}
	}
	var b []byte
	for _, s := range tricky {
		b = append(appendCondorArg(b, s), ' ')
	}
	if back, err := splitCondorArgs(string(b)); err != nil || !slices.Equal(back, tricky) {
		t.Errorf("tricky values read back as %q (%v)", back, err)
	}
}

func TestRSLString(t *testing.T) {
	for _, s := range tricky {
		req := "&(arguments=" + string(appendRSLString(nil, s)) + ")"
		spec, err := parseRSL(req)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if v, _ := spec.relation("arguments"); len(v) != 1 || v[0].text != s || !v[0].quoted {
			t.Errorf("%q reads back as %q", s, values(v))
		}
	}
	if c := string(appendRSLComment(nil, "evil *) (count=9)")); strings.Count(c, "*)") != 1 {
		t.Errorf("comment %q ends early", c)
	}
}

func TestSbatchValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{"gmark-1-0", "gmark-1-0"},
		{"/scratch/run 1", `"/scratch/run 1"`},
		{`a"b\c#d`, `"a\"b\\c#d"`},
		{"", `""`},
	}
	for _, tt := range tests {
		if got := string(appendSbatchValue(nil, tt.in)); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := slurmFilename("a%j.out"); got != "a%%j.out" {
		t.Errorf("slurmFilename: %s", got)
	}
	if got := batchJobName("3-1/x:y z"); got != "gmark-3-1_x_y_z" {
		t.Errorf("batchJobName: %s", got)
	}
}

// TestSbatchHoldUntil runs a script printed with HoldUntil under /bin/sh
// (the #SBATCH lines are comments there): it holds until the file exists,
// however the file's name must be quoted, and then runs the program.
func TestSbatchHoldUntil(t *testing.T) {
	dir := t.TempDir()
	release := filepath.Join(dir, "it's a $release file")
	out := printToString(t, mustLookup(t, "sbatch"), singleJob(), Config{Executable: "echo", WorkDir: dir, HoldUntil: release})
	if !strings.Contains(out, "# gmark: hold the claimed processors") {
		t.Fatalf("no hold in\n%s", out)
	}
	if strings.Contains(printToString(t, mustLookup(t, "sbatch"), singleJob(), Config{}), "hold") {
		t.Fatal("a script without HoldUntil holds")
	}
	script := filepath.Join(dir, "job.sbatch")
	if err := os.WriteFile(script, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd := exec.Command("sh", script)
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("the script ended before the release file existed: %v, %q", err, stdout.String())
	case <-time.After(time.Second):
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := stdout.String(); !strings.HasPrefix(got, "app sser") {
		t.Fatalf("program output %q", got)
	}
}
