package arc

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/arc/arctest"
	"github.com/gmark/gmark/submitter/ce"
)

// An ended job whose record on the CE has lost its name still has its
// output copied: the files are named after the part, which the target
// knows. (A-REX served such a record under load, around a restart of the
// CE, and the job was recorded as succeeded with its output left behind.)
// The record is made to lose its name by taking it out of the CE's
// control files once the job has finished.
func TestLiveOutputOfARecordWithoutItsName(t *testing.T) {
	t.Parallel()
	g := newGrid(t, arctest.Options{Name: "a"})
	tg, err := New(g.config())
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	b := tg.backends[0]
	ctx := context.Background()
	j := job("1-0", "sser", map[string]string{"supersteps": "1"}, "a:1")
	name := "gmark-1-0.a1-noname"
	sub, err := b.Submit(ctx, &ce.Request{Name: name, Job: &j})
	if err != nil {
		t.Fatal(err)
	}
	c := g.ces[0]
	if st, err := c.WaitState(sub.ID, 3*time.Minute, "FINISHED", "FAILED", "KILLED"); err != nil || st != "FINISHED" {
		t.Fatalf("the job ended %q: %v", st, err)
	}
	control := filepath.Join(c.Dir, "control")
	forget := func() {
		for _, f := range []struct{ glob, re string }{
			{"job." + sub.ID + ".local", `(?m)^jobname=.*\n`},
			{"*/job." + sub.ID + ".xml", `<Name>[^<]*</Name>`},
			{"job." + sub.ID + ".xml", `<Name>[^<]*</Name>`},
		} {
			paths, _ := filepath.Glob(filepath.Join(control, f.glob))
			for _, p := range paths {
				if b, err := os.ReadFile(p); err == nil {
					os.WriteFile(p, regexp.MustCompile(f.re).ReplaceAll(b, nil), 0o644)
				}
			}
		}
	}
	forget()
	infos, err := b.client.Info(ctx, []string{sub.ID})
	if err != nil || len(infos) != 1 || infos[0].Info == nil {
		t.Fatalf("the CE's record of the job: %+v %v", infos, err)
	}
	if infos[0].Info.Name != "" {
		t.Fatalf("the CE's record still names the job %q: the test cannot take its name away", infos[0].Info.Name)
	}
	var st ce.Status
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		forget() // the information provider may write the record again
		got, err := b.Poll(ctx, []ce.Ref{{ID: sub.ID, Name: name}})
		if err != nil {
			t.Fatal(err)
		}
		if st = got[sub.ID]; st.State.Final() || time.Now().After(deadline) {
			break
		}
	}
	if st.State != submitter.Succeeded {
		t.Fatalf("the job is %v (%s), want succeeded", st.State, st.CEState)
	}
	for _, ext := range []string{".out", ".err"} {
		if _, err := os.Stat(filepath.Join(g.work, name+ext)); err != nil {
			t.Errorf("its %s was not copied: %v", ext, err)
		}
	}
}
