package record

import (
	"reflect"
	"testing"
)

func TestRedactArgs(t *testing.T) {
	cases := []struct{ in, want []string }{
		{[]string{"gmark", "submit", "wl", "--token", "s3cret", "--target", "koala"}, []string{"gmark", "submit", "wl", "--token", Redacted, "--target", "koala"}},
		{[]string{"gmark", "submit", "--token=s3cret", "wl"}, []string{"gmark", "submit", "--token=" + Redacted, "wl"}},
		{[]string{"gmark", "submit", "-token", "s3cret"}, []string{"gmark", "submit", "-token", Redacted}},
		{[]string{"gmark", "submit", "-token=s3=cret"}, []string{"gmark", "submit", "-token=" + Redacted}},
		{[]string{"gmark", "submit", "--koala-token", "s3cret"}, []string{"gmark", "submit", "--koala-token", Redacted}},
		{[]string{"gmark", "x", "--API-Key=k", "--password", "p"}, []string{"gmark", "x", "--API-Key=" + Redacted, "--password", Redacted}},
		// A path to a token is no secret; nor is what follows "--".
		{[]string{"gmark", "submit", "--token-file", "/run/tok", "wl"}, []string{"gmark", "submit", "--token-file", "/run/tok", "wl"}},
		{[]string{"gmark", "submit", "--", "--token", "x"}, []string{"gmark", "submit", "--", "--token", "x"}},
		// A trailing flag without a value, an empty line.
		{[]string{"gmark", "submit", "--token"}, []string{"gmark", "submit", "--token"}},
		{nil, nil},
		// Secrets in URLs, whatever the flag (or none).
		{[]string{"gmark", "submit", "--endpoint", "http://127.0.0.1:7070/?token=s3cret", "wl"},
			[]string{"gmark", "submit", "--endpoint", "http://127.0.0.1:7070/?" + Redacted, "wl"}},
		{[]string{"gmark", "submit", "--endpoint=https://u:s3cret@core:7070/x#s3cret"},
			[]string{"gmark", "submit", "--endpoint=https://" + Redacted + "@core:7070/x#" + Redacted}},
		{[]string{"gmark", "x", "--", "http://s3cret@h/"}, []string{"gmark", "x", "--", "http://" + Redacted + "@h/"}},
		{[]string{"gmark", "submit", "--endpoint", "http://127.0.0.1:7070", "/a/b?c"},
			[]string{"gmark", "submit", "--endpoint", "http://127.0.0.1:7070", "/a/b?c"}},
	}
	for _, c := range cases {
		in := append([]string(nil), c.in...)
		if got := RedactArgs(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("RedactArgs(%q) = %q, want %q", c.in, got, c.want)
		}
		if !reflect.DeepEqual(in, c.in) {
			t.Errorf("RedactArgs changed its argument: %q", c.in)
		}
	}
}
