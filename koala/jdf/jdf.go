// Package jdf reads KOALA job description files: Globus RSL as the koala and
// rsl printers of package printers write it, either one request
//
//	& (count=1) (executable="gmark") (arguments="app" "sser" "--n" "5") …
//
// or a DUROC/KOALA multi-request, one "&" subrequest per co-allocated
// component:
//
//	+
//	( &(resourceManagerContact="fs0") (count=16) … (koalaRequestType=fixed) )
//	( &(resourceManagerContact="fs1") (count=8) … (koalaRequestType=fixed) )
//
// # Grammar
//
// Blanks (space, tab, CR, LF, VT, FF) and comments "(* … *)" (not nested) may
// stand between any two tokens. A leading UTF-8 byte order mark is skipped.
//
//	jdf        = request | "+" subrequest { subrequest }
//	subrequest = "(" request ")"
//	request    = "&" relation { relation }
//	relation   = "(" attribute "=" value { value } ")"
//	value      = literal | "(" value { value } ")"
//	literal    = unquoted | '"' … '"' | "'" … "'" | "^" D … D
//
// An unquoted literal is a run of bytes other than blanks, control characters
// and ( ) = < > ! + & | " ' ^ # $. In a quoted literal the quote is written
// twice to stand for itself ("it's a ""big"" one"); "^" D … D is RSL v1.0's
// user-delimited literal, D any printable ASCII byte but a blank, doubled
// inside to stand for itself. Quoted literals must be valid UTF-8 without
// control characters (gmark values are single-line). The attribute is a
// literal too; attribute names compare as RSL compares them, ignoring case
// and underscores (resource_manager_contact is resourceManagerContact).
//
// Not accepted, each with an error saying so: the other relation operators
// (!= < > <= >=), disjunctions "|", requests nested inside a request or a
// subrequest, "+" inside "+", RSL variable references $(NAME) and the "#"
// concatenation operator, empty lists "()", value lists nested more than
// MaxDepth deep, inputs larger than MaxSize bytes or holding more than
// MaxValues values, and anything after the
// end of the request (one JDF describes one job; a stream of several, such
// as the printers' --single-file output, must be split by the caller).
//
// # Relations
//
// Each request may hold each relation at most once. These are read:
//
//	resourceManagerContact  the component's site (one literal); absent: workload.AnySite
//	count                   processors, a whole number >= 1; absent: 1 (RSL's default)
//	maxWallTime             minutes, a whole number from 1 to MaxWallMinutes; the job's WallTime is the
//	                        largest over the subrequests; absent everywhere: no limit
//	executable              the program, required
//	arguments               its words (literals only)
//	environment             (NAME value) pairs; GMARK_JOB_ID gives the job's ID
//	koalaRequestType        fixed | nonfixed | semifixed | flexible (any case)
//	koalaInputFiles         ("NAME" SIZE) pairs, SIZE in bytes
//
// These GRAM and DUROC relations are accepted and ignored: label, jobType,
// directory, stdin, stdout, stderr, queue, project, hostCount, maxTime,
// maxCpuTime, maxMemory, minMemory, dryRun, gramMyJob, saveState, twoPhase,
// restart, stdoutPosition, stderrPosition, fileStageIn, fileStageInShared,
// fileStageOut, fileCleanUp, scratchDir, remoteIoUrl, proxyTimeout,
// libraryPath, subjobStartType, subjobCommsType and rslSubstitution. Any other
// relation is an error, so that a misspelt "cuont" is not read as count=1.
//
// # The job
//
// Parse returns a unitary job with one Component per request, in order, and
// Submit 0. What belongs to the whole job must be the same in every
// subrequest (a relation absent from one and present in another differs):
// the program (executable and arguments, executables being the same when
// both are gmark), koalaRequestType, koalaInputFiles and GMARK_JOB_ID.
//
// SiteType comes from koalaRequestType: fixed → ordered, nonfixed →
// unordered, semifixed → semi-ordered, flexible → flexible. Without it (the
// plain rsl form) the sites decide: one component is single, or ordered when
// it names a site; several are ordered when all name a site, semi-ordered
// when some do and unordered when none does. The request type is not
// checked against the sites: a fixed component without a site is the
// scheduler's to judge.
//
// ID is GMARK_JOB_ID's value, or "" without one: the caller assigns an ID,
// after which the job passes (*workload.Job).Validate.
//
// The App: when the executable is gmark (any path whose last element is
// "gmark") and the arguments are "app" NAME followed by "--key value",
// "--key=value" and bare "--flag" words, App.Name is NAME and the words
// become the ordered Params, the inverse of workload.App.Args: "--key=value"
// is a key and its value, "--key" followed by a word that does not start
// with "--" is too, otherwise it is a flag with an empty value. Anything else is kept whole as the pseudo-application "exec":
// App{Name: "exec", Params: [{"executable", PATH}, {"arg", A1}, {"arg", A2}, …]}.
// A gmark JDF for the application exec ("app" "exec" "--executable" PATH
// "--arg" A1 …) reads as the same job, so printing an exec job and reading it
// back is a fixed point, as for any App whose values do not start with "--"
// (App.Args cannot be inverted for those). Type is App.Name; Kind is unitary.
//
// # Errors
//
// Every error is an *Error, whose text is "name:line:col: message", with the
// 1-based line and column (in characters) of the offending token; the message says what
// was expected. Parse stops at the first error and never panics, whatever
// the input. The work is linear in the input and bounded by MaxSize and
// MaxValues: the worst JDF within them takes tens of milliseconds.
package jdf

import (
	"slices"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/srcerr"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// MaxSize is the largest JDF Parse accepts, in bytes. Parse checks it itself;
// a server should still cap what it reads (say, with http.MaxBytesReader at
// MaxSize+1) so that an oversized body costs no more than MaxSize+1 bytes.
const MaxSize = 1 << 20

// MaxValues is how many values (literals and lists) one JDF may hold in
// all; it bounds the work and memory a hostile input of MaxSize bytes costs.
// The printers' JDFs hold about 40 per component.
const MaxValues = 1 << 16

// MaxDepth is how deeply value lists may nest inside one relation:
// (environment=(NAME value)) is depth 1.
const MaxDepth = 8

// Limits on numbers, so that sums and durations cannot overflow.
const (
	MaxCount       = 1 << 20                              // processors of one component
	MaxWallMinutes = int64(grid.LongestRun / time.Minute) // the longest run the core allows
)

// ExecApp is the App.Name of a program that is not a gmark application.
const ExecApp = "exec"

// JobIDEnv is the environment entry that carries the gmark job ID (the
// printers' JobIDEnv).
const JobIDEnv = "GMARK_JOB_ID"

// Error is a syntax or content error at a position of a JDF: gmark's one
// positioned error (srcerr), its column counting characters.
type Error = srcerr.Error

// Parse reads one JDF (see the package documentation) into a unitary job.
// name prefixes error messages; an empty name is written "jdf". The job's
// strings do not alias src, which the caller may reuse.
func Parse(name string, src []byte) (*workload.Job, error) {
	if name == "" {
		name = "jdf"
	}
	if len(src) > MaxSize {
		return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: 1, Col: 1}, "the JDF is %d bytes, more than the %d accepted", len(src), MaxSize)
	}
	p := parser{name: name, src: string(src),
		vals: make([]val, 0, 16), words: make([]string, 0, 16)} // enough for the printers' JDFs
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.job()
}

// The relations Parse knows, by index into attrNames.
const (
	aContact = iota
	aCount
	aMaxWallTime
	aExecutable
	aArguments
	aEnvironment
	aRequestType
	aInputFiles
	aIgnored // this and all after it are accepted and ignored
)

// attrNames are the canonical spellings, used in messages.
var attrNames = [...]string{
	"resourceManagerContact", "count", "maxWallTime", "executable", "arguments",
	"environment", "koalaRequestType", "koalaInputFiles",
	"label", "jobType", "directory", "stdin", "stdout", "stderr", "queue",
	"project", "hostCount", "maxTime", "maxCpuTime", "maxMemory", "minMemory",
	"dryRun", "gramMyJob", "saveState", "twoPhase", "restart", "stdoutPosition",
	"stderrPosition", "fileStageIn", "fileStageInShared", "fileStageOut",
	"fileCleanUp", "scratchDir", "remoteIoUrl", "proxyTimeout", "libraryPath",
	"subjobStartType", "subjobCommsType", "rslSubstitution",
}

// attrIndex maps a normalised name (lower case, no underscores) to its index.
var attrIndex = func() map[string]int {
	m := make(map[string]int, len(attrNames))
	for i, n := range attrNames {
		m[strings.ToLower(n)] = i
	}
	return m
}()

// lookupAttr returns the index of the relation named name, or -1.
func lookupAttr(name string) int {
	var buf [24]byte
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' {
			continue
		}
		if n == len(buf) {
			return -1
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	if i, ok := attrIndex[string(buf[:n])]; ok { // no allocation: map index by a converted slice
		return i
	}
	return -1
}

// subreq is what one request says about its component and about the job.
// Positions are byte offsets; -1 means the relation is absent. Word and file
// lists are ranges of the parser's arenas.
type subreq struct {
	pos      int // the '&'
	count    int
	site     string
	wall     int64 // minutes, 0 = none
	exe      string
	exePos   int
	argsPos  int
	args     [2]int
	idPos    int
	id       string
	typePos  int
	siteType workload.SiteType
	filesPos int
	files    [2]int
}

// requestTypes maps KOALA request types to site types.
var requestTypes = [...]struct {
	name string
	st   workload.SiteType
}{
	{"fixed", workload.Ordered},
	{"nonfixed", workload.Unordered},
	{"semifixed", workload.SemiOrdered},
	{"flexible", workload.Flexible},
}

// apply records the relation just parsed (its values are p.vals) in r.
func (p *parser) apply(r *subreq, attr, namePos int) error {
	what := attrNames[attr]
	switch attr {
	case aContact:
		v, err := p.one(what, "a site name")
		if err != nil {
			return err
		}
		if v.s == "" {
			return p.errorf(v.pos, "resourceManagerContact must name a site, got \"\"")
		}
		r.site = v.s
	case aCount:
		n, err := p.positive(what, "", MaxCount)
		if err != nil {
			return err
		}
		r.count = int(n)
	case aMaxWallTime:
		n, err := p.positive(what, " of minutes", MaxWallMinutes)
		if err != nil {
			return err
		}
		r.wall = n
	case aExecutable:
		v, err := p.one(what, "a program path")
		if err != nil {
			return err
		}
		if v.s == "" {
			return p.errorf(v.pos, "executable must name a program, got \"\"")
		}
		r.exe, r.exePos = v.s, namePos
	case aArguments:
		r.argsPos = namePos
		r.args[0] = len(p.words)
		for i := 0; i < len(p.vals); i = p.vals[i].end {
			v := p.vals[i]
			if v.list {
				return p.errorf(v.pos, "arguments are words: expected a quoted or unquoted word, got a list")
			}
			p.words = append(p.words, v.s)
		}
		r.args[1] = len(p.words)
	case aEnvironment:
		for i := 0; i < len(p.vals); i = p.vals[i].end {
			v := p.vals[i]
			if !v.list || v.end != i+3 || p.vals[i+1].list || p.vals[i+2].list {
				return p.errorf(v.pos, "environment entries are (NAME value) pairs of words")
			}
			if p.vals[i+1].s != JobIDEnv {
				continue
			}
			if r.idPos >= 0 {
				return p.errorf(v.pos, "%s is set twice (first at %s)", JobIDEnv, p.at(r.idPos))
			}
			r.idPos, r.id = v.pos, p.vals[i+2].s
			if err := workload.JobIDError(r.id); r.id != "" && err != nil { // "": none, as printed for a job without one
				return p.errorf(p.vals[i+2].pos, "%s: %v", JobIDEnv, err)
			}
		}
	case aRequestType:
		v, err := p.one(what, "fixed, nonfixed, semifixed or flexible")
		if err != nil {
			return err
		}
		r.typePos = namePos
		for _, t := range requestTypes {
			if strings.EqualFold(v.s, t.name) {
				r.siteType = t.st
				return nil
			}
		}
		return p.errorf(v.pos, "unknown koalaRequestType %q: expected fixed, nonfixed, semifixed or flexible", v.s)
	case aInputFiles:
		r.filesPos = namePos
		r.files[0] = len(p.files)
		for i := 0; i < len(p.vals); i = p.vals[i].end {
			v := p.vals[i]
			if !v.list || v.end != i+3 || p.vals[i+1].list || p.vals[i+2].list {
				return p.errorf(v.pos, "koalaInputFiles entries are (\"NAME\" SIZE) pairs")
			}
			name, size := p.vals[i+1], p.vals[i+2]
			if name.s == "" {
				return p.errorf(name.pos, "an input file needs a name, got \"\"")
			}
			n, ok := atoi(size.s, workload.MaxFileSize)
			if !ok {
				return p.errorf(size.pos, "file size must be a whole number of bytes from 0 to %d, got %q", int64(workload.MaxFileSize), size.s)
			}
			p.files = append(p.files, workload.File{Name: name.s, Size: n})
		}
		r.files[1] = len(p.files)
	}
	return nil
}

// one returns the single literal value of a relation that takes one.
func (p *parser) one(what, want string) (val, error) {
	v := p.vals[0]
	if v.list {
		return v, p.errorf(v.pos, "%s must be %s, got a list", what, want)
	}
	if v.end < len(p.vals) {
		return v, p.errorf(p.vals[v.end].pos, "expected ')' after the value of %s, which takes one value", what)
	}
	return v, nil
}

// positive reads the relation's one value as a whole number from 1 to max;
// unit (" of minutes") qualifies the number in the messages.
func (p *parser) positive(what, unit string, max int64) (int64, error) {
	v, err := p.one(what, "a whole number"+unit+" >= 1")
	if err != nil {
		return 0, err
	}
	n, ok := atoi(v.s, max)
	if !ok || n < 1 {
		if ok || !allDigits(v.s) {
			return 0, p.errorf(v.pos, "%s must be a whole number%s >= 1, got %q", what, unit, v.s)
		}
		return 0, p.errorf(v.pos, "%s must be a whole number%s from 1 to %d, got %s", what, unit, max, v.s)
	}
	return n, nil
}

// atoi reads a whole number of at most max (>= 0), digits only.
func atoi(s string, max int64) (int64, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		d := int64(s[i]) - '0'
		if d < 0 || d > 9 || n > (max-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// gmarkLike reports whether the program is gmark, by any path.
func gmarkLike(exe string) bool {
	return exe[strings.LastIndexByte(exe, '/')+1:] == "gmark"
}

func (p *parser) argsOf(r *subreq) []string { return p.words[r.args[0]:r.args[1]] }

// isAppForm reports whether the words after the gmark program are "app"
// NAME followed by --key/--flag words (see Parse).
func isAppForm(words []string) bool {
	if len(words) < 2 || words[0] != "app" || words[1] == "" {
		return false
	}
	for i := 2; i < len(words); i++ {
		if !strings.HasPrefix(words[i], "--") {
			return false
		}
		// The key must be one a job's parameter may have ("-- " is not):
		// otherwise the words are kept whole, as any program's.
		if key, _, _ := strings.Cut(words[i][2:], "="); !workload.ValidParamName(key) {
			return false
		}
		// --key=value is a whole parameter; --key takes the next word
		// as its value unless that is a flag.
		if !strings.Contains(words[i], "=") && i+1 < len(words) && !strings.HasPrefix(words[i+1], "--") {
			i++
		}
	}
	return true
}

// appOf is the App of a gmark command line in the app form (isAppForm): the
// inverse of workload.App.Args.
func appOf(words []string) workload.App {
	app := workload.App{Name: words[1]}
	for i := 2; i < len(words); i++ {
		// "--key=value" is the flag package's other spelling of
		// "--key value": the same parameter, so that what checks a
		// parameter (a job's --workdir) sees it whichever way it is written.
		key, value, inline := strings.Cut(words[i][2:], "=")
		prm := workload.Param{Key: key, Value: value}
		if !inline && i+1 < len(words) && !strings.HasPrefix(words[i+1], "--") {
			i++
			prm.Value = words[i]
		}
		if app.Params == nil {
			app.Params = make([]workload.Param, 0, (len(words)-i)/2+1)
		}
		app.Params = append(app.Params, prm)
	}
	return app
}

// execApp is the App of a program that is not a gmark application.
func execApp(exe string, words []string) workload.App {
	params := make([]workload.Param, 0, 1+len(words))
	params = append(params, workload.Param{Key: "executable", Value: exe})
	for _, w := range words {
		params = append(params, workload.Param{Key: "arg", Value: w})
	}
	return workload.App{Name: ExecApp, Params: params}
}

// check checks a request just read: it has an executable, and a request
// after the first agrees with the first on what belongs to the whole job.
// Its argument and file lists are then dropped from the arenas (they equal
// the first's), so that memory does not grow with the number of components.
func (p *parser) check(r *subreq) error {
	if r.exePos < 0 {
		return p.errorf(r.pos, "%s has no executable: expected an (executable=…) relation", p.requestName())
	}
	if len(p.subs) == 0 {
		p.gmarkApp = gmarkLike(r.exe) && isAppForm(p.argsOf(r))
		return nil
	}
	first := &p.subs[0]
	if err := p.agree(r.pos, r.argsPos, first.argsPos, "arguments"); err != nil {
		return err
	}
	if !slices.Equal(p.argsOf(r), p.argsOf(first)) {
		return p.errorf(r.argsPos, "these arguments differ from those of the first subrequest (at %s): the subrequests of a KOALA co-allocated job run one application", p.at(first.argsPos))
	}
	if r.exe != first.exe && !(p.gmarkApp && gmarkLike(r.exe)) {
		return p.errorf(r.exePos, "executable %q differs from the first subrequest's %q (at %s): the subrequests of a KOALA co-allocated job run one application", r.exe, first.exe, p.at(first.exePos))
	}
	if err := p.agree(r.pos, r.typePos, first.typePos, "koalaRequestType"); err != nil {
		return err
	}
	if r.siteType != first.siteType {
		return p.errorf(r.typePos, "koalaRequestType differs from the first subrequest's (at %s): every subrequest of a job has the job's request type", p.at(first.typePos))
	}
	if err := p.agree(r.pos, r.filesPos, first.filesPos, "koalaInputFiles"); err != nil {
		return err
	}
	if !slices.Equal(p.files[r.files[0]:r.files[1]], p.files[first.files[0]:first.files[1]]) {
		return p.errorf(r.filesPos, "koalaInputFiles differ from the first subrequest's (at %s): every subrequest lists the job's input files", p.at(first.filesPos))
	}
	if err := p.agree(r.pos, r.idPos, first.idPos, JobIDEnv); err != nil {
		return err
	}
	if r.id != first.id {
		return p.errorf(r.idPos, "%s %q differs from the first subrequest's %q (at %s)", JobIDEnv, r.id, first.id, p.at(first.idPos))
	}
	p.words, p.files = p.words[:first.args[1]], p.files[:first.files[1]]
	r.args, r.files = first.args, first.files
	return nil
}

// job builds the job from the checked requests.
func (p *parser) job() (*workload.Job, error) {
	first := &p.subs[0]
	var app workload.App
	if p.gmarkApp {
		app = appOf(p.argsOf(first))
	} else {
		app = execApp(first.exe, p.argsOf(first))
	}
	j := &workload.Job{Kind: workload.Unitary, ID: first.id}
	j.App, j.Type = app, app.Name
	j.Components = make([]workload.Component, len(p.subs))
	named := 0
	var wall int64
	for i := range p.subs {
		r := &p.subs[i]
		j.Components[i] = workload.Component{Site: r.site, Count: r.count}
		if r.site != workload.AnySite {
			named++
		}
		wall = max(wall, r.wall)
	}
	j.WallTime = time.Duration(wall) * time.Minute
	if first.files[1] > first.files[0] {
		j.Files = append([]workload.File(nil), p.files[first.files[0]:first.files[1]]...)
	}
	switch {
	case first.typePos >= 0:
		j.SiteType = first.siteType
	case len(p.subs) == 1 && named == 0:
		j.SiteType = workload.Single
	case named == len(p.subs):
		j.SiteType = workload.Ordered
	case named > 0:
		j.SiteType = workload.SemiOrdered
	default:
		j.SiteType = workload.Unordered
	}
	return j, nil
}

// agree reports a job-wide relation present in one subrequest and absent
// from the other; pos is the later subrequest's '&'.
func (p *parser) agree(pos, here, first int, what string) error {
	switch {
	case here < 0 && first >= 0:
		return p.errorf(pos, "this subrequest has no %s but the first has one (at %s): every subrequest must carry the same", what, p.at(first))
	case here >= 0 && first < 0:
		return p.errorf(here, "%s here but not in the first subrequest: every subrequest must carry the same", what)
	}
	return nil
}

func (p *parser) requestName() string {
	if p.multi {
		return "this subrequest"
	}
	return "the request"
}
