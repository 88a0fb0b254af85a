package htmlpage

import "testing"

// QuoteArgs quotes what a shell would split or expand, and only that.
func TestQuoteArgs(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"gmark", "report", "--db", "r.db"}, "gmark report --db r.db"},
		{[]string{"gmark", ""}, "gmark ''"},
		{[]string{"gmark", "a b"}, "gmark 'a b'"},
		{[]string{"gmark", "it's"}, `gmark 'it'\''s'`},
		{[]string{"gmark", "$HOME", "*.db", "x;y"}, "gmark '$HOME' '*.db' 'x;y'"},
		{[]string{"gmark", "--speedup=100", "a/b.wdl", "user@host:1,2%+"}, "gmark --speedup=100 a/b.wdl user@host:1,2%+"},
		{[]string{"gmark", "durée"}, "gmark 'durée'"},
	} {
		if got := QuoteArgs(c.in); got != c.want {
			t.Errorf("QuoteArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
