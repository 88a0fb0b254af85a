package wdl

import (
	"fmt"
	"io/fs"
	"math"
	"strings"
	"testing"
)

// memFS is an in-memory Opener for included files.
type memFS map[string]string

func (m memFS) open(path string) ([]byte, error) {
	s, ok := m[path]
	if !ok {
		return nil, fmt.Errorf("open %s: %w", path, fs.ErrNotExist)
	}
	return []byte(s), nil
}

func TestParseFig54(t *testing.T) {
	spec, err := ParseFile("../examples/thesis/fig5_4.wdl")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Version != "1.0" || len(spec.Units) != 4 {
		t.Fatalf("version %q, %d units; want 1.0 and 4", spec.Version, len(spec.Units))
	}
	wantTypes := []string{"sser", "sserio", "smpi1", "smpi1"}
	wantStart := []string{"0s", "60s", "30s", "90s"}
	for i, u := range spec.Units {
		if u.ID != i+1 || !u.AutoID || u.NTimes != 25 || u.Type != wantTypes[i] || u.SiteType != Single || u.Total != 1 {
			t.Errorf("unit %d = %+v", i, u)
		}
		if len(u.Sites) != 1 || u.Sites[0].Site != AnySite || u.Sites[0].Amount != Unknown {
			t.Errorf("unit %d sites %+v, want *:?", i, u.Sites)
		}
		if m := u.Arrival.Dist.Mean(); m != 120 {
			t.Errorf("unit %d arrival mean %g, want 120", i, m)
		}
		if v, _ := u.Options.String("StartAt"); v != wantStart[i] {
			t.Errorf("unit %d StartAt %q", i, v)
		}
	}
	// The third unit merged Fig. 5.5.
	o := spec.Units[2].Options
	opt, ok := o.Get(KeyNComponents)
	if !ok || opt.Pos.File != "../examples/thesis/smpi1.xin" || opt.Pos.Line != 8 || opt.Pos.Col != 24 {
		t.Errorf("NComponentsWithWeights = %+v, want it from smpi1.xin:8:24", opt)
	}
	if len(spec.Includes) != 2 {
		t.Errorf("includes %v, want the two .xin files", spec.Includes)
	}
	// smpi2.xin's '*' line holds two pairs.
	if _, ok := spec.Units[3].Options.Get(KeyTotalCPUs); !ok {
		t.Error("smpi2.xin's * line was not split into pairs")
	}
}

func TestParseV11(t *testing.T) {
	src := "# File-type: text/wl-spec\n# File-version: 1.1\n" +
		"7\tunitary\t10\tsmpi\tordered\t?\tfs0:4,fs1:?\tU(1m,2m)\tNSites=2\n" +
		"?\tcomposite\t3\tchain\tsingle\t1\t-\tZero\tN=30-50,L=30-50\n" +
		"?\tunitary\t2\twl:trace\tsingle\t1\t*:1\t-\t-\n"
	_, err := Parse("v11.wdl", []byte(src), memFS{}.open)
	// fs1:? with Total ? is an error; fix it and parse again.
	if err == nil || !strings.Contains(err.Error(), "v11.wdl:3:27: Total and SiteInfo are both ?") {
		t.Fatalf("want the both-? error at the Total column, got %v", err)
	}
	src = strings.Replace(src, "fs1:?", "fs1:8", 1)
	spec, err := Parse("v11.wdl", []byte(src), memFS{}.open)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Version != "1.1" {
		t.Errorf("version %q", spec.Version)
	}
	u := spec.Units
	if u[0].ID != 7 || u[0].AutoID || u[0].Composite || u[0].SiteType != Ordered || u[0].Total != Unknown {
		t.Errorf("unit 0: %+v", u[0])
	}
	if m := u[0].Arrival.Dist.Mean(); m != 90 {
		t.Errorf("U(1m,2m) mean %g, want 90", m)
	}
	if u[1].ID != 8 || !u[1].AutoID || !u[1].Composite || u[1].Type != "chain" {
		t.Errorf("unit 1: %+v", u[1])
	}
	if u[2].ID != 9 || !u[2].Workload || u[2].Type != "trace" || u[2].FullType() != "wl:trace" {
		t.Errorf("unit 2: %+v", u[2])
	}
}

func TestWhitespaceSeparatedAndQuotes(t *testing.T) {
	src := `10   sser  single  1  *:?   Poisson(2m)   StartAt=1h,Description="a, b = c",RandomWorkload=false   # trailing comment`
	spec, err := Parse("ws.wdl", []byte(src), memFS{}.open)
	if err != nil {
		t.Fatal(err)
	}
	u := spec.Units[0]
	if d, _ := u.Options.String("Description"); d != "a, b = c" {
		t.Errorf("Description = %q", d)
	}
	if u.Arrival.Dist.Mean() != 120 {
		t.Errorf("Poisson(2m) mean %g", u.Arrival.Dist.Mean())
	}
}

func TestExternalFileOverrideAndRecursion(t *testing.T) {
	files := memFS{
		"dir/a.xin":     "NSites=2\nExternalFile=sub/b.xin\nX=from-a\n",
		"dir/sub/b.xin": "# nested, relative to its own folder\n*Y=from-b, X=from-b\nZ=\"quoted, value\"\n",
	}
	src := "4\tsmpi\tunordered\t8\t-\tZero\tX=line,NSites=9,ExternalFile=a.xin,Y=after\n"
	spec, err := Parse("dir/w.wdl", []byte(src), files.open)
	if err != nil {
		t.Fatal(err)
	}
	o := spec.Units[0].Options
	want := map[string]string{"X": "from-a", "NSites": "2", "Y": "after", "Z": "quoted, value"}
	for k, v := range want {
		if got, _ := o.String(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if opt, _ := o.Get("Z"); opt.Pos.File != "dir/sub/b.xin" || opt.Pos.Line != 3 {
		t.Errorf("Z at %v", opt.Pos)
	}
}

func TestResolve(t *testing.T) {
	a := func(site string, n int) SiteAmount { return SiteAmount{Site: site, Amount: n} }
	cases := []struct {
		st     SiteType
		total  int
		sites  []SiteAmount
		nsites int
		want   string
		err    string
	}{
		{Single, 1, []SiteAmount{a("*", Unknown)}, 0, "*:1", ""},
		{Single, 8, nil, 0, "*:8", ""},
		{Single, Unknown, []SiteAmount{a("fs1", 4)}, 0, "fs1:4", ""},
		{Single, 4, []SiteAmount{a("fs1", 8)}, 0, "", "add up to 8 but Total is 4"},
		{Single, Unknown, []SiteAmount{a("*", Unknown)}, 0, "", "both ?"},
		{Single, 2, []SiteAmount{a("a", 1), a("b", 1)}, 0, "", "one SiteInfo entry"},
		{Ordered, 10, []SiteAmount{a("fs0", Unknown), a("fs1", Unknown), a("fs2", Unknown)}, 0, "fs0:4 fs1:3 fs2:3", ""},
		{Ordered, Unknown, []SiteAmount{a("fs0", 4), a("fs1", 8)}, 0, "fs0:4 fs1:8", ""},
		{Ordered, 20, []SiteAmount{a("*", Unknown), a("fs3", Unknown), a("fs2", 10), a("*", 5)}, 0, "*:3 fs3:2 fs2:10 *:5", ""},
		{Ordered, 8, nil, 0, "", "needs a SiteInfo entry"},
		{Unordered, 7, nil, 3, "*:3 *:2 *:2", ""},
		{Unordered, 7, nil, 0, "", "needs NSites"},
		{Unordered, 7, []SiteAmount{a("fs1", 2)}, 2, "", "names fs1"},
		{Unordered, 2, nil, 3, "", "leaves 2 processor(s) for 3"},
		{SemiOrdered, 12, []SiteAmount{a("fs1", 4)}, 3, "*:4 *:4 fs1:4", ""},
		{SemiOrdered, 12, []SiteAmount{a("fs1", 4), a("fs2", 4)}, 1, "", "smaller than the 2"},
		{Flexible, 64, nil, 0, "*:64", ""},
	}
	for _, c := range cases {
		got, err := Resolve(c.st, c.total, c.sites, c.nsites)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Resolve(%s,%d,%v,%d) error %v, want %q", c.st, c.total, c.sites, c.nsites, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(%s,%d,%v,%d): %v", c.st, c.total, c.sites, c.nsites, err)
			continue
		}
		var parts []string
		for _, s := range got {
			parts = append(parts, fmt.Sprintf("%s:%d", s.Site, s.Amount))
		}
		if s := strings.Join(parts, " "); s != c.want {
			t.Errorf("Resolve(%s,%d,%v,%d) = %s, want %s", c.st, c.total, c.sites, c.nsites, s, c.want)
		}
	}
}

// Every kind of malformed input gives a file:line:col message.
func TestMalformed(t *testing.T) {
	const hdr = "# File-type: text/wl-spec\n"
	cases := []struct {
		name, src string
		files     memFS
		want      string // the whole first error line
	}{
		{"unknown distribution", "5\tsser\tsingle\t1\t*:?\tFoo(1)\t-",
			nil, `w.wdl:2:21: unknown distribution "Foo" (known: C, Emp, Exp, Gamma, HExp2, HExp3, HGamma2, HPoisson2, LogNorm, N, Pareto, Poisson, RSD, U, W, Zero, Zipf)`},
		{"bad unit type", "5\tss er!\tsingle\t1\t*:?\tZero\t-", nil, ""},
		{"bad unit name", "5\tsser$\tsingle\t1\t*:?\tZero\t-",
			nil, `w.wdl:2:3: bad unit type "sser$": a name of letters, digits, '_', '-' and '.', optionally prefixed with wl:`},
		{"duplicate id", "3\tunitary\t1\tsser\tsingle\t1\t*:?\tZero\t-\n3\tunitary\t1\thello\tsingle\t1\t*:?\tZero\t-",
			nil, "w.wdl:3:1: duplicate unit ID 3: line 2 already has it"},
		{"auto id collides", "?\tunitary\t1\tsser\tsingle\t1\t*:?\tZero\t-\n1\tunitary\t1\thello\tsingle\t1\t*:?\tZero\t-",
			nil, "w.wdl:3:1: duplicate unit ID 1: line 2 already has it"},
		{"both ?", "5\tsmpi\tsingle\t?\t*:?\tZero\t-",
			nil, "w.wdl:2:15: Total and SiteInfo are both ?: give the total or the amount of every site"},
		{"missing external file", "5\tsmpi\tsingle\t1\t*:?\tZero\tStartAt=0s,ExternalFile=nope.xin",
			nil, "w.wdl:2:50: ExternalFile nope.xin: no such file"},
		{"include cycle", "5\tsmpi\tsingle\t1\t*:?\tZero\tExternalFile=a.xin",
			memFS{"a.xin": "ExternalFile=b.xin\n", "b.xin": "ExternalFile=a.xin\n"}, "b.xin:1:14: ExternalFile a.xin includes itself (through a.xin -> b.xin)"},
		{"wrong column count", "5\tsser\tsingle\t1\t*:?",
			nil, "w.wdl:2:20: this line has 5 columns; the v1.0 layout has 7 (#Jobs Type SiteType Total SiteInfo ArrivalTimeDistr OtherInfo) and the v1.1 layout has 9 (ID GeneratorType NTimes UnitType SiteType Total SiteInfo ArrivalTimeDistr OtherInfo); OtherInfo may be left out"},
		{"mixed layouts", "5\tsser\tsingle\t1\t*:?\tZero\t-\n1\tunitary\t5\tsser\tsingle\t1\t*:?\tZero\t-",
			nil, "w.wdl:3:31: this line has 9 columns; File-version 1.0 lines have 7 columns (#Jobs Type SiteType Total SiteInfo ArrivalTimeDistr OtherInfo); OtherInfo may be left out"},
		{"negative distribution parameter", "5\tsser\tsingle\t1\t*:?\tPoisson(-5s)\t-",
			nil, "w.wdl:2:21: Poisson: mean must be > 0, got -5"},
		{"RSD's lo", "5\tsser\tsingle\t1\t*:?\tRSD(0,32,0.9)\t-",
			nil, "w.wdl:2:21: RSD: lo must be a whole number from 1 to 2147483647, got 0"},
		{"RSD's q", "5\tsser\tsingle\t1\t*:?\tRSD(1,32,0)\t-",
			nil, "w.wdl:2:21: RSD: q must be in (0, 1], got 0"},
		{"RSD sizes reversed", "5\tsmpi\tunordered\t?\t-\tZero\tNComponentsWithWeights=2,ComponentSizeWithWeights=RSD(32,4,0.9)",
			nil, "w.wdl:2:77: ComponentSizeWithWeights: RSD: the sizes must satisfy 1 ≤ lo ≤ hi ≤ 1048576, got lo 32, hi 4"},
		{"RSD too many sizes", "5\tsmpi\tunordered\t?\t-\tZero\tNComponentsWithWeights=2,ComponentSizeWithWeights=RSD(1,200000,0.9)",
			nil, "w.wdl:2:77: ComponentSizeWithWeights: RSD(1,200000,0.9) has 200000 sizes; a list has at most 100000 items"},
		{"RSD beyond the components", "5\tsmpi\tunordered\t?\t-\tZero\tNComponentsWithWeights=RSD(1000,1030,1),ComponentSizeWithWeights=1",
			nil, `w.wdl:2:50: NComponentsWithWeights: "1025" must be a whole number from 1 to 1024`},
		{"not RSD", "5\tsmpi\tunordered\t?\t-\tZero\tComponentSizeWithWeights=RSDX(1,2)",
			nil, `w.wdl:2:52: ComponentSizeWithWeights: "RSDX(1,2)" must be a whole number from 1 to 16777216`},
		{"negative NTimes", "-5\tsser\tsingle\t1\t*:?\tZero\t-",
			nil, `w.wdl:2:1: the number of jobs "-5" must be a whole number from 0 to 1000000000`},
		{"negative Total", "5\tsser\tsingle\t-1\t*:?\tZero\t-",
			nil, `w.wdl:2:15: Total "-1" must be a whole number from 1 to 16777216, or ?`},
		{"negative amount", "5\tsser\tordered\t?\tfs1:-2\tZero\t-",
			nil, `w.wdl:2:22: SiteInfo amount "-2" must be a whole number from 1 to 16777216, or ?`},
		{"negative StartAt", "5\tsser\tsingle\t1\t*:?\tZero\tStartAt=-10s",
			nil, `w.wdl:2:34: StartAt: duration "-10s" must not be negative`},
		{"negative weight", "5\tsser\tsingle\t1\t*:?\tZero\tNComponentsWithWeights=1/5;2/-1",
			nil, `w.wdl:2:49: NComponentsWithWeights: weight of "2/-1" must not be negative`},
		{"decimal comma weight", "5\tsser\tsingle\t1\t*:?\tZero\tExternalFile=f.xin",
			memFS{"f.xin": "NComponentsWithWeights=1/50,0;2/10.0\n"}, `f.xin:1:24: NComponentsWithWeights: weight of "1/50,0": "50,0" is not a number (use a decimal point, not a comma)`},
		{"unknown site type", "5\tsser\tsomewhere\t1\t*:?\tZero\t-",
			nil, `w.wdl:2:8: unknown SiteType "somewhere" (single, unordered, ordered, semi-ordered, or flexible; KOALA's fixed, nonfixed and semifixed are accepted too)`},
		{"time unit on a shape", "5\tsser\tsingle\t1\t*:?\tW(2s,10s)\t-",
			nil, `w.wdl:2:23: W: shape takes no time unit ("2s"); only time parameters do`},
		{"arity", "5\tsser\tsingle\t1\t*:?\tW(2)\t-",
			nil, `w.wdl:2:21: W takes 2 parameter(s): W(shape,scale)`},
		{"bad pair", "5\tsser\tsingle\t1\t*:?\tZero\tStartAt",
			nil, `w.wdl:2:26: expected Key=Value, got "StartAt"`},
		{"empty value", "5\tsser\tsingle\t1\t*:?\tZero\tStartAt=",
			nil, `w.wdl:2:34: StartAt has no value`},
		{"file type", "# File-type: xml/wl-submit-desc\n5\tsser\tsingle\t1\t*:?\tZero\t-",
			nil, `w.wdl:1:14: File-type is "xml/wl-submit-desc"; gmark reads text/wl-spec workload descriptions`},
		{"file version", "# File-version: 3.0\n5\tsser\tsingle\t1\t*:?\tZero\t-",
			nil, `w.wdl:1:17: unsupported File-version 3.0: gmark reads 1.0 (7 columns) and 1.1 (9 columns)`},
		{"no units", "", nil, `w.wdl:1:1: the workload has no units`},
		{"unterminated quote", "5\tsser\tsingle\t1\t*:?\tZero\tX=\"abc",
			nil, `w.wdl:2:26: unterminated quoted value: a " without its closing "`},
		{"unordered without NSites", "5\tsmpi\tunordered\t8\t-\tZero\t-",
			nil, `w.wdl:2:20: an unordered (non-fixed) unit needs NSites in OtherInfo (how many components)`},
		{"binary", "\x00\x01\x02", nil, `w.wdl:1:1: this is a binary file, not a WDL text file`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := c.files
			if files == nil {
				files = memFS{}
			}
			src := c.src
			if !strings.HasPrefix(src, "# File") && c.name != "binary" {
				src = hdr + src
			}
			spec, err := Parse("w.wdl", []byte(src), files.open)
			if err == nil {
				t.Fatalf("accepted: %+v", spec)
			}
			first := strings.SplitN(err.Error(), "\n", 2)[0]
			if c.want == "" {
				if !strings.HasPrefix(first, "w.wdl:2:") {
					t.Errorf("error %q has no w.wdl:2:col position", first)
				}
				return
			}
			if !strings.HasPrefix(first, c.want) {
				t.Errorf("error\n  %s\nwant\n  %s", first, c.want)
			}
		})
	}
}

func TestAllErrorsReported(t *testing.T) {
	src := "5\tsser\tsingle\t1\t*:?\tFoo(1)\t-\n5\tsser\tsingle\t1\t*:?\tBar\t-\n"
	_, err := Parse("w.wdl", []byte(src), memFS{}.open)
	l, ok := err.(ErrorList)
	if !ok || len(l) != 2 || l[0].Pos.Line != 1 || l[1].Pos.Line != 2 {
		t.Fatalf("want two errors on lines 1 and 2, got %v", err)
	}
}

func TestRedefinitionWarns(t *testing.T) {
	spec, err := Parse("w.wdl", []byte("5\tsser\tsingle\t1\t*:?\tZero\tStartAt=1s,StartAt=2s\n"), memFS{}.open)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := spec.Units[0].Options.String("StartAt"); v != "2s" {
		t.Errorf("StartAt = %q, want the later value", v)
	}
	if len(spec.Warnings) != 1 || !strings.Contains(spec.Warnings[0].Error(), "w.wdl:1:37: StartAt is defined again") {
		t.Errorf("warnings %v", spec.Warnings)
	}
}

func TestValues(t *testing.T) {
	secs := []struct {
		in   string
		want float64
	}{{"120", 120}, {"120s", 120}, {"2m", 120}, {"1.5h", 5400}, {"250ms", 0.25}, {"1d", 86400}, {"1e3", 1000}}
	for _, c := range secs {
		got, _, err := ParseSeconds(c.in)
		if err != nil || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ParseSeconds(%q) = %g, %v; want %g", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "s", "1x", "0x10", "Inf", "NaN", "1_000"} {
		if _, _, err := ParseSeconds(bad); err == nil {
			t.Errorf("ParseSeconds(%q) accepted", bad)
		}
	}
	w, err := ParseWeighted("1/50.0;2/10.0;3/16.2;4/10.0;5/5.0;8;10;15")
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, it := range w {
		total += it.Weight
	}
	if len(w) != 8 || total != 94.2 || w[5].Weight != 1 {
		t.Errorf("weighted list %+v (total %g)", w, total)
	}
	// RSD(lo,hi,q) as a list: the sizes lo..hi with stats.RSDWeights.
	w, err = ParseWeighted(" RSD(4,32,0.9)")
	if err != nil || len(w) != 29 || w[0].Value != "4" || w[28].Value != "32" || w[0].Off != 1 ||
		math.Abs(w[0].Weight-3*math.Pow(0.9, 4)) > 1e-15 || math.Abs(w[1].Weight-math.Pow(0.9, 5)) > 1e-15 {
		t.Errorf("RSD list %v (%v)", w, err)
	}
	if w, err := ParseWeighted("rsd(7,7,1)"); err != nil || len(w) != 1 || w[0].Value != "7" || w[0].Weight != 1 {
		t.Errorf("one-size RSD list %v (%v)", w, err)
	}
	r, err := ParseRange("30-50")
	if err != nil || r != (Range{30, 50}) {
		t.Errorf("ParseRange = %v, %v", r, err)
	}
	if _, err := ParseRange("50-30"); err == nil {
		t.Error("empty range accepted")
	}
}

func TestDistributionValuesInOtherInfo(t *testing.T) {
	spec, err := Parse("d.wdl", []byte("5\tswf\tsingle\t1\t*:?\tZero\tRunTime=U(144s,240s),Scale=2,X=HPoisson2(0.5,1m,2h)\n"), memFS{}.open)
	if err != nil {
		t.Fatal(err)
	}
	o := spec.Units[0].Options
	for k, want := range map[string]string{"RunTime": "U(144s,240s)", "Scale": "2", "X": "HPoisson2(0.5,1m,2h)"} {
		if got, _ := o.String(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}
