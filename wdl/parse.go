package wdl

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/gmark/gmark/stats"
)

// Opener reads an included file by path. ParseFile uses os.ReadFile; tests
// and fuzzers pass an in-memory one.
type Opener func(path string) ([]byte, error)

// ParseFile reads and parses the WDL file at path.
func ParseFile(path string) (*Spec, error) {
	src, err := ReadFile(path)
	if err != nil {
		if u := errors.Unwrap(err); u != nil {
			err = u
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return Parse(path, src, ReadFile)
}

// Parse parses WDL text. name is used in positions and to resolve the
// relative paths of ExternalFile includes. The error, if any, is an ErrorList.
func Parse(name string, src []byte, open Opener) (*Spec, error) {
	p := &parser{
		spec:  &Spec{File: name},
		open:  open,
		ids:   map[int]Pos{},
		cache: map[string]*extFile{},
		files: map[string][]byte{},
	}
	p.inputBytes = len(src)
	p.parse(src)
	if len(p.errs) == 0 && len(p.spec.Units) == 0 {
		p.errorf(Pos{File: name, Line: 1, Col: 1}, "the workload has no units: write one line per unit, e.g.\n\t25\tsser\tsingle\t1\t*:?\tPoisson(120s)\tStartAt=0s")
	}
	if err := p.errs.Err(); err != nil {
		return nil, err
	}
	p.spec.Warnings.Sort()
	return p.spec, nil
}

type parser struct {
	spec    *Spec
	open    Opener
	errs    ErrorList
	maxID   int
	ids     map[int]Pos
	cache   map[string]*extFile
	stack   []string // external files being read, to catch include cycles
	sawUnit bool
	stop    bool // a limit was passed: read no further
	files   map[string][]byte
	// inputBytes counts the spec's bytes and those of the files it names.
	inputBytes int
}

func (p *parser) errorf(pos Pos, format string, args ...any) {
	if len(p.errs) < maxErrors {
		p.errs = append(p.errs, Errorf(pos, format, args...))
	}
}

func (p *parser) warnf(pos Pos, format string, args ...any) {
	if len(p.spec.Warnings) < MaxWarnings {
		p.spec.Warnings = append(p.spec.Warnings, Errorf(pos, format, args...))
	}
}

// read reads an included file (an extension or a fit file), once: every
// unit may name the same one. What the spec and its files hold counts
// against MaxInputBytes, so ten thousand units naming ten thousand files
// are refused rather than read.
func (p *parser) read(path string) ([]byte, error) {
	if b, ok := p.files[path]; ok {
		return b, nil
	}
	b, err := p.open(path)
	if err != nil {
		return nil, err
	}
	p.inputBytes += len(b)
	if p.inputBytes > MaxInputBytes {
		return nil, fmt.Errorf("the spec and the files it names hold more than %d MiB", MaxInputBytes>>20)
	}
	p.files[path] = b
	return b, nil
}

func (p *parser) addErr(err error) {
	var e *Error
	if errors.As(err, &e) {
		if len(p.errs) < maxErrors {
			p.errs = append(p.errs, e)
		}
		return
	}
	var l ErrorList
	if errors.As(err, &l) {
		for _, e := range l {
			p.addErr(e)
		}
	}
}

// The column layouts.
var (
	columnsV10 = []string{"#Jobs", "Type", "SiteType", "Total", "SiteInfo", "ArrivalTimeDistr", "OtherInfo"}
	columnsV11 = []string{"ID", "GeneratorType", "NTimes", "UnitType", "SiteType", "Total", "SiteInfo", "ArrivalTimeDistr", "OtherInfo"}
)

func (p *parser) parse(src []byte) {
	text := string(src)
	if len(src) > MaxFileBytes {
		p.errorf(Pos{File: p.spec.File, Line: 1, Col: 1}, "the file is %s", ErrTooLarge)
		return
	}
	if strings.IndexByte(text, 0) >= 0 {
		p.errorf(Pos{File: p.spec.File, Line: 1, Col: 1}, "this is a binary file, not a WDL text file")
		return
	}
	// Lines one at a time: a file of 16 million empty lines must not become
	// 16 million strings at once.
	num := 0
	for raw := range strings.SplitSeq(text, "\n") {
		num++
		if len(p.errs) >= maxErrors || p.stop {
			return
		}
		line := newLineRef(p.spec.File, num, strings.TrimRight(raw, "\r"))
		trimmed := strings.TrimSpace(line.text)
		switch {
		case trimmed == "":
		case strings.HasPrefix(trimmed, "#"):
			p.header(line, trimmed)
		default:
			p.unitLine(line)
		}
	}
}

// header reads the "# File-type:" and "# File-version:" markers; other
// comments (such as the column-title line) are ignored.
func (p *parser) header(line lineRef, trimmed string) {
	body := strings.TrimSpace(strings.TrimPrefix(trimmed, "#"))
	key, value, ok := strings.Cut(body, ":")
	if !ok {
		return
	}
	value = strings.TrimSpace(value)
	colon := strings.IndexByte(line.text, ':')
	valPos := line.at(colon + 1 + strings.Index(line.text[colon+1:], value))
	switch strings.ToLower(strings.TrimSpace(key)) {
	case "file-type":
		if value != "text/wl-spec" {
			p.errorf(valPos, "File-type is %q; gmark reads text/wl-spec workload descriptions", Excerpt(value))
		}
	case "file-version":
		if p.sawUnit {
			p.errorf(valPos, "File-version must come before the first unit line")
			return
		}
		v, err := strconv.ParseFloat(value, 64)
		switch {
		case err != nil:
			p.errorf(valPos, "File-version %q is not a number (1.0 or 1.1)", Excerpt(value))
		case v == 1.0:
			p.spec.Version = "1.0"
		case v >= 1.1 && v < 2:
			p.spec.Version = "1.1"
		default:
			p.errorf(valPos, "unsupported File-version %s: gmark reads 1.0 (7 columns) and 1.1 (9 columns)", value)
		}
	}
}

// field is one column of a unit line.
type field struct {
	text string
	off  int // byte offset in the line
}

// splitFields splits a line on runs of tabs and spaces, keeping double-quoted
// text (which may hold spaces) in one field. A field starting with '#' starts
// a trailing comment. It stops after max fields: a line with more is an
// error whatever the rest holds.
func splitFields(line string, max int) ([]field, error) {
	var fields []field
	i := 0
	for i < len(line) && len(fields) < max {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			break
		}
		if line[i] == '#' {
			break
		}
		start := i
		inQuote := false
		for i < len(line) && (inQuote || (line[i] != ' ' && line[i] != '\t')) {
			switch {
			case line[i] == '\\' && inQuote && i+1 < len(line):
				i++
			case line[i] == '"':
				inQuote = !inQuote
			}
			i++
		}
		if inQuote {
			return fields, &distError{start, `unterminated quoted value: a " without its closing "`}
		}
		fields = append(fields, field{line[start:i], start})
	}
	return fields, nil
}

func (p *parser) unitLine(line lineRef) {
	p.sawUnit = true
	if len(p.spec.Units) == MaxUnits {
		p.errorf(line.at(0), "more than %d units: split the workload into several files", MaxUnits)
		p.stop = true
		return
	}
	fields, err := splitFields(line.text, len(columnsV11)+1)
	if err != nil {
		p.errorf(line.at(err.(*distError).off), "%v", err)
		return
	}
	n := len(fields)
	layout := ""
	switch n {
	case 6, 7:
		layout = "1.0"
	case 8, 9:
		layout = "1.1"
	}
	cols := columnsV10
	if p.spec.Version == "1.1" || (p.spec.Version == "" && layout == "1.1") {
		cols = columnsV11
	}
	if layout == "" || (p.spec.Version != "" && layout != p.spec.Version) {
		at := line.at(len(line.text))
		if n > len(cols) {
			at = line.at(fields[len(cols)].off)
		}
		count := strconv.Itoa(n)
		if n > len(columnsV11) { // splitFields stopped counting
			count = "more than " + strconv.Itoa(len(columnsV11))
		}
		p.errorf(at, "this line has %s columns; %s", count, layoutHelp(p.spec.Version))
		return
	}
	if p.spec.Version == "" {
		p.spec.Version = layout
	}
	u := &Unit{Pos: line.at(0), Options: NewOptions(), NTimes: 1}
	get := func(i int) (field, Pos) {
		if i < len(fields) {
			return fields[i], line.at(fields[i].off)
		}
		return field{text: "-", off: len(line.text)}, line.at(len(line.text))
	}
	var f []field
	var pos []Pos
	for i := range cols {
		fi, pi := get(i)
		f, pos = append(f, fi), append(pos, pi)
	}
	if layout == "1.0" {
		// #Jobs Type SiteType Total SiteInfo ArrivalTimeDistr OtherInfo
		u.Cols = Columns{ID: pos[0], Generator: pos[1], NTimes: pos[0], Type: pos[1], SiteType: pos[2],
			Total: pos[3], SiteInfo: pos[4], Arrival: pos[5], OtherInfo: pos[6]}
		p.autoID(u)
		p.nTimes(u, f[0].text)
		p.unitType(u, f[1].text)
		p.rest(u, line, f[2:], pos[2:])
	} else {
		// ID GeneratorType NTimes UnitType SiteType Total SiteInfo ArrivalTimeDistr OtherInfo
		u.Cols = Columns{ID: pos[0], Generator: pos[1], NTimes: pos[2], Type: pos[3], SiteType: pos[4],
			Total: pos[5], SiteInfo: pos[6], Arrival: pos[7], OtherInfo: pos[8]}
		p.unitID(u, f[0].text)
		u.Composite = strings.Contains(strings.ToLower(f[1].text), "composite")
		p.nTimes(u, f[2].text)
		p.unitType(u, f[3].text)
		p.rest(u, line, f[4:], pos[4:])
	}
	p.spec.Units = append(p.spec.Units, u)
}

func layoutHelp(version string) string {
	v10 := "the v1.0 layout has 7 (" + strings.Join(columnsV10, " ") + ")"
	v11 := "the v1.1 layout has 9 (" + strings.Join(columnsV11, " ") + ")"
	switch version {
	case "1.0":
		return "File-version 1.0 lines have 7 columns (" + strings.Join(columnsV10, " ") + "); OtherInfo may be left out"
	case "1.1":
		return "File-version 1.1 lines have 9 columns (" + strings.Join(columnsV11, " ") + "); OtherInfo may be left out"
	}
	return v10 + " and " + v11 + "; OtherInfo may be left out"
}

// autoID assigns the next id: one more than the largest seen so far, as
// GrenchMark did. Appending a unit therefore never renumbers earlier ones,
// and so never changes their random streams.
func (p *parser) autoID(u *Unit) {
	if p.maxID >= MaxUnitID {
		p.errorf(u.Cols.ID, "no unit ID is left after %d for ?: number the units yourself", MaxUnitID)
		return
	}
	u.ID, u.AutoID = p.maxID+1, true
	p.claimID(u, u.Cols.ID)
}

func (p *parser) unitID(u *Unit, s string) {
	if s == "?" {
		p.autoID(u)
		return
	}
	id, err := strconv.Atoi(s)
	if err != nil || id < 0 || id > MaxUnitID {
		p.errorf(u.Cols.ID, "unit ID %q must be a whole number from 0 to %d, or ? (assign automatically)", Excerpt(s), MaxUnitID)
		return
	}
	u.ID = id
	p.claimID(u, u.Cols.ID)
}

func (p *parser) claimID(u *Unit, at Pos) {
	if prev, dup := p.ids[u.ID]; dup {
		p.errorf(at, "duplicate unit ID %d: line %d already has it", u.ID, prev.Line)
		return
	}
	p.ids[u.ID] = at
	if u.ID > p.maxID {
		p.maxID = u.ID
	}
}

func (p *parser) nTimes(u *Unit, s string) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > MaxJobs {
		p.errorf(u.Cols.NTimes, "the number of jobs %q must be a whole number from 0 to %d", Excerpt(s), MaxJobs)
		return
	}
	u.NTimes = n
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func (p *parser) unitType(u *Unit, s string) {
	name := s
	if strings.HasPrefix(strings.ToLower(s), "wf:") {
		// A workflow template: its path, relative to the spec (the
		// generator reads it).
		if s[3:] == "" {
			p.errorf(u.Cols.Type, "wf: names no workflow: wf:PATH, a WfFormat instance")
			return
		}
		u.Type, u.Template, u.Composite = "wf", s[3:], true
		return
	}
	if strings.HasPrefix(strings.ToLower(s), "wl:") {
		u.Workload, name = true, s[3:]
	}
	if !validName(name) {
		p.errorf(u.Cols.Type, "bad unit type %q: a name of letters, digits, '_', '-' and '.', optionally prefixed with wl:", Excerpt(s))
		return
	}
	u.Type = name
}

// rest parses SiteType Total SiteInfo ArrivalTimeDistr OtherInfo, the columns
// both layouts share.
func (p *parser) rest(u *Unit, line lineRef, f []field, pos []Pos) {
	errsBefore := len(p.errs)
	if st, ok := ParseSiteType(f[0].text); ok {
		u.SiteType = st
	} else {
		p.errorf(pos[0], "unknown SiteType %q (single, unordered, ordered, semi-ordered, or flexible; KOALA's fixed, nonfixed and semifixed are accepted too)", Excerpt(f[0].text))
	}
	p.total(u, f[1].text, pos[1])
	p.siteInfo(u, line, f[2])
	p.arrival(u, line, f[3])
	p.otherInfo(u, line, f[4])
	p.modelArrival(u)
	p.noteFitFiles(u)
	p.noteCensored(u)
	// Checks across columns would only repeat an error already reported.
	if len(p.errs) == errsBefore {
		p.checkUnit(u)
	}
}

func (p *parser) total(u *Unit, s string, at Pos) {
	if s == "?" {
		u.Total = Unknown
		return
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxProcessors {
		p.errorf(at, "Total %q must be a whole number from 1 to %d, or ?", Excerpt(s), MaxProcessors)
		u.Total = 1
		return
	}
	u.Total = n
}

// siteInfo reads "site:amount,site:amount", or "-" for none.
func (p *parser) siteInfo(u *Unit, line lineRef, f field) {
	if f.text == "-" {
		return
	}
	off := f.off
	for i, item := range strings.SplitN(f.text, ",", MaxComponents+1) {
		at := line.at(off)
		if i == MaxComponents {
			p.errorf(at, "SiteInfo has more than %d entries, the most components a job may have", MaxComponents)
			return
		}
		off += len(item) + 1
		site, amount, ok := strings.Cut(item, ":")
		if !ok {
			p.errorf(at, "SiteInfo entry %q must be site:amount (site a name or *, amount a number or ?)", Excerpt(item))
			continue
		}
		if site != AnySite && !validName(site) {
			p.errorf(at, "bad site name %q in SiteInfo", Excerpt(site))
			continue
		}
		sa := SiteAmount{Site: site, Amount: Unknown, Pos: at}
		if amount != "?" {
			n, err := strconv.Atoi(amount)
			if err != nil || n < 1 || n > MaxProcessors {
				p.errorf(line.at(off-len(amount)-1), "SiteInfo amount %q must be a whole number from 1 to %d, or ?", Excerpt(amount), MaxProcessors)
				continue
			}
			sa.Amount = n
		}
		u.Sites = append(u.Sites, sa)
	}
}

// arrival reads Name(p1,p2,…), a bare Name (no parameters), or "-" (Zero).
func (p *parser) arrival(u *Unit, line lineRef, f field) {
	at := line.at(f.off)
	u.Arrival = Arrival{Text: f.text, Pos: at}
	if f.text == "-" {
		u.Arrival.Dist = stats.Constant{}
		return
	}
	d, err := ParseDistributionIn(f.text, p.distContext(line.file))
	if err != nil {
		var de *distError
		if errors.As(err, &de) {
			at = line.at(f.off + de.off)
		}
		p.errorf(at, "%v", err)
		return
	}
	if err := InterArrivals.CheckDist(d); err != nil {
		p.errorf(at, "%s", asWritten(err.Error(), f.text, d))
		return
	}
	u.Arrival.Dist = d
}

// distContext resolves Fit(file,key) files against the directory of the
// file being read, through the parser's opener, and records them among the
// spec's inputs (their digests go into the workload's provenance).
func (p *parser) distContext(file string) DistContext {
	return DistContext{Dir: filepath.Dir(file), Open: p.read, Loaded: p.included}
}

func (p *parser) included(path string) {
	for _, inc := range p.spec.Includes {
		if inc == path {
			return
		}
	}
	p.spec.Includes = append(p.spec.Includes, path)
}

// modelArrival gives a job unit whose ArrivalTimeDistr is "-" the
// inter-arrival time of its Model= fit file, when the file has one
// ("interarrival"). Workload generators (wl:) read Model= themselves.
func (p *parser) modelArrival(u *Unit) {
	if u.Workload || u.Arrival.Text != "-" || !u.Options.Has("Model") {
		return
	}
	opt, _ := u.Options.Get("Model")
	recs, full, err := LoadFitFile(opt.Value, p.distContext(opt.Pos.File))
	if err != nil {
		p.errorf(opt.Pos, "Model: %v", err)
		return
	}
	rec, ok := recs["interarrival"]
	if !ok {
		return
	}
	d, err := rec.Distribution()
	if err != nil {
		p.errorf(opt.Pos, "Model: %s [interarrival]: %v", ExcerptPath(full), err)
		return
	}
	if err := InterArrivals.CheckDist(d); err != nil {
		p.errorf(opt.Pos, "Model: %s [interarrival]: %v", ExcerptPath(full), err)
		return
	}
	u.Arrival.Dist = d
	u.Arrival.Text = "Fit(" + opt.Value + ",interarrival)"
}

// fitCall finds the file of each Fit(file,key) in a value.
var fitCall = regexp.MustCompile(`(?i)\bFit\(\s*([^,()]+?)\s*,`)

// noteFitFiles records the fit files a unit's OtherInfo names (Model=, and
// Fit(file,key) in any value, e.g. RunTime=Fit(fit.toml,runtime)) among the
// spec's inputs, so the workload's manifest lists them with their digests.
// Files that cannot be read are left to the generator to report.
func (p *parser) noteFitFiles(u *Unit) {
	for _, opt := range u.Options.All() {
		var files []string
		if opt.Key == "Model" {
			files = append(files, opt.Value)
		}
		for _, m := range fitCall.FindAllStringSubmatch(opt.Value, -1) {
			files = append(files, m[1])
		}
		for _, f := range files {
			if !filepath.IsAbs(f) {
				f = filepath.Join(filepath.Dir(opt.Pos.File), f)
			}
			f = filepath.Clean(f)
			if _, err := p.read(f); err == nil {
				p.included(f)
			}
		}
	}
}

// fitCallKey finds the file and key of each Fit(file,key) in a value.
var fitCallKey = regexp.MustCompile(`(?i)\bFit\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*\)`)

// noteCensored warns of each fitted model a unit draws from (Fit(file,key)
// in its arrival column or any value, the records of a Model= file) that
// was fitted to censored data: how it is drawn at the censoring point and
// how much of the model lies beyond it, which the trace only recorded as
// censored. The files were read (and their errors reported) already.
func (p *parser) noteCensored(u *Unit) {
	type use struct {
		at         Pos
		what, file string
		keys       []string // nil: every record of the file (Model=)
	}
	var uses []use
	for _, m := range fitCallKey.FindAllStringSubmatch(u.Arrival.Text, -1) {
		uses = append(uses, use{u.Arrival.Pos, "the arrival time", m[1], []string{m[2]}})
	}
	for _, opt := range u.Options.All() {
		if opt.Key == "Model" {
			uses = append(uses, use{opt.Pos, "Model", opt.Value, nil})
		}
		for _, m := range fitCallKey.FindAllStringSubmatch(opt.Value, -1) {
			uses = append(uses, use{opt.Pos, opt.Key, m[1], []string{m[2]}})
		}
	}
	for _, us := range uses {
		recs, _, err := LoadFitFile(us.file, p.distContext(us.at.File))
		if err != nil {
			continue
		}
		keys := us.keys
		if keys == nil {
			keys = FitKeys(recs)
		}
		for _, k := range keys {
			rec, ok := recs[k]
			if !ok || rec.CensorAt <= 0 {
				continue
			}
			d, err := rec.Distribution()
			if err != nil {
				continue
			}
			beyond := 1 - d.CDF(rec.CensorAt) // the whole model's mass there
			if c, ok := d.(stats.Censored); ok {
				beyond = c.Beyond()
			}
			if rec.Censored == 0 && beyond < 1e-6 {
				continue // nothing reached the point, and the model hardly does (an inter-arrival time censored at a run-time limit)
			}
			call := "Fit(" + ExcerptPath(us.file) + "," + Excerpt(k) + ")"
			data := "the data said only that some values were at least that"
			if rec.N > 0 {
				data = fmt.Sprintf("the data: %d of %d values, %.3g%%, censored there", rec.Censored, rec.N, 100*float64(rec.Censored)/float64(rec.N))
			}
			if rec.Tail == stats.TailCapped {
				p.warnf(us.at, "%s: %s is drawn as the censored data were recorded: draws at or past its censoring point %g s are %g s, %.3g%% of the fitted model's mass (%s)",
					us.what, call, rec.CensorAt, rec.CensorAt, 100*beyond, data)
				continue
			}
			if rec.Tail == stats.TailUncensored {
				p.warnf(us.at, "%s: %s is drawn whole (tail = %q), past its censoring point %g s too, where the fitted model puts %.3g%% of its mass (%s)",
					us.what, call, stats.TailUncensored, rec.CensorAt, 100*beyond, data)
				continue
			}
			p.warnf(us.at, "%s: %s is drawn below its censoring point %g s: the fitted model puts %.3g%% of its mass beyond it (%s); tail = %q in the fit file draws the whole model",
				us.what, call, rec.CensorAt, 100*beyond, data, stats.TailUncensored)
		}
	}
}

// otherInfo reads the comma-separated Key=Value pairs, merging ExternalFile
// includes where they appear.
func (p *parser) otherInfo(u *Unit, line lineRef, f field) {
	u.Cols.OtherInfo = line.at(f.off)
	if f.text == "-" {
		return
	}
	pairs, err := scanPairs(line, f.text, f.off)
	if err != nil {
		p.addErr(err)
		return
	}
	p.applyPairs(u.Options, pairs, filepath.Dir(line.file))
}

// pair is one Key=Value read from a line or a file.
type pair struct {
	key, value     string
	keyPos, valPos Pos
}

// scanPairs splits "K=V,K=V" (values may be double-quoted to hold ',' or '=').
func scanPairs(line lineRef, s string, base int) ([]pair, error) {
	var out []pair
	i := 0
	for i <= len(s) {
		start := i
		eq := strings.IndexByte(s[i:], '=')
		comma := strings.IndexByte(s[i:], ',')
		if comma >= 0 && eq >= 0 && comma > eq {
			comma = -1 // the value's own commas do not matter here
		}
		if eq < 0 || (comma >= 0 && comma < eq) {
			end := len(s)
			if comma >= 0 {
				end = i + comma
			}
			return nil, Errorf(line.at(base+start), "expected Key=Value, got %q", Excerpt(s[start:end]))
		}
		key := strings.TrimSpace(s[i : i+eq])
		if !validKey(key) {
			return nil, Errorf(line.at(base+start), "bad key %q: keys are letters, digits, '_', '-' and '.', start with a letter and have at most %d characters", Excerpt(key), MaxKeyLen)
		}
		i += eq + 1
		vstart := i
		var value string
		if i < len(s) && s[i] == '"' {
			v, n, err := unquote(s[i:])
			if err != nil {
				return nil, Errorf(line.at(base+i), "%s: %v", key, err)
			}
			value, i = v, i+n
			vstart++
			if i < len(s) && s[i] != ',' {
				return nil, Errorf(line.at(base+i), "%s: expected ',' after the quoted value", key)
			}
		} else {
			end := valueEnd(s[i:])
			value = strings.TrimSpace(s[i : i+end])
			i += end
		}
		if value == "" {
			return nil, Errorf(line.at(base+vstart), "%s has no value", key)
		}
		if len(out) == MaxPairs {
			return nil, Errorf(line.at(base+start), "more than %d Key=Value pairs", MaxPairs)
		}
		out = append(out, pair{key: key, value: value, keyPos: line.at(base + start), valPos: line.at(base + vstart)})
		if i >= len(s) {
			break
		}
		i++ // the comma
		if i == len(s) {
			return nil, Errorf(line.at(base+i-1), "trailing ',' after %s", key)
		}
	}
	return out, nil
}

// valueEnd is the length of an unquoted value: up to the next ',' that is
// not inside parentheses, so a distribution such as RunTime=U(1m,5m) is one
// value.
func valueEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return len(s)
}

func validKey(s string) bool {
	if s == "" || len(s) > MaxKeyLen || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	return validName(s)
}

// unquote reads a double-quoted string at the start of s, with \" and \\
// escapes; it returns the value and the number of bytes consumed.
func unquote(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
				b.WriteByte(s[i+1])
				i++
				continue
			}
			b.WriteByte('\\')
		case '"':
			return b.String(), i + 1, nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, fmt.Errorf("unterminated quoted value")
}

// applyPairs sets pairs in order; ExternalFile=PATH reads PATH (relative to
// dir) and applies its pairs at that point, so the file's values override
// what came before and are overridden by what comes after.
func (p *parser) applyPairs(o *Options, pairs []pair, dir string) {
	seen := map[string]bool{}
	for _, pr := range pairs {
		if pr.key == "ExternalFile" {
			path := pr.value
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			ext := p.loadExt(path, pr.valPos)
			if ext == nil {
				continue
			}
			for _, epr := range ext.pairs {
				o.Set(Option{Key: epr.key, Value: epr.value, Pos: epr.valPos, KeyPos: epr.keyPos})
			}
			o.Set(Option{Key: pr.key, Value: pr.value, Pos: pr.valPos, KeyPos: pr.keyPos})
			o.MarkUsed("ExternalFile")
			continue
		}
		if seen[pr.key] {
			p.warnf(pr.keyPos, "%s is defined again; the later value %q wins", pr.key, Excerpt(pr.value))
		}
		seen[pr.key] = true
		o.Set(Option{Key: pr.key, Value: pr.value, Pos: pr.valPos, KeyPos: pr.keyPos})
	}
}

// extFile is a parsed extension file: its pairs with includes already merged.
type extFile struct {
	pairs []pair
}

// maxIncludeDepth bounds how deep extension files include each other: they
// are read recursively.
const maxIncludeDepth = 16

// loadExt reads an extension file once (it may be named by many units).
func (p *parser) loadExt(path string, from Pos) *extFile {
	clean := filepath.Clean(path)
	for _, s := range p.stack {
		if s == clean {
			p.errorf(from, "ExternalFile %s includes itself (through %s)", ExcerptPath(path), ExcerptPath(strings.Join(p.stack, " -> ")))
			return nil
		}
	}
	if e, ok := p.cache[clean]; ok {
		return e
	}
	if len(p.stack) == maxIncludeDepth {
		p.errorf(from, "ExternalFile %s: extension files nest more than %d deep", ExcerptPath(path), maxIncludeDepth)
		return nil
	}
	src, err := p.read(clean)
	if err != nil {
		p.errorf(from, "ExternalFile %s: %s", ExcerptPath(path), readError(err))
		p.cache[clean] = nil
		return nil
	}
	p.spec.Includes = append(p.spec.Includes, clean)
	p.stack = append(p.stack, clean)
	defer func() { p.stack = p.stack[:len(p.stack)-1] }()
	pairs := p.parseExt(clean, src)
	// Merge includes in order, as for OtherInfo.
	o := NewOptions()
	p.applyPairs(o, pairs, filepath.Dir(clean))
	e := &extFile{}
	for _, opt := range o.All() {
		e.pairs = append(e.pairs, pair{key: opt.Key, value: opt.Value, keyPos: opt.KeyPos, valPos: opt.Pos})
	}
	p.cache[clean] = e
	return e
}

// parseExt reads the Key=Value extension language: one pair per line, '#'
// comments, blank lines, and lines starting with '*' holding several
// comma-separated pairs.
func (p *parser) parseExt(name string, src []byte) []pair {
	if strings.IndexByte(string(src), 0) >= 0 {
		p.errorf(Pos{File: name, Line: 1, Col: 1}, "this is a binary file, not a Key=Value extension file")
		return nil
	}
	var out []pair
	num := 0
	for raw := range strings.SplitSeq(string(src), "\n") {
		num++
		line := newLineRef(name, num, strings.TrimRight(raw, "\r"))
		if len(out) > MaxPairs {
			p.errorf(line.at(0), "more than %d Key=Value pairs in one extension file", MaxPairs)
			return nil
		}
		body := strings.TrimSpace(line.text)
		if body == "" || body[0] == '#' {
			continue
		}
		base := strings.Index(line.text, body)
		if body[0] == '*' {
			pairs, err := scanPairs(line, body[1:], base+1)
			if err != nil {
				p.addErr(err)
				continue
			}
			out = append(out, pairs...)
			continue
		}
		key, value, ok := strings.Cut(body, "=")
		key = strings.TrimSpace(key)
		if !ok || !validKey(key) {
			if len(out) == 0 {
				// The first line is no Key=Value pair: most likely the wrong
				// file (ExternalFile=/etc/passwd). One error, and none of
				// its lines echoed past a short excerpt.
				p.errorf(line.at(base), "this is not a Key=Value extension file: line %d starts %q", line.num, Excerpt(body))
				return nil
			}
			if !ok {
				p.errorf(line.at(base), "expected Key=Value, got %q", Excerpt(body))
			} else {
				p.errorf(line.at(base), "bad key %q: keys are letters, digits, '_', '-' and '.', start with a letter and have at most %d characters", Excerpt(key), MaxKeyLen)
			}
			continue
		}
		voff := base + strings.IndexByte(body, '=') + 1 + (len(value) - len(strings.TrimLeft(value, " \t")))
		value = strings.TrimSpace(value)
		if strings.HasPrefix(value, `"`) {
			v, n, err := unquote(value)
			if err != nil || n != len(value) {
				p.errorf(line.at(voff), "%s: bad quoted value", key)
				continue
			}
			value = v
			voff++
		}
		if value == "" {
			p.errorf(line.at(voff), "%s has no value", key)
			continue
		}
		out = append(out, pair{key: key, value: value, keyPos: line.at(base), valPos: line.at(voff)})
	}
	return out
}

// asWritten names a distribution in msg (which starts with d's name) as
// the spec wrote it, when that is another family: Poisson(1e300s) is
// Exp(1e-300) inside, a name the user never wrote.
func asWritten(msg, text string, d stats.Distribution) string {
	name, written := d.String(), strings.TrimSpace(text)
	family := func(s string) string { f, _, _ := strings.Cut(s, "("); return f }
	if !strings.HasPrefix(msg, name) || family(written) == family(name) {
		return msg
	}
	return written + " (" + name + ")" + msg[len(name):]
}
