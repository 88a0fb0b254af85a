package site

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A koala site needs the core's address and a cluster; bad ones are
// refused with the reason.
func TestKoalaSpec(t *testing.T) {
	ok := Spec{Name: "k", Kind: Koala, Koala: "http://127.0.0.1:7070", Cluster: "A"}
	cases := []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"ok", func(*Spec) {}, ""},
		{"trailing slash", func(s *Spec) { s.Koala += "/" }, ""},
		{"no address", func(s *Spec) { s.Koala = "" }, "must be the core's address"},
		{"no scheme", func(s *Spec) { s.Koala = "127.0.0.1:7070" }, "must be the core's address"},
		{"a path", func(s *Spec) { s.Koala += "/v1/jobs" }, "must be the core's address"},
		{"ftp", func(s *Spec) { s.Koala = "ftp://127.0.0.1" }, "must be the core's address"},
		{"no cluster", func(s *Spec) { s.Cluster = "" }, "must name one of the core's clusters"},
		{"cluster with a slash", func(s *Spec) { s.Cluster = "a/b" }, "must name one of the core's clusters"},
		{"unknown kind", func(s *Spec) { s.Kind = "pbs" }, "is not zinf, slurm or koala"},
	}
	for _, c := range cases {
		s := ok
		c.edit(&s)
		err := s.Check()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}

// The placeholder job: one component of the site's cpus fixed on its
// cluster, the site's wall time, the agent's configuration beside the
// script; a local id with a slash is refused before any call.
func TestKoalaJob(t *testing.T) {
	s := Spec{Name: "k", Kind: Koala, Koala: "http://127.0.0.1:1", Cluster: "A", CPUs: 2, WallTime: "5m"}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	st, err := New(s, "/d/placeholder.koala")
	if err != nil {
		t.Fatal(err)
	}
	k := st.(*koala)
	j := k.job(time.Now())
	if err := j.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(j.Components) != 1 || j.Components[0].Site != "A" || j.Components[0].Count != 2 || j.WallTime.Minutes() != 5 ||
		j.App.Name != PlaceholderApp || j.App.Params[0].Value != "/d/agent.json" {
		t.Errorf("job %+v", j)
	}
	for _, id := range []string{"", "a/b", "x?y"} {
		if err := st.Kill(context.Background(), id); err == nil || !strings.Contains(err.Error(), "not a job id") {
			t.Errorf("kill %q: %v", id, err)
		}
	}
	if _, err := st.Free(context.Background()); err == nil {
		t.Error("a core that is not there answered")
	}
}
