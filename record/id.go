package record

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// NewRunID returns a fresh run id: the UTC time and 6 random hex digits.
func NewRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Key is the idempotency key of a job's attempt in a run.
func Key(runID, jobID string, attempt int) string {
	return fmt.Sprintf("%s/%s/%d", runID, jobID, attempt)
}

// ParseKey is the run, job and attempt of an idempotency key made by Key;
// ok is false for anything else.
func ParseKey(key string) (runID, jobID string, attempt int, ok bool) {
	i, j := strings.IndexByte(key, '/'), strings.LastIndexByte(key, '/')
	if i <= 0 || j <= i+1 {
		return "", "", 0, false
	}
	a, err := strconv.Atoi(key[j+1:])
	if err != nil || a < 1 || strconv.Itoa(a) != key[j+1:] {
		return "", "", 0, false
	}
	return key[:i], key[i+1 : j], a, true
}

// MaxRunIDLength bounds a run id (see CheckRunID).
const MaxRunIDLength = 100

// CheckRunID checks a run id given from outside: it names a directory
// (runs/RUN), Slurm and Grid Engine job names and idempotency keys, so it
// is 1 to 100 letters, digits, '.', '_' and '-', and does not begin with
// '.' or '-'.
func CheckRunID(id string) error {
	if id == "" || len(id) > MaxRunIDLength || id[0] == '.' || id[0] == '-' {
		return fmt.Errorf("run id %q: 1 to %d letters, digits, '.', '_' or '-', not beginning with '.' or '-'", id, MaxRunIDLength)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(idChar(c) || c == '.') {
			return fmt.Errorf("run id %q: 1 to %d letters, digits, '.', '_' or '-', not beginning with '.' or '-'", id, MaxRunIDLength)
		}
	}
	return nil
}

// idChar is a character of a run id other than '.'.
func idChar(c byte) bool {
	return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
