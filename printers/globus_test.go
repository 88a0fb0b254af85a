package printers

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
)

// Globus's own RSL parser checks what the rsl and koala printers write:
// "globusrun -p" (Debian's globus-gram-client-tools) runs globus_rsl_parse
// on a request and wants a boolean request ("&", "|" or a "+"
// multi-request), then stops without contacting any resource manager. It
// only says yes or no; what a request means is checked by gmark's own
// reader (rslparse_test.go, structure_test.go).

// globusParser runs globusrun -p with a throwaway GSI credential: globusrun
// activates the GRAM client, which wants a certificate and key and a
// trusted-CA directory before it reads any option, even for -p. A
// self-signed certificate and an empty directory are enough, since -p
// authenticates to nobody.
type globusParser struct {
	bin string
	dir string
	env []string
}

func newGlobusParser(t *testing.T) *globusParser {
	t.Helper()
	bin, err := exec.LookPath("globusrun")
	if err != nil {
		t.Skip("globusrun is not installed (Debian: globus-gram-client-tools); the RSL is not checked by Globus's own parser")
	}
	dir := t.TempDir()
	cert, key := throwawayCredential(t)
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	caDir := filepath.Join(dir, "certificates")
	if err := os.WriteFile(certPath, cert, 0o644); err != nil {
		t.Fatal(err)
	}
	// GSI refuses a key that others can read.
	if err := os.WriteFile(keyPath, key, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(caDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "X509_") && !strings.HasPrefix(kv, "GLOBUS_") {
			env = append(env, kv)
		}
	}
	env = append(env, "X509_USER_CERT="+certPath, "X509_USER_KEY="+keyPath, "X509_CERT_DIR="+caDir,
		"X509_USER_PROXY="+filepath.Join(dir, "noproxy"))
	return &globusParser{bin: bin, dir: dir, env: env}
}

// throwawayCredential returns a self-signed certificate, valid for a day,
// and its RSA key, both PEM.
func throwawayCredential(t *testing.T) (cert, key []byte) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{Organization: []string{"gmark"}, CommonName: "gmark rsl check"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	cert = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	key = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	return cert, key
}

// parse runs globusrun -p -f on text and reports whether Globus accepted
// it, with what globusrun said. A refusal must be the parser's ("cannot
// parse RSL", or "Bad RSL" for a text that is not a request): anything
// else, such as a credential globusrun did not take, fails the test, so
// that a broken setup never passes for a refused request.
func (g *globusParser) parse(t *testing.T, text string) (bool, string) {
	t.Helper()
	f, err := os.CreateTemp(g.dir, "*.rsl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(g.bin, "-p", "-f", f.Name())
	cmd.Env = g.env
	cmd.Dir = g.dir
	b, err := cmd.CombinedOutput()
	out := string(b)
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatalf("globusrun: %v", err)
	}
	switch {
	case err == nil && strings.Contains(out, "RSL Parsed Successfully"):
		return true, out
	case err != nil && (strings.Contains(out, "cannot parse RSL") || strings.Contains(out, "Bad RSL")):
		return false, out
	}
	t.Fatalf("globusrun -p neither accepted nor refused the request (%v):\n%s", err, out)
	return false, out
}

// goldenRequests returns the requests of the golden files of an RSL
// format, by file (and job id for a file of several jobs, which is cut at
// its "(* job <id> *)" lines, each request keeping its comment).
func goldenRequests(t *testing.T, format, ext string) map[string]string {
	t.Helper()
	dir := filepath.Join(testkit.RepoRoot(t), "printers", "testdata", "golden", format)
	files, err := filepath.Glob(filepath.Join(dir, "*."+ext))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden %s files in %s: %v", format, dir, err)
	}
	reqs := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := format + "/" + strings.TrimSuffix(filepath.Base(f), "."+ext)
		name, text := base, ""
		for _, line := range strings.SplitAfter(string(b), "\n") {
			if id, ok := strings.CutPrefix(line, "(* job "); ok {
				if strings.TrimSpace(text) != "" {
					reqs[name] = text
				}
				name, text = base+"/"+strings.TrimSuffix(id, " *)\n"), ""
			}
			text += line
		}
		if strings.TrimSpace(text) != "" {
			reqs[name] = text
		}
	}
	return reqs
}

// Globus's parser accepts every request of the rsl and koala printers'
// golden files: 5 files each, the diamond's 4 jobs one by one.
func TestGlobusParsesGoldenRSL(t *testing.T) {
	g := newGlobusParser(t)
	for _, f := range []struct{ format, ext string }{{"rsl", "rsl"}, {"koala", "jdf"}} {
		reqs := goldenRequests(t, f.format, f.ext)
		if want := len(unitaryCases) + len(diamondJob().Tasks); len(reqs) != want {
			t.Errorf("%s: %d golden requests, want %d", f.format, len(reqs), want)
		}
		for name, text := range reqs {
			if ok, out := g.parse(t, text); !ok {
				t.Errorf("%s: globusrun -p refused it:\n%s\n%s", name, out, text)
			}
		}
	}
}

// quotingParams are parameter values that RSL's quoting must carry: blanks,
// both quotes, '$' alone and as RSL's own substitution "$(…)", parentheses
// and comment delimiters, RSL's operators and an empty value (control
// characters are refused by every printer).
var quotingParams = []workload.Param{
	{Key: "blank", Value: "a b  c"},
	{Key: "quotes", Value: `say "hi" it's`},
	{Key: "dollar", Value: "$HOME $ $$"},
	{Key: "subst", Value: "$(GLOBUSRUN_GASS_URL)"},
	{Key: "parens", Value: "(x) ((y) (* not a comment *) *)"},
	{Key: "ops", Value: `+ & | = != < <= > >= # ^ \ ;`},
	{Key: "empty", Value: ""},
	{Key: "quoteonly", Value: `"`},
	{Key: "flag"},
}

// freshCoallocJobs are co-allocated jobs printed fresh for Globus's parser:
// 2 + 2 processes of an MPI application with quoting-heavy parameters, the
// same of a sequential application (jobType=multiple), five components on
// named and unnamed sites, and one of single-processor components whose
// site names, input files and job id need quoting too.
func freshCoallocJobs() []*workload.Job {
	job := func(id, app string, comps []workload.Component, files []workload.File) *workload.Job {
		return &workload.Job{
			ID: id, Unit: 9, Kind: workload.Unitary, Type: app,
			SiteType: workload.SemiOrdered, WallTime: 61 * time.Second,
			App:        workload.App{Name: app, Params: quotingParams},
			Components: comps, Files: files,
		}
	}
	any := workload.AnySite
	return []*workload.Job{
		job("9-0", "smpi", []workload.Component{{Site: any, Count: 2}, {Site: "fs1", Count: 2}}, nil),
		job("9-1", "sser", []workload.Component{{Site: any, Count: 2}, {Site: any, Count: 2}}, nil),
		job("9-2", "smpi", []workload.Component{
			{Site: "fs0", Count: 8}, {Site: any, Count: 4}, {Site: "fs2", Count: 2},
			{Site: any, Count: 1}, {Site: "fs3", Count: 16},
		}, []workload.File{{Name: "in put.dat", Size: 1}, {Name: `"q" (x).dat`, Size: 0}}),
		job(`9-3 (* "x" *)`, "sser", []workload.Component{
			{Site: `site "a" (1)`, Count: 1}, {Site: "b$c", Count: 1}, {Site: any, Count: 1},
		}, []workload.File{{Name: "$in", Size: 7}}),
	}
}

// Globus's parser accepts the rsl and koala descriptions of every test job
// and of fresh co-allocated jobs, printed alone and through the single-file
// stream (a "(* job <id> *)" comment first), in a work directory that needs
// quoting; and gmark's own reader finds in each the job's own values.
func TestGlobusParsesPrintedJobs(t *testing.T) {
	g := newGlobusParser(t)
	cfg := Config{WorkDir: `/tmp/work dir "x" $y (z)`}
	jobs := append(allTestJobs(), freshCoallocJobs()...)
	for _, format := range []string{"rsl", "koala"} {
		p := mustLookup(t, format)
		for _, j := range jobs {
			for _, withComment := range []bool{false, true} {
				text := printToString(t, p, j, cfg)
				if withComment {
					text = p.Comment("job "+j.ID) + text
				}
				if ok, out := g.parse(t, text); !ok {
					t.Errorf("%s job %s: globusrun -p refused it:\n%s\n%s", format, j.ID, out, text)
				}
				structureChecks[format](t, j, cfg, text)
			}
		}
	}
}

// Globus's parser refuses broken variants of printed requests, so the
// checks above can fail: each variant is one edit of the rsl printer's
// coalloc or smpi golden request or of the koala printer's coalloc, which
// it accepts as printed.
func TestGlobusRefusesBrokenRSL(t *testing.T) {
	g := newGlobusParser(t)
	reqs := goldenRequests(t, "rsl", "rsl")
	coalloc, smpi := reqs["rsl/coalloc"], reqs["rsl/smpi"]
	koala := goldenRequests(t, "koala", "jdf")["koala/coalloc"]
	for name, text := range map[string]string{"coalloc": coalloc, "smpi": smpi, "koala coalloc": koala} {
		if ok, out := g.parse(t, text); !ok {
			t.Fatalf("%s as printed: refused:\n%s", name, out)
		}
	}
	broken := []struct{ name, base, old, new string }{
		{"unbalanced: last parenthesis dropped", coalloc, "GMARK_RANK_BASE 6))\n)\n", "GMARK_RANK_BASE 6))\n"},
		{"unbalanced: relation not closed", smpi, `(directory=".")`, `(directory="."`},
		{"unbalanced: one parenthesis too many", coalloc, "(count=2)", "(count=2))"},
		{"unterminated quote", smpi, `"--noinput")`, `"--noinput)`},
		{"quote doubled at the end", smpi, `"--noinput")`, `"--noinput"")`},
		{"single quote not closed", smpi, `"--noinput"`, `'--noinput`},
		{"unquoted blank in the attribute", smpi, "(maxWallTime=15)", "(max WallTime=15)"},
		{"missing '&' of a single request", smpi, "& (count=8)", "(count=8)"},
		{"missing '&' of a subrequest", coalloc, `( &(label="subjob 1")`, `( (label="subjob 1")`},
		{"missing '+' of a multi-request", coalloc, "+\n( &", "( &"},
		{"missing '='", smpi, "(count=8)", "(count 8)"},
		{"missing value", smpi, "(count=8)", "(count=)"},
		{"bare '$'", smpi, `(count=8)`, `(count=$)`},
		{"comment not closed", "(* job 2-3 *)\n" + smpi, "2-3 *)", "2-3"},
		{"two requests in one text", smpi, "& (count=8)", smpi + "& (count=8)"},
		{"koala: input files not closed", koala, `("input-b.dat" 4096))`, `("input-b.dat" 4096)`},
		{"koala: file pair without parentheses", koala, `("input-a.dat" 1048576)`, `"input-a.dat" 1048576)`},
		{"a relation alone", "(count=8)\n", "", ""},
		{"empty", "\n", "", ""},
	}
	for _, b := range broken {
		if !strings.Contains(b.base, b.old) {
			t.Fatalf("%s: the request has no %q:\n%s", b.name, b.old, b.base)
		}
		text := strings.Replace(b.base, b.old, b.new, 1)
		if ok, out := g.parse(t, text); ok {
			t.Errorf("%s: globusrun -p accepted it:\n%s\n%s", b.name, out, text)
		}
	}
}

// What -p cannot see: a quote left undoubled inside a value still makes
// valid RSL, three literals for one, and Globus accepts it. gmark's reader,
// which compares the values with the job's (structure_test.go), is what
// catches it.
func TestGlobusAcceptsUndoubledQuote(t *testing.T) {
	g := newGlobusParser(t)
	smpi := goldenRequests(t, "rsl", "rsl")["rsl/smpi"]
	const printed, tag = `"it's a ""big"" $run"`, `it's a "big" $run`
	if !strings.Contains(smpi, printed) {
		t.Fatalf("the smpi request has no %s:\n%s", printed, smpi)
	}
	text := strings.Replace(smpi, printed, `"it's a "big" $run"`, 1)
	if ok, out := g.parse(t, text); !ok {
		t.Errorf("globusrun -p refused it:\n%s\n%s", out, text)
	}
	for _, c := range []struct {
		text string
		want bool
	}{{smpi, true}, {text, false}} {
		req, err := parseRSL(c.text)
		if err != nil {
			t.Fatalf("gmark's reader: %v\n%s", err, c.text)
		}
		args, _ := req.relation("arguments")
		if got := slices.Contains(values(args), tag); got != c.want {
			t.Errorf("arguments %q: holds %q %v, want %v", values(args), tag, got, c.want)
		}
	}
}
