package wdl

import (
	"errors"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gmark/gmark/stats"
)

var positioned = regexp.MustCompile(`^[^:\n]+:\d+:\d+: `)

// pathValue finds the paths a spec or an extension file names.
var pathValue = regexp.MustCompile(`(?:ExternalFile|File|Model)=([^,\n]*)|Fit\(([^,)\n]*)`)

// checkParse is what must hold for any input: no panic, and either a spec
// whose units are complete and within the limits, or an error list where
// every entry has a position and quotes no more than a short excerpt of the
// input (no whole long line, no control character).
func checkParse(t *testing.T, name string, src []byte, files memFS) {
	spec, err := Parse(name, src, files.open)
	if err != nil {
		var l ErrorList
		if !errors.As(err, &l) || len(l) == 0 || len(l) > maxErrors {
			t.Fatalf("error is not a list of 1 to %d errors: %T %v", maxErrors, err, err)
		}
		for _, e := range l {
			if !positioned.MatchString(e.Error()) || e.Pos.Line < 1 || e.Pos.Col < 1 {
				t.Fatalf("error without file:line:col: %q", e.Error())
			}
			checkQuotes(t, e.Msg, src, files)
		}
		return
	}
	if len(spec.Units) == 0 || len(spec.Units) > MaxUnits {
		t.Fatalf("no error and %d units", len(spec.Units))
	}
	for _, u := range spec.Units {
		if u.Arrival.Dist == nil || u.Options == nil || u.SiteType == "" || u.Type == "" {
			t.Fatalf("incomplete unit %+v", u)
		}
		if u.NTimes < 0 || u.NTimes > MaxJobs || u.ID < 0 || u.ID > MaxUnitID || u.Total != Unknown && (u.Total < 1 || u.Total > MaxProcessors) || len(u.Sites) > MaxComponents {
			t.Fatalf("unit out of its limits: %+v", u)
		}
		for _, sa := range u.Sites {
			if sa.Amount != Unknown && (sa.Amount < 1 || sa.Amount > MaxProcessors) {
				t.Fatalf("SiteInfo amount out of its limits: %+v", sa)
			}
		}
		if err := InterArrivals.CheckDist(u.Arrival.Dist); err != nil {
			t.Fatalf("arrival %s accepted: %v", u.Arrival.Dist, err)
		}
	}
}

// checkQuotes fails when an error message holds a control character other
// than the layout of gmark's own messages, or a whole input line longer than
// an excerpt.
func checkQuotes(t *testing.T, msg string, src []byte, files memFS) {
	t.Helper()
	for _, r := range msg {
		if r < ' ' && r != '\n' && r != '\t' || r == 0x7f {
			t.Fatalf("control character %U in error %q", r, msg)
		}
	}
	inputs := []string{string(src)}
	for _, f := range files {
		inputs = append(inputs, f)
	}
	// A path the inputs name (ExternalFile=, File=, Model=, Fit(path,…)) is
	// quoted as far as ExcerptPath goes; a line that is nothing but such a
	// path (or a part of one) is not an echo of the file.
	var paths []string
	for _, in := range inputs {
		for _, m := range pathValue.FindAllStringSubmatch(in, -1) {
			paths = append(paths, strings.TrimSpace(m[1]+m[2]))
		}
	}
	inPath := func(line string) bool {
		return slices.ContainsFunc(paths, func(p string) bool { return strings.Contains(p, line) })
	}
	// The quoted paths themselves are not echoes: take them out of the
	// message, so that a line matching a path and the message's own words
	// around it ("PATH: no such file") is not taken for one.
	for _, p := range paths {
		if p != "" {
			msg = strings.ReplaceAll(msg, ExcerptPath(p), "\x00")
		}
	}
	for _, in := range inputs {
		for _, line := range strings.Split(in, "\n") {
			line = strings.TrimSpace(line)
			if utf8.RuneCountInString(line) > 2*maxExcerpt && !inPath(line) && strings.Contains(msg, line) {
				t.Fatalf("error %q quotes a whole input line", msg)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, path := range []string{"../examples/thesis/fig5_4.wdl"} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("# File-version: 1.1\n?\tcomposite\t3\tchain\tsingle\t1\t-\tZero\tN=3-5,L=3-5\n"))
	f.Add([]byte("4\tsmpi\tsemi-ordered\t12\tfs1:4\tHPoisson2(0.5,1m,2h)\tNSites=3,X=\"a,b\"\n"))
	f.Add([]byte("2\tsser\tordered\t?\tfs1:3,*:2\tEmp(1s/2;5m)\tExternalFile=x.xin\n"))
	// The limits, on both sides.
	f.Add([]byte("1000000000\tsser\tsingle\t16777216\t*:?\tC(36500d)\tStartAt=36500d\n1000000001\tsser\tsingle\t16777217\t*:?\tC(36501d)\tStartAt=36501d\n"))
	f.Add([]byte("5\tsmpi\tunordered\t?\t*:1\tPoisson(60s)\tNSites=10000000\n5\tsmpi\tunordered\t1024\t-\tZero\tNSites=1024\n"))
	f.Add([]byte("# File-version: 1.1\n999999999\tcomposite\t1\tchain\tsingle\t1\t-\tZero\tN=100000000\n?\tunitary\t1\tsser\tsingle\t1\t-\tZero\t-\n"))
	f.Add([]byte("5\tsser\tsingle\t1\t*:?\tPareto(0.5,10s)\tRunTime=LogNorm(1000,1000)\n5\tsser\tsingle\t1\t*:?\tPow2(N(40,1))\tRunTime=Pow2(N(40,1))\n"))
	f.Add([]byte("5\tsser\tsingle\t1\t*:?\tU(5s,5s)\tNComponentsWithWeights=1/1e12;1024/0,TotalCPUsWithWeights=99999999999\n"))
	f.Add([]byte("5\tsser\tsingle\t1\t*:?\tFit(fit.toml,r)\tModel=fit.toml\n5\tsser\tsingle\t1\t*:?\t-\tModel=fit.toml\n"))
	f.Add([]byte("5\tsser\tsingle\t1\t*:?\tZero\tExternalFile=passwd\n"))
	// RSD, as a distribution and as a weighted list, at its limits.
	f.Add([]byte("5\tsmpi\tunordered\t?\t-\tRSD(1,32,0.9)\tNComponentsWithWeights=RSD(2,4,1),ComponentSizeWithWeights=RSD(4,32,0.9)\n"))
	f.Add([]byte("5\tsser\tsingle\t1\t*:?\tPow2(RSD(1,1048576,1e-300))\tTotalCPUsWithWeights=rsd(1,100001,0.5),RunTime=RSD(0,1,2)\n"))
	// Trace replays with input files: a weighted list of name:size items,
	// a name given twice, sizes at and past their limit, a weight of 0.
	f.Add([]byte("1\twl:trace\tsingle\t1\t*:?\t-\tFile=LCG.swf.gz,MaxRunTime=15m,InputFilesWithWeights=file-2g:2GB;file-4g:4GB/2;file-6g:6GB/0\n"))
	f.Add([]byte("1\twl:trace\tsingle\t1\t*:?\t-\tFile=t.swf,InputFilesWithWeights=a:1PB;a:1025TB;:1;b;c:1GB/x\n1\twl:trace\tsingle\t1\t*:?\t-\tFile=t.swf,InputFile=d:-1\n"))
	files := memFS{"x.xin": "A=1\n*B=2,C=3\nExternalFile=x.xin\n", "fit.toml": testFitFile + "[r]\nfamily = \"N\"\nlog2 = true\nparams = { mu = 31.0, sigma = 0.5 }\n",
		"passwd": "root:x:0:0:root:/root:/bin/bash\n\x1b[2Jdaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkParse(t, "f.wdl", src, files)
	})
}

func FuzzExtFile(f *testing.F) {
	if b, err := os.ReadFile("../examples/thesis/smpi1.xin"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("*NSites=2, TotalCPUsWithWeights=2;4/3\n# c\nExternalFile=e.xin\nZ=\"q\"\n"))
	f.Add([]byte("NSites=1025\nNComponentsWithWeights=1;2000/1e13\nStartAt=40000d\nRunTimeInMinutes=1e12\nNJobs=1-200000\n"))
	f.Add([]byte("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"))
	f.Add([]byte("A=1\n\x1b]0;title\x07 a long line of terminal escapes and text\r\n\xff\xfe=2\n"))
	f.Fuzz(func(t *testing.T, ext []byte) {
		files := memFS{"e.xin": string(ext)}
		checkParse(t, "f.wdl", []byte("5\tsmpi\tsingle\t1\t*:?\tZero\tExternalFile=e.xin\n"), files)
	})
}

// FuzzFitFile reads any bytes as a fit file: no panic; errors quote short
// excerpts; and every record it accepts gives a distribution whose methods
// answer, and which, when it passes the run-time check, draws numbers.
func FuzzFitFile(f *testing.F) {
	f.Add([]byte(testFitFile))
	f.Add([]byte("[r]\nfamily = \"HExp3\"\nparams = { p1 = 0.2, p2 = 0.3, p3 = 0.5, rate1 = 1.0, rate2 = 0.1, rate3 = 0.01 }\nn = 10\n"))
	f.Add([]byte("[r]\nfamily = \"W\"\nparams = { shape = nan, scale = inf }\nbelow = -1.0\n"))
	f.Add([]byte("[r]\nfamily = \"Pareto\"\nparams = { alpha = 1.5, xm = 2.0 }\nbelow = 0.2\nbelow_values = [0.0, 1.0]\nbelow_weights = [1.0, 1e300]\n"))
	f.Add([]byte("[r]\nfamily = \"Gamma\"\nlog2 = true\nparams = { shape = 1e-300, scale = 1e300 }\n"))
	f.Add([]byte("[r]\nfamily = \"LogNorm\"\nparams = { mu = 700.0, sigma = 1e-300 }\n[q]\nfamily = \"N\"\nparams = { mu = 1e308, sigma = 1e308 }\n"))
	f.Add([]byte("root:x:0:0:root:/root:/bin/bash\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		files := memFS{"fit.toml": string(src)}
		recs, _, err := LoadFitFile("fit.toml", DistContext{Open: files.open})
		if err != nil {
			checkQuotes(t, err.Error(), src, files)
			return
		}
		r := stats.NewStream(1, 1, "fuzz")
		for _, key := range FitKeys(recs) {
			rec := recs[key]
			d, err := rec.Distribution()
			if err != nil {
				checkQuotes(t, err.Error(), src, files)
				continue
			}
			d.CDF(1)
			d.Prob(1)
			d.Quantile(0.5)
			if RunTimes.CheckDist(d) != nil {
				continue
			}
			for i := 0; i < 20; i++ {
				if v := d.Rand(r); math.IsNaN(v) {
					t.Fatalf("%s passed the run-time check and drew NaN", d)
				}
			}
		}
	})
}
