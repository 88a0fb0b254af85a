package names

import (
	"strings"
	"testing"
)

func TestCheckID(t *testing.T) {
	for _, id := range []string{"1-0", "1-0.3", "fs0", "DAS-2.vu_fs0", "a", strings.Repeat("x", MaxIDLen)} {
		if err := CheckID("job id", id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for id, want := range map[string]string{
		"":                              "empty job id",
		strings.Repeat("x", MaxIDLen+1): "job id of 129 bytes (at most 128)",
		"-1":                            `job id "-1": only letters`,
		".a":                            `job id ".a"`,
		"a b":                           `job id "a b"`,
		"a/b":                           `job id "a/b"`,
		"a\x00b":                        `job id "a\x00b"`,
		"a\nb":                          `job id "a\nb"`,
		"fs\u202e0":                     `job id "fs\u202e0"`,
		"fs\U0001F600":                  `job id "fs😀"`,
		"é":                             `job id "é"`,
	} {
		if err := CheckID("job id", id); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", id, err, want)
		}
	}
}

func TestCheckKey(t *testing.T) {
	for _, k := range []string{"run-7/1-0/1", "20260102T150405Z-a1b2c3/1-0.3/12", "k", "0", strings.Repeat("k", MaxKeyLen)} {
		if err := CheckKey(k); err != nil {
			t.Errorf("%q: %v", k, err)
		}
	}
	for k, want := range map[string]string{
		"":                               "empty key",
		strings.Repeat("k", 10<<10):      "key of 10240 bytes (at most 256)",
		strings.Repeat("k", MaxKeyLen+1): "key of 257 bytes",
		"/run/1":                         `key "/run/1": only letters`,
		"run/1\x00":                      `key "run/1\x00"`,
		"run/1\n2":                       `key "run/1\n2"`,
		"run\u202e/1":                    `key "run\u202e/1"`,
		"run/\U0001F600":                 `key "run/😀"`,
		"run 1":                          `key "run 1"`,
		"run?x=1":                        `key "run?x=1"`,
	} {
		if err := CheckKey(k); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.40q: %v, want %q", k, err, want)
		}
	}
}
