package record

import (
	"net/url"
	"strings"
)

// Redacted replaces a secret in a recorded command line.
const Redacted = "REDACTED"

// secretFlagWords name the flags whose values are secrets: --token,
// --koala-token, --password, --api-key, ... A flag naming a file or path
// (--token-file) holds no secret and is kept.
var secretFlagWords = []string{"token", "secret", "password", "passwd", "credential", "apikey", "api-key", "api_key"}

// RedactArgs returns a copy of a command line with the values of its
// secret-bearing flags replaced by Redacted, in every form a flag takes
// (--token X, --token=X, -token X, -token=X), so the command line can be
// recorded in a results store meant to be shared (whose rows cannot be
// scrubbed later) or shown in a report. Arguments after "--" are not
// flags and are kept. A URL, as an argument or a flag's value, anywhere,
// has its user information, query and fragment replaced (a token can hide
// in each: http://user:TOKEN@host, http://host/?token=TOKEN).
func RedactArgs(args []string) []string {
	out := append([]string(nil), args...)
	for i := range out {
		out[i] = redactURL(out[i])
	}
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !secretFlag(name) {
			continue
		}
		if hasValue {
			out[i] = a[:strings.Index(a, "=")+1] + Redacted
		} else if i+1 < len(out) {
			out[i+1] = Redacted
			i++
		}
	}
	return out
}

// redactURL is a, or --flag=a, with the user information, query and
// fragment of the URL a replaced by Redacted; a that is no URL with a
// scheme and a host is kept.
func redactURL(a string) string {
	prefix, v := "", a
	if strings.HasPrefix(a, "-") {
		name, val, ok := strings.Cut(a, "=")
		if !ok {
			return a
		}
		prefix, v = name+"=", val
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User == nil && u.RawQuery == "" && !u.ForceQuery && u.Fragment == "" {
		return a
	}
	if u.User != nil {
		u.User = url.User(Redacted)
	}
	if u.RawQuery != "" || u.ForceQuery {
		u.RawQuery, u.ForceQuery = Redacted, false
	}
	if u.Fragment != "" {
		u.Fragment, u.RawFragment = Redacted, ""
	}
	return prefix + u.String()
}

func secretFlag(name string) bool {
	name = strings.ToLower(name)
	if name == "" || strings.HasSuffix(name, "-file") || strings.HasSuffix(name, "-path") {
		return false
	}
	for _, w := range secretFlagWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}
