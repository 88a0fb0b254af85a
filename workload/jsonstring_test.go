package workload

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// appendStringBefore is appendString as it was before its shortcut for
// strings with nothing to escape: what appendString must still write.
func appendStringBefore(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				const hex = "0123456789abcdef"
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func checkString(t *testing.T, s string) {
	t.Helper()
	got := string(appendString([]byte("x"), s))
	if want := string(appendStringBefore([]byte("x"), s)); got != want {
		t.Fatalf("appendString(%q) = %s, want %s", s, got[1:], want[1:])
	}
	var back string
	if err := json.Unmarshal([]byte(got[1:]), &back); err != nil || back != eachBadByteReplaced(s) {
		t.Fatalf("appendString(%q) = %s reads back as %q, %v", s, got[1:], back, err)
	}
}

// eachBadByteReplaced is s with each byte of invalid UTF-8 replaced by
// U+FFFD, as encoding/json and appendString do.
func eachBadByteReplaced(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // RuneError for a bad byte, of size 1
		i += size
	}
	return b.String()
}

// appendString writes what it wrote before its shortcut, valid JSON that
// reads back as the string (invalid UTF-8 replaced): plain strings,
// every byte alone and after a plain prefix, escapes in the middle and at
// the ends, multi-byte and broken runes.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "1-0", "runtime", "*", "a\"b", "\\", "tab\there", "\n", "ü", "日本", "\xff", "a\xffb", "\xe2\x82",
		"x\u2028y", "</script>", "\x00\x1f\x7f", strings.Repeat("a", 1000) + "\""} {
		checkString(t, s)
	}
	for c := 0; c < 256; c++ {
		checkString(t, string(rune(c)))
		checkString(t, string([]byte{byte(c)}))
		checkString(t, "plain-"+string([]byte{byte(c)})+"-tail")
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "1-0", "a\"b\\c", "\xff", "日本\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkString(t, s) })
}
