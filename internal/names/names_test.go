package names

import "testing"

type item struct {
	name    string
	aliases []string
}

func all(i *item) []string { return append([]string{i.name}, i.aliases...) }

func TestIndex(t *testing.T) {
	a, b := &item{"W", []string{"Weibull"}}, &item{"N", []string{"Normal"}}
	m := Index([]*item{a, b}, all, false)
	if m["W"] != a || m["Weibull"] != a || m["Normal"] != b || m["weibull"] != nil || len(m) != 4 {
		t.Fatalf("%v", m)
	}
	f := Index([]*item{a, b}, all, true)
	if f["weibull"] != a || f["w"] != a || f["W"] != nil {
		t.Fatalf("folded %v", f)
	}
}

func TestIndexRefusesADuplicate(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a name given twice was accepted")
		}
	}()
	Index([]*item{{"W", nil}, {"N", []string{"w"}}}, all, true)
}
