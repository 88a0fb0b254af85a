package names

import "fmt"

// MaxIDLen is the longest id or name read from outside (a job's, a task's,
// an application parameter's, a cluster's), in bytes.
const MaxIDLen = 128

// IDRule says in words what CheckID accepts.
const IDRule = "1 to 128 ASCII letters, digits, '.', '_' and '-', starting with a letter or digit"

// MaxKeyLen is the longest idempotency key, in bytes: room for a run id,
// a job id and an attempt, with their separators (RUN/JOB/ATTEMPT).
const MaxKeyLen = 256

// CheckID tells what is wrong with s as an id or name of the given kind
// (what: "job id", "cluster name", …), if anything. Ids name files,
// directories and URL paths and are printed in reports and on terminals,
// so they are 1 to MaxIDLen bytes of ASCII letters, digits, '.', '_' and
// '-', starting with a letter or digit: no blank, control character,
// bidirectional-text control or emoji.
func CheckID(what, s string) error {
	if s == "" {
		return fmt.Errorf("empty %s", what)
	}
	if len(s) > MaxIDLen {
		return fmt.Errorf("%s of %d bytes (at most %d)", what, len(s), MaxIDLen)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !alnum(c) && (i == 0 || c != '.' && c != '_' && c != '-') {
			return fmt.Errorf("%s %q: only letters, digits, '.', '_' and '-', starting with a letter or digit", what, s)
		}
	}
	return nil
}

// CheckKey tells what is wrong with s as an idempotency key, if anything:
// ids joined by '/' (the submitter's are RUN/JOB/ATTEMPT), so 1 to
// MaxKeyLen bytes of ASCII letters, digits, '.', '_', '-' and '/',
// starting with a letter or digit.
func CheckKey(s string) error {
	if s == "" {
		return fmt.Errorf("empty key")
	}
	if len(s) > MaxKeyLen {
		return fmt.Errorf("key of %d bytes (at most %d)", len(s), MaxKeyLen)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !alnum(c) && (i == 0 || c != '.' && c != '_' && c != '-' && c != '/') {
			return fmt.Errorf("key %q: only letters, digits, '.', '_', '-' and '/', starting with a letter or digit", s)
		}
	}
	return nil
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
