package experiment

import (
	"fmt"
	"strings"
	"testing"
)

// Automatic counts: free processors, or shares of auto_total in
// proportion to the rates, each at least 1 and at most max_count.
func TestAutoCounts(t *testing.T) {
	three := func(a, b, c string) string {
		return "units = [1, 2, 3]\n%s\n[[site]]\nname = \"A\"\nrate = 0.25\n" + a + "\n[[site]]\nname = \"B\"\nrate = 0.0733\n" + b +
			"\n[[site]]\nname = \"C\"\nrate = 0.325\n" + c + "\n"
	}
	auto := "placeholders = \"auto\""
	cases := []struct {
		name, top, src string
		want           []int
	}{
		// 10 × (0.25, 0.0733, 0.325) / 0.6483 = 3.86, 1.13, 5.01: floors
		// 3, 1, 5, and A has the largest remainder.
		{"shares of the rates", "auto_total = 10", three(auto, auto, auto), []int{4, 1, 5}},
		{"processors", "", three(auto+"\nprocessors = 16", auto+"\nprocessors = 32", auto+"\nprocessors = 64"), []int{16, 32, 64}},
		{"max_count", "", three(auto+"\nprocessors = 16\nmax_count = 8", auto+"\nprocessors = 2\nmax_count = 8", "placeholders = 3"), []int{8, 2, 3}},
		{"at least one", "auto_total = 2", three(auto, auto, auto), []int{1, 1, 1}},
		{"mixed", "auto_total = 7", three(auto, "placeholders = 2", auto+"\nprocessors = 5"), []int{7, 2, 5}},
		{"fixed only", "", three("", "placeholders = 4", ""), []int{1, 4, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sp, err := Parse("a.toml", []byte(fmt.Sprintf(c.src, c.top)))
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, s := range sp.Sites {
				got = append(got, s.Placeholders)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("counts %v, want %v", got, c.want)
			}
			if err := sp.Check(); err != nil || fmt.Sprint(got) != fmt.Sprint(counts(sp)) {
				t.Errorf("checked again: %v %v", counts(sp), err)
			}
		})
	}
	site := "[[site]]\nname = \"A\"\nrate = 1\n"
	for _, c := range []struct{ src, want string }{
		{"units = [1]\n" + site + "placeholders = \"auto\"\n", "x.toml:5: site A: placeholders = \"auto\" needs"},
		{"units = [1]\n" + site + "placeholders = \"many\"\n", "x.toml:5: site A: placeholders \"many\""},
		{"units = [1]\n" + site + "placeholders = 0\n", "x.toml:5: site A: placeholders 0"},
		{"units = [1]\n" + site + "placeholders = 1.5\n", "x.toml:5: site A: placeholders 1.5"},
		{"units = [1]\n" + site + "processors = -1\n", "x.toml:5: site A: processors"},
		{"units = [1]\n" + site + "max_count = -1\n", "x.toml:5: site A: max_count"},
		{"units = [1]\nauto_total = -3\n" + site, "x.toml:2: auto_total"},
	} {
		_, err := Parse("x.toml", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q…", c.src, err, c.want)
		}
	}
}

func counts(sp *Spec) []int {
	var n []int
	for _, s := range sp.Sites {
		n = append(n, s.Placeholders)
	}
	return n
}

// Experiment 1's workload with a budget of 9 placeholders: shared out by
// rate (auto: 3, 1, 5 … see TestAutoCounts) against three per site. The
// slow site B's share is smaller, so fewer jobs end late on it.
func TestAutoAgainstEqual(t *testing.T) {
	eq := load(t, "exp1.toml")
	eq.Modes = []string{Placeholder}
	for i := range eq.Sites {
		eq.Sites[i].Placeholders = 3
	}
	auto := load(t, "exp1.toml")
	auto.Modes = []string{Placeholder}
	auto.AutoTotal = 9
	for i := range auto.Sites {
		auto.Sites[i].Count = Auto
	}
	if err := auto.Check(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(counts(auto)) != "[3 1 5]" {
		t.Fatalf("auto counts %v", counts(auto))
	}
	e, a := run(t, eq).Runs[0], run(t, auto).Runs[0]
	t.Logf("9 placeholders, 3/3/3: makespan %.0f s, imbalance %.1f%%; auto %v: %.0f s, %.1f%%", e.Makespan, 100*e.Imbalance, counts(auto), a.Makespan, 100*a.Imbalance)
	if a.Makespan > e.Makespan {
		t.Errorf("auto makespan %.0f s above equal counts' %.0f s", a.Makespan, e.Makespan)
	}
}
