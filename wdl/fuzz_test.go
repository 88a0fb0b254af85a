package wdl

import (
	"errors"
	"os"
	"regexp"
	"testing"
)

var positioned = regexp.MustCompile(`^[^:\n]+:\d+:\d+: `)

// checkParse is what must hold for any input: no panic, and either a spec
// whose units are complete or an error list where every entry has a position.
func checkParse(t *testing.T, name string, src []byte, files memFS) {
	spec, err := Parse(name, src, files.open)
	if err != nil {
		var l ErrorList
		if !errors.As(err, &l) || len(l) == 0 {
			t.Fatalf("error is not a non-empty ErrorList: %T %v", err, err)
		}
		for _, e := range l {
			if !positioned.MatchString(e.Error()) || e.Pos.Line < 1 || e.Pos.Col < 1 {
				t.Fatalf("error without file:line:col: %q", e.Error())
			}
		}
		return
	}
	if len(spec.Units) == 0 {
		t.Fatal("no error and no units")
	}
	for _, u := range spec.Units {
		if u.Arrival.Dist == nil || u.Options == nil || u.SiteType == "" || u.Type == "" {
			t.Fatalf("incomplete unit %+v", u)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, path := range []string{"../examples/thesis/fig5_4.wdl"} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("# File-version: 1.1\n?\tcomposite\t3\tchain\tsingle\t1\t-\tZero\tN=3-5,L=3-5\n"))
	f.Add([]byte("4\tsmpi\tsemi-ordered\t12\tfs1:4\tHPoisson2(0.5,1m,2h)\tNSites=3,X=\"a,b\"\n"))
	f.Add([]byte("2\tsser\tordered\t?\tfs1:3,*:2\tEmp(1s/2;5m)\tExternalFile=x.xin\n"))
	files := memFS{"x.xin": "A=1\n*B=2,C=3\nExternalFile=x.xin\n"}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkParse(t, "f.wdl", src, files)
	})
}

func FuzzExtFile(f *testing.F) {
	if b, err := os.ReadFile("../examples/thesis/smpi1.xin"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("*NSites=2, TotalCPUsWithWeights=2;4/3\n# c\nExternalFile=e.xin\nZ=\"q\"\n"))
	f.Fuzz(func(t *testing.T, ext []byte) {
		files := memFS{"e.xin": string(ext)}
		checkParse(t, "f.wdl", []byte("5\tsmpi\tsingle\t1\t*:?\tZero\tExternalFile=e.xin\n"), files)
	})
}
