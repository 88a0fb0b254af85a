package workload

import (
	"strings"
	"testing"
)

// unitaryLine is a valid job line with the given fields added or replacing
// the defaults (a JSON object's last duplicate key wins in encoding/json).
func unitaryLine(extra string) string {
	line := `{"id":"1-0","unit":1,"index":0,"kind":"unitary","type":"sser","submit":5,` +
		`"app":{"name":"sser","params":{"supersteps":"5"}},"components":[{"site":"*","count":2}]`
	if extra != "" {
		line += "," + extra
	}
	return line + "}"
}

// Every number of a job is checked against the format's
// documented range when it is read, and every id is a safe name.
func TestParseJobRanges(t *testing.T) {
	cases := []struct {
		name, line, want string // want "" = accepted
	}{
		{"valid", unitaryLine(""), ""},
		{"largest times", unitaryLine(`"submit":3153600000,"walltime":3153600000,"runtime":3153600000`), ""},
		{"largest component", unitaryLine(`"components":[{"site":"*","count":2147483647}]`), ""},
		{"largest file", unitaryLine(`"files":[{"name":"f","size":1125899906842624}]`), ""},
		{"negative walltime", unitaryLine(`"walltime":-600`), "walltime -10m0s out of range"},
		{"negative runtime", unitaryLine(`"runtime":-0.5`), "runtime -500ms out of range"},
		{"negative submit", unitaryLine(`"submit":-1`), "submit time -1s out of range"},
		{"walltime past 100 years", unitaryLine(`"walltime":3153600001`), "walltime 876000h0m1s out of range"},
		{"NaN walltime", unitaryLine(`"walltime":NaN`), "invalid character"},
		{"Inf submit", unitaryLine(`"submit":"Inf"`), "invalid number literal"},
		{"exponent", unitaryLine(`"walltime":1e400`), "bad seconds value"},
		{"component beyond int32", unitaryLine(`"components":[{"site":"*","count":2147483648}]`), "asks for 2147483648 processors"},
		{"negative component", unitaryLine(`"components":[{"site":"*","count":-4}]`), "asks for -4 processors"},
		{"total beyond int32", unitaryLine(`"components":[{"site":"a","count":2147483647},{"site":"b","count":1}]`), "more than 2147483647 processors"},
		{"count overflows int64", unitaryLine(`"components":[{"site":"*","count":99999999999999999999}]`), "cannot unmarshal"},
		{"fractional count", unitaryLine(`"components":[{"site":"*","count":1.5}]`), "cannot unmarshal"},
		{"negative file size", unitaryLine(`"files":[{"name":"f","size":-1}]`), "of -1 bytes"},
		{"file beyond 1 PiB", unitaryLine(`"files":[{"name":"f","size":1125899906842625}]`), "of 1125899906842625 bytes"},
		{"nameless file", unitaryLine(`"files":[{"name":"","size":1}]`), "without a name"},
		{"negative unit", unitaryLine(`"unit":-1`), "unit -1"},
		{"negative index", unitaryLine(`"index":-3`), "index -3"},
		{"unit beyond int32", unitaryLine(`"unit":2147483648`), "unit 2147483648"},
		{"unknown site type", unitaryLine(`"site_type":"sideways"`), `unknown site type "sideways"`},
		{"id with a slash", unitaryLine(`"id":"../../etc/passwd"`), `job id "../../etc/passwd"`},
		{"id starting with a dash", unitaryLine(`"id":"-rf"`), `job id "-rf"`},
		{"id with a space", unitaryLine(`"id":"1 0"`), `job id "1 0"`},
		{"id with a control character", unitaryLine(`"id":"1\u001f0"`), "job id"},
		{"empty id", unitaryLine(`"id":""`), "empty job id"},
		{"long id", unitaryLine(`"id":"` + strings.Repeat("x", MaxIDLen+1) + `"`), "job id of 129 bytes"},
		{"bad parameter name", unitaryLine(`"app":{"name":"sser","params":{"--x; rm":"1"}}`), "parameter name"},
		{"too many components", unitaryLine(`"components":[` + strings.Repeat(`{"site":"*","count":1},`, MaxComponents) + `{"site":"*","count":1}]`), "100001 components"},
		{"task with a negative walltime", `{"id":"2-0","kind":"composite","submit":0,"tasks":[{"id":"2-0.0","kind":"unitary","submit":0,"walltime":-1,` +
			`"app":{"name":"hello","params":{}},"components":[{"site":"*","count":1}]}]}`, "job 2-0.0: walltime -1s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseJob([]byte(c.line))
			switch {
			case c.want == "" && err != nil:
				t.Errorf("rejected: %v", err)
			case c.want != "" && err == nil:
				t.Errorf("accepted, want an error with %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Errorf("error %q, want %q", err, c.want)
			}
		})
	}
}

// A line longer than MaxLineBytes is an error naming the line, not a job
// read in pieces or a bare "token too long".
func TestReaderRefusesOverlongLine(t *testing.T) {
	input := unitaryLine("") + "\n" + `{"id":"1-1","type":"` + strings.Repeat("x", MaxLineBytes) + `"}` + "\n"
	r := NewReader(strings.NewReader(input), "w.jsonl")
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Next()
	if err == nil || err.Error() != "w.jsonl:2: a line longer than 64 MiB" {
		t.Errorf("error %v", err)
	}
}
