package workload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func sampleJobs() []Job {
	unitary := Job{ID: "1-0", Unit: 1, Index: 0, Kind: Unitary, Type: "smpi", Submit: 1500 * time.Millisecond,
		SiteType: SemiOrdered, WallTime: 10 * time.Minute, RunTime: 123456789 * time.Nanosecond,
		User: "alice \"the\" user", Group: "g\t1\\",
		App:        App{Name: "smpi", Params: []Param{{"supersteps", "5"}, {"memory", "10"}, {"flag", ""}}},
		Components: []Component{{Site: AnySite, Count: 4}, {Site: "fs1", Count: 2}},
		Files:      []File{{Name: "data-ü", Size: 2 << 30}}}
	composite := Job{ID: "2-0", Unit: 2, Kind: Composite, Type: "chain", Submit: 0, User: "bob",
		Tasks: []Job{
			{ID: "2-0.0", Unit: 2, Kind: Unitary, Type: "hello", SiteType: Single, App: App{Name: "hello"}, Components: []Component{{AnySite, 1}}},
			{ID: "2-0.1", Unit: 2, Index: 1, Kind: Unitary, Type: "sser", SiteType: Single, App: App{Name: "sser", Params: []Param{{"supersteps", "1"}}}, Components: []Component{{AnySite, 1}}},
		},
		Deps: []Dependency{{From: "2-0.0", To: "2-0.1"}}}
	warm := Job{ID: "3-0", Unit: 3, Kind: Unitary, Type: "swf", SiteType: Single, RunTime: 90 * time.Second, Warm: true,
		App: App{Name: "swf", Params: []Param{{"runtime", "90"}}}, Components: []Component{{AnySite, 2}}}
	// A co-allocated job with a start deadline, as Ballier et al.'s global
	// jobs have: 50.25 s after the workload start, 10 s after its submission.
	deadline := Job{ID: "4-0", Unit: 4, Kind: Unitary, Type: "hello", Submit: 40250 * time.Millisecond, SiteType: Unordered,
		Deadline: 50250 * time.Millisecond, App: App{Name: "hello"}, Components: []Component{{AnySite, 8}, {AnySite, 8}}}
	return []Job{unitary, composite, warm, deadline}
}

// normalize makes nil and empty slices compare equal.
func normalize(j Job) Job {
	if len(j.App.Params) == 0 {
		j.App.Params = nil
	}
	if len(j.Components) == 0 {
		j.Components = nil
	}
	if len(j.Files) == 0 {
		j.Files = nil
	}
	if len(j.Deps) == 0 {
		j.Deps = nil
	}
	for i := range j.Tasks {
		j.Tasks[i] = normalize(j.Tasks[i])
	}
	if len(j.Tasks) == 0 {
		j.Tasks = nil
	}
	return j
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	jobs := sampleJobs()
	for i := range jobs {
		if err := w.Write(&jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	// Every line is valid JSON for the standard library too.
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("invalid JSON %s: %v", line, err)
		}
	}
	r := NewReader(bytes.NewReader(buf.Bytes()), "w.jsonl")
	for i := range jobs {
		got, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if want := normalize(jobs[i]); !reflect.DeepEqual(normalize(got), want) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last job: %v, want EOF", err)
	}
}

func TestStableFieldOrder(t *testing.T) {
	j := sampleJobs()[0]
	got := string(j.AppendJSON(nil))
	want := `{"id":"1-0","unit":1,"index":0,"kind":"unitary","type":"smpi","submit":1.5,"site_type":"semi-ordered",` +
		`"walltime":600,"runtime":0.123456789,"user":"alice \"the\" user","group":"g\t1\\",` +
		`"app":{"name":"smpi","params":{"supersteps":"5","memory":"10","flag":""}},` +
		`"components":[{"site":"*","count":4},{"site":"fs1","count":2}],"files":[{"name":"data-ü","size":2147483648}]}`
	if got != want {
		t.Errorf("encoding\n got %s\nwant %s", got, want)
	}
	w := sampleJobs()[2]
	got = string(w.AppendJSON(nil))
	want = `{"id":"3-0","unit":3,"index":0,"kind":"unitary","type":"swf","submit":0,"site_type":"single","runtime":90,"warm":true,` +
		`"app":{"name":"swf","params":{"runtime":"90"}},"components":[{"site":"*","count":2}]}`
	if got != want {
		t.Errorf("encoding of a warm job\n got %s\nwant %s", got, want)
	}
	d := sampleJobs()[3]
	got = string(d.AppendJSON(nil))
	want = `{"id":"4-0","unit":4,"index":0,"kind":"unitary","type":"hello","submit":40.25,"site_type":"unordered","deadline":50.25,` +
		`"app":{"name":"hello","params":{}},"components":[{"site":"*","count":8},{"site":"*","count":8}]}`
	if got != want {
		t.Errorf("encoding of a job with a deadline\n got %s\nwant %s", got, want)
	}
}

// AppendSeconds writes every duration as the plain reading of it does:
// the whole seconds, then the nanoseconds' nine digits without their
// trailing zeros, for whole milli- and microseconds (its shortcuts), odd
// nanoseconds and the extremes.
func TestAppendSecondsExact(t *testing.T) {
	ref := func(d time.Duration) string {
		if d == math.MinInt64 {
			return "-9223372036.854775808"
		}
		sign := ""
		if d < 0 {
			sign, d = "-", -d
		}
		s := strconv.FormatInt(int64(d/time.Second), 10)
		if frac := strings.TrimRight(fmt.Sprintf("%09d", int64(d%time.Second)), "0"); frac != "" {
			s += "." + frac
		}
		return sign + s
	}
	ds := []time.Duration{0, 1, -1, 10, 100, 1000, 999999, 1000000, 1000001, 999999999, time.Second, time.Second + 1,
		time.Second + time.Millisecond, time.Second + time.Microsecond, time.Second + 10*time.Millisecond,
		time.Second + 100*time.Millisecond, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 100000; i++ {
		d := time.Duration(r.Int64())
		ds = append(ds, d, -d, d/time.Millisecond*time.Millisecond, d/time.Microsecond*time.Microsecond,
			d%time.Second, d%(1000*time.Second)/time.Millisecond*time.Millisecond, d/time.Duration(1+r.IntN(1e6))*10)
	}
	for _, d := range ds {
		if got, want := string(AppendSeconds([]byte("x"), d)), "x"+ref(d); got != want {
			t.Fatalf("AppendSeconds(%d ns) = %s, want %s", int64(d), got[1:], want[1:])
		}
	}
}

func TestSeconds(t *testing.T) {
	cases := []struct {
		d    time.Duration
		text string
	}{
		{0, "0"}, {time.Second, "1"}, {1500 * time.Millisecond, "1.5"}, {time.Nanosecond, "0.000000001"},
		{-2*time.Second - time.Millisecond, "-2.001"}, {100 * 365 * 24 * time.Hour, "3153600000"},
	}
	for _, c := range cases {
		if got := string(AppendSeconds(nil, c.d)); got != c.text {
			t.Errorf("AppendSeconds(%v) = %s, want %s", c.d, got, c.text)
		}
		if got, err := ParseSeconds(c.text); err != nil || got != c.d {
			t.Errorf("ParseSeconds(%s) = %v, %v; want %v", c.text, got, err, c.d)
		}
	}
	for _, bad := range []string{"", "-", "1.", ".5", "1e3", "1.0000000001", "abc", "99999999999999999999"} {
		if _, err := ParseSeconds(bad); err == nil {
			t.Errorf("ParseSeconds(%q) accepted", bad)
		}
	}
}

func TestReaderErrorsHaveLineNumbers(t *testing.T) {
	cases := []struct{ input, want string }{
		{"{\"id\":\"1-0\",\"unit\":1,\"index\":0,\"kind\":\"unitary\",\"type\":\"x\",\"submit\":0,\"app\":{\"name\":\"x\",\"params\":{}},\"components\":[{\"site\":\"*\",\"count\":1}]}\n{\"id\":\"1-1\"", "w.jsonl:2: "},
		{"\n\n{\"id\":\"a\",\"kind\":\"unitary\",\"submit\":0}", "w.jsonl:3: job a: no components"},
		{"{\"id\":\"a\",\"kind\":\"unitary\",\"submit\":1,\"bogus\":1}", `w.jsonl:1: json: unknown field "bogus"`},
		{"{\"id\":\"a\",\"kind\":\"weird\",\"submit\":1}", `w.jsonl:1: job a: unknown kind "weird"`},
		{"{\"kind\":\"unitary\",\"submit\":1}", `w.jsonl:1: missing "id"`},
		{"{\"id\":\"a\",\"kind\":\"unitary\",\"submit\":1e3}", `w.jsonl:1: submit: bad seconds value "1e3"`},
		{"{\"id\":\"c\",\"kind\":\"composite\",\"submit\":0,\"tasks\":[{\"id\":\"t\",\"kind\":\"unitary\",\"submit\":0,\"app\":{\"name\":\"x\",\"params\":{}},\"components\":[{\"site\":\"*\",\"count\":1}]}],\"deps\":[{\"from\":\"t\",\"to\":\"u\"}]}", "w.jsonl:1: job c: dependency t -> u names an unknown task"},
	}
	for _, c := range cases {
		r := NewReader(strings.NewReader(c.input), "w.jsonl")
		var err error
		for err == nil {
			_, err = r.Next()
		}
		if err == io.EOF || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("input %q: error %v, want prefix %q", c.input, err, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	good := sampleJobs()
	for i := range good {
		if err := good[i].Validate(); err != nil {
			t.Errorf("%s: %v", good[i].ID, err)
		}
	}
	bad := []func(j *Job){
		func(j *Job) { j.ID = "" },
		func(j *Job) { j.Submit = -1 },
		func(j *Job) { j.Components[0].Count = 0 },
		func(j *Job) { j.Components[0].Site = "" },
		func(j *Job) { j.App.Name = "" },
		func(j *Job) { j.Deps = []Dependency{{"a", "b"}} },
		func(j *Job) { j.Deadline = -time.Millisecond },
		func(j *Job) { j.Deadline = MaxTime + 1 },
	}
	for i, mutate := range bad {
		j := sampleJobs()[0]
		mutate(&j)
		if err := j.Validate(); err == nil {
			t.Errorf("mutation %d accepted", i)
		}
	}
	c := sampleJobs()[1]
	c.Deps = []Dependency{{From: "2-0.1", To: "2-0.0"}}
	if err := c.Validate(); err == nil {
		t.Error("a backward dependency was accepted")
	}
	c = sampleJobs()[1]
	c.Deadline = time.Second
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "no start deadline") {
		t.Errorf("a composite job with a deadline: %v, want an error", err)
	}
	d := sampleJobs()[3]
	d.Deadline = d.Submit - time.Second // already past at submission: allowed
	if err := d.Validate(); err != nil {
		t.Errorf("a deadline before the submission: %v", err)
	}
	c = sampleJobs()[1]
	c.Tasks[1].Warm = true
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "task 2-0.1 is warm") {
		t.Errorf("a warm task: %v, want an error", err)
	}
}

func TestProcessors(t *testing.T) {
	jobs := sampleJobs()
	if n := jobs[0].Processors(); n != 6 {
		t.Errorf("co-allocated job: %d processors, want 6", n)
	}
	if n := jobs[1].Processors(); n != 1 {
		t.Errorf("composite job: %d processors, want its largest task's 1", n)
	}
	if args := jobs[0].App.Args(); strings.Join(args, " ") != "--supersteps 5 --memory 10 --flag" {
		t.Errorf("Args = %q", args)
	}
}

// FuzzParseJob: the decoder never panics, and whatever it accepts encodes and
// decodes to the same job.
func FuzzParseJob(f *testing.F) {
	for _, j := range sampleJobs() {
		f.Add(j.AppendJSON(nil))
	}
	f.Add([]byte(`{"id":"x","kind":"unitary","submit":0.5,"app":{"name":"a","params":{"k":"v"}},"components":[{"site":"*","count":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := ParseJob(data)
		if err != nil {
			return
		}
		again, err := ParseJob(j.AppendJSON(nil))
		if err != nil {
			t.Fatalf("re-encoded job does not parse: %v", err)
		}
		if !reflect.DeepEqual(normalize(j), normalize(again)) {
			t.Fatalf("round trip changed the job:\n%+v\n%+v", j, again)
		}
	})
}

// The compact reading of params gives what the token decoder gives,
// whenever it reads at all.
func FuzzOrderedStrs(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"1","b":"2"}`, `{"a":"1",}`, `{"a":1}`, `{"a":"x\"y"}`, `{"a" :"1"}`,
		`{"a":"1","a":"2"}`, `{"é":"\u00e9"}`, "{\"a\":\"\xff\"}", `{"a":"1"`, `{"":""}`, `{"a":"1"}}`, `{,}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := compactStrs(b)
		if !ok {
			return
		}
		var slow orderedStrs
		if err := slow.unmarshalTokens(b); err != nil {
			t.Fatalf("%q: compact read %v, the token decoder: %v", b, fast, err)
		}
		if len(fast) != len(slow) || (fast == nil) != (slow == nil) {
			t.Fatalf("%q: %v, want %v", b, fast, slow)
		}
		for i := range fast {
			if fast[i] != slow[i] {
				t.Fatalf("%q: %v, want %v", b, fast, slow)
			}
		}
	})
}

// The Writer's output is the lines AppendJSON gives, in order, and its
// digest theirs, whether a line is encoded in place or in its own buffer:
// short lines, one longer than the in-place room (and than the writing
// buffer), then short ones again, over more than one writing buffer.
func TestWriterLongAndShortLines(t *testing.T) {
	long := sampleJobs()[0]
	for i := 0; i < 5000; i++ {
		long.App.Params = append(long.App.Params, Param{Key: fmt.Sprintf("k%d", i), Value: strings.Repeat("v", 300)})
	}
	var jobs []Job
	for i := 0; i < 12000; i++ {
		j := sampleJobs()[i%len(sampleJobs())]
		j.Index = i
		jobs = append(jobs, j)
		if i == 3000 {
			jobs = append(jobs, long)
		}
	}
	var buf, want bytes.Buffer
	w := NewWriter(&buf)
	for i := range jobs {
		want.Write(jobs[i].AppendJSON(nil))
		want.WriteByte('\n')
		if err := w.Write(&jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if len(jobs[3001].AppendJSON(nil)) <= 1<<20 || want.Len() < 3<<20 {
		t.Fatalf("the long line is %d bytes, the whole %d: not the case meant", len(jobs[3001].AppendJSON(nil)), want.Len())
	}
	if !bytes.Equal(buf.Bytes(), want.Bytes()) {
		t.Fatalf("wrote %d bytes, not the %d lines' %d", buf.Len(), len(jobs), want.Len())
	}
	d := w.Digest()
	if s := sha256.Sum256(want.Bytes()); d.SHA256 != hex.EncodeToString(s[:]) || d.Bytes != int64(want.Len()) || d.Jobs != len(jobs) {
		t.Errorf("digest %+v, not of what was written", d)
	}
}

// The Writer encodes a job after Write has returned, on another
// goroutine: what it writes is the job as it was at Write, though the
// caller reuses the one Job and changes it in place (its id, the elements
// of its slices, its tasks) the moment Write returns, as generate does;
// composite jobs among unitary ones, over several batches.
func TestWriterCopiesReusedJob(t *testing.T) {
	var buf, want bytes.Buffer
	w := NewWriter(&buf)
	var j Job
	for i := 0; i < 3*writerBatch+7; i++ {
		src := sampleJobs()[i%len(sampleJobs())]
		// into the reused job, through its own slices, as a source fills it
		j.ID, j.Unit, j.Index, j.Kind, j.Type, j.Submit, j.RunTime = fmt.Sprintf("%d-%d", src.Unit, i), src.Unit, i, src.Kind, src.Type, src.Submit+time.Duration(i), src.RunTime
		j.App.Name = src.App.Name
		j.App.Params = append(j.App.Params[:0], src.App.Params...)
		j.Components = append(j.Components[:0], src.Components...)
		j.Files = append(j.Files[:0], src.Files...)
		j.Tasks = append(j.Tasks[:0], src.Tasks...)
		j.Deps = append(j.Deps[:0], src.Deps...)
		want.Write(j.AppendJSON(nil))
		want.WriteByte('\n')
		if err := w.Write(&j); err != nil {
			t.Fatal(err)
		}
		// the caller moves on at once, in place
		for k := range j.App.Params {
			j.App.Params[k].Value = "changed"
		}
		for k := range j.Components {
			j.Components[k].Count = -7
		}
		for k := range j.Tasks {
			j.Tasks[k].ID = "changed"
		}
		j.ID = "changed"
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want.Bytes()) {
		t.Fatalf("the lines written are not the jobs as given:\n%.600s\nwant\n%.600s", buf.String(), want.String())
	}
	if d := w.Digest(); d.Jobs != 3*writerBatch+7 || d.Bytes != int64(want.Len()) {
		t.Errorf("digest %+v", d)
	}
}

type failingWriter struct{}

func (failingWriter) Write(p []byte) (int, error) { return 0, errors.New("disk full") }

// A write that fails under the Writer's goroutines is reported, at a later
// Write or at Flush, and again after.
func TestWriterError(t *testing.T) {
	w := NewWriter(failingWriter{})
	jobs := sampleJobs()
	var werr error
	for i := 0; i < 20000 && werr == nil; i++ {
		werr = w.Write(&jobs[i%len(jobs)])
	}
	if err := w.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Flush: %v, want the disk's error", err)
	}
	if werr != nil && !strings.Contains(werr.Error(), "disk full") {
		t.Errorf("Write: %v", werr)
	}
	if err := w.Write(&jobs[0]); err == nil {
		t.Error("Write after the error succeeded")
	}
	if err := w.Flush(); err == nil {
		t.Error("a second Flush succeeded")
	}
}
