package generator

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/workload"
)

// Deadline= as a duration is one deadline from the workload start; as a
// distribution, each job's deadline drawn from its submission. Either way
// the other attributes are what they are without the key (the deadline has
// a stream of its own), and generation is deterministic.
func TestDeadlineKey(t *testing.T) {
	base := "5\tswf\tunordered\t8\t*:?\tPoisson(60s)\tNSites=2,RunTime=Exp(0.005)"
	plain := generate(t, parse(t, "d.wdl", base), 7)
	drawn := generate(t, parse(t, "d.wdl", base+",Deadline=U(1s,3599s)"), 7)
	again := generate(t, parse(t, "d.wdl", base+",Deadline=U(1s,3599s)"), 7)
	fixed := generate(t, parse(t, "d.wdl", base+",Deadline=1h"), 7)
	if len(plain) != len(drawn) || len(plain) != len(fixed) || len(plain) == 0 {
		t.Fatalf("%d, %d, %d jobs", len(plain), len(drawn), len(fixed))
	}
	if !reflect.DeepEqual(drawn, again) {
		t.Error("the same spec and seed gave different deadlines")
	}
	distinct := map[time.Duration]bool{}
	for i := range plain {
		if plain[i].Deadline != 0 {
			t.Fatalf("%s: a deadline without Deadline=", plain[i].ID)
		}
		rel := drawn[i].Deadline - drawn[i].Submit
		if rel < time.Second || rel > 3599*time.Second || rel%time.Millisecond != 0 {
			t.Errorf("%s: deadline %v after the submission, want in [1s, 3599s] to the millisecond", drawn[i].ID, rel)
		}
		distinct[rel] = true
		if fixed[i].Deadline != time.Hour {
			t.Errorf("%s: fixed deadline %v, want 1h", fixed[i].ID, fixed[i].Deadline)
		}
		// Everything else is the job without a deadline.
		d, f := drawn[i], fixed[i]
		d.Deadline, f.Deadline = 0, 0
		if !reflect.DeepEqual(d, plain[i]) || !reflect.DeepEqual(f, plain[i]) {
			t.Errorf("%s: Deadline= changed other attributes:\n%+v\n%+v", plain[i].ID, d, plain[i])
		}
	}
	if len(distinct) < len(drawn)/2 {
		t.Errorf("only %d distinct deadlines over %d jobs", len(distinct), len(drawn))
	}
}

// A deadline drawn as 0 for a job submitted at the workload start would
// read as none: it is put 1 ms later. C(0) is a deadline at the submission.
func TestDeadlineAtSubmission(t *testing.T) {
	jobs := generate(t, parse(t, "d.wdl", "2\tsser\tsingle\t1\t*:?\tC(30s)\tDeadline=C(0)"), 1)
	want := []time.Duration{time.Millisecond, 30 * time.Second}
	for i, j := range jobs {
		if j.Deadline != want[i] {
			t.Errorf("%s submitted at %v: deadline %v, want %v", j.ID, j.Submit, j.Deadline, want[i])
		}
		if err := j.Validate(); err != nil {
			t.Error(err)
		}
	}
}

func TestDeadlineErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"not a duration", "5\tsser\tsingle\t1\t*:?\tZero\tDeadline=soon", `e.wdl:1:35: Deadline: "soon" is not a duration`},
		{"zero", "5\tsser\tsingle\t1\t*:?\tZero\tDeadline=0", "e.wdl:1:35: Deadline: a fixed deadline is a time after the workload start, so it must be > 0"},
		{"negative draws", "5\tsser\tsingle\t1\t*:?\tZero\tDeadline=N(10s,30s)", "e.wdl:1:35: Deadline: N(10,30) gives values below 0 s"},
		{"no mean", "5\tsser\tsingle\t1\t*:?\tZero\tDeadline=Pareto(0.5,10s)", "e.wdl:1:35: Deadline: Pareto(0.5,10) has no finite mean"},
		{"bad parameter", "5\tsser\tsingle\t1\t*:?\tZero\tDeadline=U(5s,1s)", "e.wdl:1:35: Deadline: "},
		{"composite", "5\tchain\tsingle\t1\t*:?\tZero\tN=3,Deadline=1h", "e.wdl:1:31: Deadline applies to unitary jobs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(parse(t, "e.wdl", c.src), 1)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %v\nwant prefix %s", err, c.want)
			}
		})
	}
}

// A deadline drawn past 100 years from the workload start is an error of
// the job, not a wrapped time.
func TestDeadlinePastTheLimit(t *testing.T) {
	spec := parse(t, "d.wdl", "1\tsser\tsingle\t1\t*:?\tZero\tStartAt=36499d,Deadline=C(2d)")
	g, err := New(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Generate(func(*workload.Job) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "passes 100 years") {
		t.Errorf("error %v, want one about 100 years", err)
	}
}
