package gwa

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/internal/srcerr"
)

// Reader streams the records of a trace, whatever its format.
type Reader interface {
	// Next returns the next record, or io.EOF after the last. A malformed
	// line is skipped and counted, or with ReadOptions.Strict returned as a
	// *ParseError (and reading stops).
	Next() (Record, error)
	// Header is complete as soon as the reader is made (the first record has
	// been read ahead, so an absolute time base is known too).
	Header() *Header
	// Stats counts what was read so far: lines, records, skipped lines and
	// the oddities handled.
	Stats() *ReadStats
	Close() error
}

// ReadOptions tune a reader.
type ReadOptions struct {
	Strict    bool   // stop at the first malformed line instead of skipping it
	Name      string // file name for messages; default the path
	Format    Format // force a format instead of detecting it
	MaxErrors int    // how many skipped-line errors Stats keeps (default 10)
}

// ParseError is a malformed line, "file:line: field N: what is wrong":
// gmark's one positioned error (srcerr), without a column (a trace's
// fields are numbered instead).
type ParseError = srcerr.Error

// parseError makes the ParseError of a line (0: the file as a whole) and a
// field (0: the line as a whole).
func parseError(file string, line int64, field int, msg string) *ParseError {
	if field > 0 {
		msg = fmt.Sprintf("field %d: %s", field, msg)
	}
	return &ParseError{Pos: srcerr.Pos{File: file, Line: int(line)}, Msg: msg}
}

// NoRecordsError is a trace in which no line is a valid record but some are
// malformed: whatever the file is, it is not a trace gmark can use, and
// reading it as one of no jobs would pass off bad input as an empty trace.
// (A trace with no record lines at all is a valid empty trace.)
type NoRecordsError struct {
	Skipped int64       // the malformed lines
	First   *ParseError // the first of them
	// Content names what the input looks like when it is no trace at all
	// (JSON, XML, CSV: foreignContent), read under a format it was forced
	// to; "" otherwise.
	Content string
}

func (e *NoRecordsError) Error() string {
	msg := fmt.Sprintf("%v; no line is a valid record (%d malformed)", e.First, e.Skipped)
	if e.Content != "" {
		msg += fmt.Sprintf("; the content is %s: %s, and this is none of them", e.Content, readFormats)
	}
	return msg
}

// Unwrap makes the first malformed line the cause.
func (e *NoRecordsError) Unwrap() error { return e.First }

// Oddities are the known quirks of real traces a reader handled. None of
// them drops a record.
type Oddities struct {
	// AbsoluteSubmit counts submit times written as Unix epoch seconds
	// (>= 1990-01-01); they were made offsets from Header.UnixStartTime.
	AbsoluteSubmit int64 `json:"absolute_submit"`
	// NegativeWait counts waits below zero other than -1: reservations
	// that started before their submission was recorded (Grid'5000).
	NegativeWait int64 `json:"negative_wait"`
	// NegativeRunTime counts run times below zero other than -1 (an end
	// time recorded as 0, say): the record is kept as it is, and every
	// analysis takes its run time as unknown (Record.KnownRunTime).
	NegativeRunTime int64 `json:"negative_run_time"`
	// CancelledBeforeStart counts records with wait and run time both -1.
	CancelledBeforeStart int64 `json:"cancelled_before_start"`
	// LateComments counts comment lines after the first record.
	LateComments int64 `json:"late_comments"`
	// TrailingSpace counts record lines ending in spaces, tabs or '\r'.
	TrailingSpace int64 `json:"trailing_space"`
	// ExtraFields counts records with more fields than the format defines
	// (the extra ones are ignored).
	ExtraFields int64 `json:"extra_fields"`
	// OutOfOrder counts records submitted before the previous record.
	OutOfOrder int64 `json:"out_of_order"`
	// BlankLines counts empty lines.
	BlankLines int64 `json:"blank_lines"`
}

// ReadStats describe what a reader read.
type ReadStats struct {
	Lines   int64         `json:"lines"`   // lines (SQLite: rows) read
	Records int64         `json:"records"` // records returned
	Bytes   int64         `json:"bytes"`   // uncompressed bytes read
	Skipped int64         `json:"skipped"` // malformed lines skipped
	Errors  []*ParseError `json:"-"`       // the first few skipped lines' errors
	// NotCarried names the fields of the input that gmark read but
	// carries in no record (WfFormat's keys, the WTA's columns), each once.
	NotCarried []string `json:"not_carried,omitempty"`
	Oddities
}

// absoluteThreshold: a submit time at or after 1990-01-01 is taken as a Unix
// time, not an offset (an offset that large is a 20-year trace).
const absoluteThreshold = 631152000

// common is the record bookkeeping every reader shares.
type common struct {
	name    string
	opts    ReadOptions
	hdr     Header
	stats   ReadStats
	prev    float64
	started bool

	// What the reader has read ahead of Next: the first record, read when
	// the reader opens so that its Header is complete, and the error that
	// ended the stream, returned again by every later Next.
	pending *Record
	err     error
	first   *ParseError // the first malformed line skipped
	content string      // what the content looks like when it is no trace's (foreignContent)
}

// Name is the trace's name in messages (ReadOptions.Name).
func (c *common) Name() string { return c.name }

// readAhead keeps the first record, read by the reader's constructor; the
// end of an empty stream is kept for Next, any other error returned.
func (c *common) readAhead(rec Record, err error) error {
	switch err = c.end(err); {
	case err == nil:
		c.pending = &rec
	case err == io.EOF:
		c.err = err
	default:
		return err
	}
	return nil
}

// end turns the end of a stream in which every record line was malformed
// into a NoRecordsError.
func (c *common) end(err error) error {
	if err == io.EOF && c.stats.Records == 0 && c.first != nil {
		return &NoRecordsError{Skipped: c.stats.Skipped, First: c.first, Content: c.content}
	}
	return err
}

// ahead answers Next from what was read ahead, if anything was: the pending
// record, or the error that ended the stream.
func (c *common) ahead() (rec Record, err error, ok bool) {
	if c.pending != nil {
		rec, c.pending = *c.pending, nil
		return rec, nil, true
	}
	return Record{}, c.err, c.err != nil
}

// keep returns what the reader read for Next, remembering an error.
func (c *common) keep(rec Record, err error) (Record, error) {
	if err != nil {
		err = c.end(err)
		c.err = err
	}
	return rec, err
}

func (c *common) Header() *Header   { return &c.hdr }
func (c *common) Stats() *ReadStats { return &c.stats }
func (c *common) errorf(line int64, field int, format string, args ...any) *ParseError {
	return parseError(c.name, line, field, fmt.Sprintf(format, args...))
}

// skip handles a malformed line: an error to return in strict mode, nil
// after counting it otherwise.
// errSkipLine is nextLine's "nothing to parse here": a blank line, or a
// line too long that was counted as skipped.
var errSkipLine = errors.New("skip the line")

// nextLine reads the next line of src and the index of its first
// non-blank byte. A blank line is counted and a line too long skipped (or,
// strict, an error), both as errSkipLine.
func (c *common) nextLine(src *lineSource) (line []byte, start int, err error) {
	line, err = src.next()
	c.stats.Lines, c.stats.Bytes = src.line, src.bytes
	if err == errLongLine {
		// Not skipped, --strict or not: the line's end is not read
		// (/dev/zero has none), so there is no next line to go on with.
		return nil, 0, c.errorf(src.line, 0, "%v", err)
	}
	if err != nil {
		return nil, 0, err
	}
	for start < len(line) && isSpace(line[start]) {
		start++
	}
	if start == len(line) {
		c.stats.BlankLines++
		return nil, 0, errSkipLine
	}
	return line, start, nil
}

func (c *common) skip(e *ParseError) error {
	if c.opts.Strict {
		return e
	}
	c.stats.Skipped++
	if c.first == nil {
		c.first = e
	}
	limit := c.opts.MaxErrors
	if limit == 0 {
		limit = 10
	}
	if len(c.stats.Errors) < limit {
		c.stats.Errors = append(c.stats.Errors, e)
	}
	return nil
}

// headerLine records a comment line of the header; a key gmark reads with
// a value out of its range is a malformed line (the line is kept, the key
// ignored).
func (c *common) headerLine(line int64, text string) error {
	if bad := c.hdr.addLine(text); bad != "" {
		return c.skip(c.errorf(line, 0, "%s", bad))
	}
	return nil
}

// commentText is a header comment's text after its mark: without the one
// space that follows the mark and without the '\r' of a CRLF line end, but
// otherwise verbatim (PWA headers pad their columns with spaces).
func commentText(b []byte) string {
	if len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return string(b)
}

// checked finishes a parsed record (perr its parse error, nil when it
// parsed): ok when it is a record to return; a malformed one is skipped
// (counted; err only in strict mode).
func (c *common) checked(rec *Record, perr *ParseError, line int64) (ok bool, err error) {
	if perr == nil {
		if msg := c.finish(rec); msg != "" {
			perr = c.errorf(line, 0, "%s", msg)
		}
	}
	if perr != nil {
		return false, c.skip(perr)
	}
	return true, nil
}

// finish applies the time-base rule and counts the oddities of a parsed
// record. It returns what is wrong with the record's submit time, or "":
// an offset from the time base of 20 years or more would read back as an
// absolute time, so no writer could write it unambiguously.
func (c *common) finish(r *Record) string {
	if r.SubmitTime >= absoluteThreshold {
		base, abs := c.hdr.UnixStartTime, c.hdr.AbsoluteBase
		if !abs {
			if base < absoluteThreshold || float64(base) > r.SubmitTime {
				base = int64(math.Floor(r.SubmitTime))
			}
		}
		if off := r.SubmitTime - float64(base); off >= absoluteThreshold {
			return fmt.Sprintf("SubmitTime %s is %s s after the time base %d; gmark reads traces spanning less than %d s (20 years) from their base",
				strconv.FormatFloat(r.SubmitTime, 'f', -1, 64), strconv.FormatFloat(off, 'f', -1, 64), base, absoluteThreshold)
		}
		c.hdr.UnixStartTime, c.hdr.AbsoluteBase = base, true
		r.SubmitTime -= float64(base)
		c.stats.AbsoluteSubmit++
	}
	if r.WaitTime < 0 && r.WaitTime != Missing {
		c.stats.NegativeWait++
	}
	if r.RunTime < 0 && r.RunTime != Missing {
		c.stats.NegativeRunTime++
	}
	if r.WaitTime == Missing && r.RunTime == Missing {
		c.stats.CancelledBeforeStart++
	}
	if c.started && r.SubmitTime < c.prev {
		c.stats.OutOfOrder++
	}
	c.prev, c.started = r.SubmitTime, true
	c.stats.Records++
	return ""
}

// Open opens a trace file. The format comes from opts.Format, else from the
// content (SQLite's magic, ';' or '#' comments, the field count of the
// first record), else from the extension (.swf, .gwf, .db3/.sqlite/.db, each
// optionally .gz). Gzip-compressed text is read transparently.
func Open(path string, opts ReadOptions) (Reader, error) {
	if opts.Name == "" {
		opts.Name = path
	}
	if r, ok, err := openWorkflowPath(path, opts); ok {
		return r, err
	}
	f, err := readlimit.Open(path) // a regular file: a FIFO or a device is refused
	if err != nil {
		return nil, err
	}
	// Peek rather than read and seek back: NewReader reads a pipe the same
	// way (gmark trace stats - < trace.swf).
	br := bufio.NewReaderSize(f, textBuffer)
	magic, _ := br.Peek(16)
	// An empty file named .db3 is an empty database: OpenSQLite says what
	// it lacks.
	empty := len(magic) == 0 && opts.Format == "" && FormatFromName(path) == SQLite
	if opts.Format == SQLite || (opts.Format == "" && string(magic) == "SQLite format 3\x00") || empty {
		f.Close()
		return OpenSQLite(path, opts)
	}
	// A format the caller names overrides the content; one the file's name
	// suggests is only a hint, for content that does not tell.
	forced := opts.Format != ""
	if !forced {
		opts.Format = FormatFromName(path)
	}
	r, err := newTextReader(br, f, opts, forced)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// FormatFromName guesses a format from a file name ("" when it cannot):
// .swf, .gwf, .wf.gwf (the workflow variant), .db3/.sqlite/.sqlite3/.db,
// each optionally .gz.
func FormatFromName(path string) Format {
	base := strings.ToLower(filepath.Base(path))
	base = strings.TrimSuffix(base, ".gz")
	if strings.HasSuffix(base, ".wf.gwf") {
		return Workflow
	}
	switch filepath.Ext(base) {
	case ".json":
		return WfFormat
	case ".parquet":
		return WTA
	case ".swf":
		return SWF
	case ".gwf":
		return GWF
	case ".db3", ".sqlite", ".db", ".sqlite3":
		return SQLite
	}
	return ""
}

// ErrStdinRead is OpenArg's error for a second "-": standard input is
// read once.
var ErrStdinRead = errors.New("the trace - (standard input) is read once: give the others as files")

// OpenArg opens a trace a command line names: the file at path (Open), or
// for "-" the text trace *stdin holds (NewReader, named "standard
// input"), *stdin then set to nil, so that a second "-" is ErrStdinRead.
func OpenArg(path string, stdin *io.Reader, opts ReadOptions) (Reader, error) {
	if path != "-" {
		return Open(path, opts)
	}
	if *stdin == nil {
		return nil, ErrStdinRead
	}
	r := *stdin
	*stdin = nil
	opts.Name = "standard input"
	return NewReader(r, opts)
}

// NewReader reads a text trace (SWF or GWF, possibly gzip-compressed) from r.
// opts.Format, when set, is only a hint that the content overrides.
func NewReader(r io.Reader, opts ReadOptions) (Reader, error) {
	if opts.Name == "" {
		opts.Name = "trace"
	}
	return newTextReader(r, nil, opts, false)
}

func newTextReader(r io.Reader, closer io.Closer, opts ReadOptions, forced bool) (Reader, error) {
	src := &lineSource{closer: closer, name: opts.Name}
	br := bufio.NewReaderSize(r, textBuffer) // r itself when it is a big enough bufio.Reader
	if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
		z, err := newAsyncGunzip(br)
		if err != nil {
			return nil, parseError(opts.Name, 0, 0, "gzip: "+err.Error())
		}
		src.unzip = z
		br = bufio.NewReaderSize(z, textBuffer)
	}
	src.br = br
	head, err := br.Peek(64 << 10)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull && src.unzip != nil {
		return nil, parseError(opts.Name, 1, 0, "gzip: "+err.Error()+" (the compressed file is damaged or cut short)")
	}
	format := detectFormat(head)
	if format == "" || format == WfFormat {
		// No text trace's content: what it is, should a forced format find
		// no record.
		src.content = foreignContent(firstLine(head))
	}
	// The workflow variant is a GWF: a GWF hint (a .gwf name) keeps it.
	if format == "" || (forced && opts.Format != "" && format != SQLite && !(format == Workflow && opts.Format == GWF)) {
		format = opts.Format
	}
	switch format {
	case WfFormat:
		defer src.close()
		return newWfFormatReader(src.br, opts)
	case WTA:
		return nil, fmt.Errorf("%s: a WTA parquet trace: open it by its path (parquet is read by seeking)", opts.Name)
	case Workflow:
		return newWorkflowReader(src, opts)
	case SQLite:
		if detectFormat(head) != SQLite { // named .db3 (or --input-format sqlite), but text
			return nil, parseError(opts.Name, 0, 0, "not a GWF-SQLite trace: it is not a SQLite database (its first bytes are not SQLite's header)")
		}
		return nil, fmt.Errorf("%s: a GWF-SQLite database: open it by its path", opts.Name)
	case GWF:
		return newGWFReader(src, opts)
	case SWF:
		return newSWFReader(src, opts)
	}
	return nil, undetected(opts.Name, head)
}

// readFormats says what gmark reads, for the errors of content it does not.
const readFormats = "gmark reads SWF (18 fields a line, ';' comments), GWF (29 fields, '#' comments), GWF's workflow variant (comma-separated, under a WorkflowID,JobID,SubmitTime,… column line), GWF-SQLite, WfCommons' WfFormat (a JSON object) and the Workflow Trace Archive's parquet"

// undetected is the error of content whose format cannot be told: at its
// first non-blank line, when it has one, since that line decided. Content
// of a kind gmark can recognise but not read (JSON, such as a WfCommons
// workflow instance; XML; CSV without the workflow variant's columns) is
// named as such, with the formats gmark does read: no --input-format makes
// it a trace.
func undetected(name string, head []byte) error {
	n := int64(0)
	for line := range bytes.Lines(head) {
		n++
		if f := len(bytes.Fields(line)); f > 0 {
			if kind := foreignContent(line); kind != "" {
				return parseError(name, n, 0, fmt.Sprintf("not a trace gmark reads: this is %s; %s, and this is none of them", kind, readFormats))
			}
			fields := "fields"
			if f == 1 {
				fields = "field"
			}
			return parseError(name, n, 0, fmt.Sprintf("not a trace gmark can read: its first line has %d %s (SWF records have 18, GWF 29) and no ';' or '#' comment comes before it; %s; if it is one of them, --input-format names it", f, fields, readFormats))
		}
	}
	return parseError(name, 0, 0, "not a trace gmark can read: it holds no line; "+readFormats)
}

// foreignContent names the kind of content a first non-blank line shows
// when it is no trace's: "JSON …", "XML …", "CSV …", or "".
func foreignContent(line []byte) string {
	t := bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")))
	switch {
	case len(t) == 0:
		return ""
	case t[0] == '{':
		return "JSON (a WfFormat instance? gmark reads one as such unless another format is forced)"
	case t[0] == '[':
		return "JSON, an array (a WfFormat instance is one object)"
	case t[0] == '<':
		return "XML or HTML (a DAX workflow, perhaps)"
	case bytes.Count(t, []byte(",")) >= 2:
		return "comma-separated values without the workflow variant's WorkflowID, JobID and SubmitTime columns"
	}
	return ""
}

// detectFormat looks at the start of the content.
func detectFormat(head []byte) Format {
	if bytes.HasPrefix(head, []byte("SQLite format 3\x00")) {
		return SQLite
	}
	if bytes.HasPrefix(head, []byte(parquetMagic)) {
		return WTA
	}
	if isJSONHead(head) {
		return WfFormat
	}
	if isWorkflowHead(head) {
		return Workflow
	}
	for line := range bytes.Lines(head) {
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
			continue
		case line[0] == ';':
			return SWF
		case line[0] == '#':
			return GWF
		}
		n := len(bytes.Fields(line))
		switch {
		case n >= 29:
			return GWF
		case n >= 18:
			return SWF
		}
		return ""
	}
	return ""
}

// firstLine is the first line of head that is not blank.
func firstLine(head []byte) []byte {
	for line := range bytes.Lines(head) {
		if len(bytes.TrimSpace(line)) > 0 {
			return line
		}
	}
	return nil
}

// lineSource splits its input into lines without copying, except for lines
// longer than the buffer.
type lineSource struct {
	br      *bufio.Reader
	content string // what the content looks like when it is no trace's (foreignContent)
	name    string // for messages
	unzip   *asyncGunzip
	closer  io.Closer
	long    []byte
	tooLong bool // a line reached maxLine: the source ends there
	line    int64
	bytes   int64
}

// textBuffer is the read buffer of text traces.
const textBuffer = 256 << 10

// maxLine bounds a line: the reader takes fewer bytes than this before the
// line's end (the writers' bound, maxLine with the end, is one byte
// stricter, so what they write reads back). A longer line ends the read
// with an error, so that a binary file fed as a trace eats neither the
// memory nor the time: the reader stops at the bound instead of looking
// for the line's end, which /dev/zero never reaches.
const maxLine = 1 << 20

var errLongLine = fmt.Errorf("line longer than %d bytes: not a trace's line; the read stops here", maxLine-1)

// next returns the next line without its '\n'. The slice is valid until the
// next call.
func (s *lineSource) next() ([]byte, error) {
	if s.tooLong {
		return nil, errLongLine
	}
	b, err := s.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.long = append(s.long[:0], b...)
		for err == bufio.ErrBufferFull && len(s.long) < maxLine {
			b, err = s.br.ReadSlice('\n')
			s.long = append(s.long, b...)
		}
		b = s.long
		if n := len(b); n >= maxLine && (b[n-1] != '\n' || n > maxLine) {
			s.line++
			s.bytes += int64(len(b))
			s.tooLong = true
			return nil, errLongLine
		}
	}
	if err != nil && err != io.EOF && s.unzip != nil {
		// A damaged or truncated compressed trace is bad input, and must
		// not pass for a shorter trace.
		return nil, parseError(s.name, s.line+1, 0, "gzip: "+err.Error()+" (the compressed file is damaged or cut short)")
	}
	if len(b) == 0 {
		if err == nil {
			err = io.EOF
		}
		return nil, err
	}
	s.line++
	s.bytes += int64(len(b))
	if b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	if err == io.EOF {
		err = nil
	}
	return b, err
}

func (s *lineSource) close() error {
	var err error
	if s.unzip != nil {
		err = s.unzip.Close()
	}
	if s.closer != nil {
		if e := s.closer.Close(); err == nil {
			err = e
		}
	}
	return err
}

// asyncGunzip decompresses in its own goroutine, so that on two cores
// inflating and parsing overlap.
type asyncGunzip struct {
	full chan []byte
	free chan []byte
	stop chan struct{}
	done chan struct{}
	cur  []byte
	buf  []byte
	err  error
	// errc carries the decompressor's final error (io.EOF at a clean end).
	errc chan error
}

const gunzipChunk = 256 << 10

func newAsyncGunzip(r io.Reader) (*asyncGunzip, error) {
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	a := &asyncGunzip{full: make(chan []byte, 4), free: make(chan []byte, 4), stop: make(chan struct{}), done: make(chan struct{})}
	for i := 0; i < 4; i++ {
		a.free <- make([]byte, gunzipChunk)
	}
	errc := make(chan error, 1)
	go func() {
		defer close(a.done)
		for {
			var buf []byte
			select {
			case buf = <-a.free:
			case <-a.stop:
				return
			}
			// Fill the chunk, keeping the decompressor's own error: a stream
			// cut short is io.ErrUnexpectedEOF, not the end of the trace.
			buf = buf[:cap(buf)]
			n := 0
			var err error
			for n < len(buf) && err == nil {
				var m int
				m, err = z.Read(buf[n:])
				n += m
			}
			if n > 0 {
				select {
				case a.full <- buf[:n]:
				case <-a.stop:
					return
				}
			}
			if err != nil {
				errc <- err
				close(a.full)
				return
			}
		}
	}()
	a.errc = errc
	return a, nil
}

func (a *asyncGunzip) Read(p []byte) (int, error) {
	for len(a.cur) == 0 {
		if a.buf != nil {
			a.free <- a.buf
			a.buf = nil
		}
		b, ok := <-a.full
		if !ok {
			if a.err == nil {
				a.err = <-a.errc
			}
			return 0, a.err
		}
		a.buf, a.cur = b, b
	}
	n := copy(p, a.cur)
	a.cur = a.cur[n:]
	return n, nil
}

func (a *asyncGunzip) Close() error {
	select {
	case <-a.stop:
	default:
		close(a.stop)
	}
	<-a.done
	return nil
}
