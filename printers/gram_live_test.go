package printers

import (
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/submitter/gram/gramtest"
)

// A real GRAM5 job manager takes what the rsl printer writes: every
// request of every test job goes to jobmanager-fork of a loopback
// gatekeeper as a dry run (globusrun -d), which parses the request and
// checks each relation against the job manager's validation file (the
// attributes it knows, their values, jobType among single, multiple, mpi)
// without running anything. A co-allocated job's multi-request goes as
// DUROC sent it: each subrequest to its own job manager, without the two
// relations DUROC itself consumed (label and resourceManagerContact,
// which GRAM5 refuses as attributes "not supported by the LRM adapter"),
// and each component as PrintComponent writes it for the gram target (a
// request of its own, held, named, with the two-phase commit). A request
// with a relation the job manager does not know is refused, so
// the check cannot pass on a job manager that takes anything.
func TestRSLAcceptedByGRAM(t *testing.T) {
	g := gramtest.Start(t, gramtest.Options{Name: "rsl"})
	work := filepath.Join(g.Dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	if err := os.Chown(work, uid, -1); err != nil {
		t.Fatal(err)
	}
	// The job runs where the mapped user can write; executable stays the
	// printer's default, which a dry run does not look for.
	cfg := Config{WorkDir: work}
	p := mustLookup(t, "rsl")
	for _, c := range unitaryCases {
		t.Run(c.name, func(t *testing.T) {
			reqs := gramRequests(t, printToString(t, p, c.job(), cfg))
			if len(reqs) != len(c.job().Components) {
				t.Fatalf("%d requests for %d components", len(reqs), len(c.job().Components))
			}
			for i, req := range reqs {
				if ok, out := gramDryRun(t, g, req); !ok {
					t.Errorf("request %d refused by jobmanager-fork:\n%s\n%s", i, req, out)
				}
			}
			// Each component as the gram target submits it: a request of
			// its own, named, held, with a rendezvous file, a queue and
			// the two-phase commit the target adds.
			for i := range c.job().Components {
				one := Config{WorkDir: work, Name: "gmark-" + c.job().ID + ".c" + strconv.Itoa(i) + ".a1-run", HoldUntil: work + "/release",
					Queue: "fork", Env: []string{"GMARK_RENDEZVOUS_FILE=" + work + "/rdv"}}
				var b strings.Builder
				if err := p.(ComponentPrinter).PrintComponent(&b, c.job(), i, one); err != nil {
					t.Fatal(err)
				}
				req := strings.TrimSuffix(b.String(), "\n") + "\n  (two_phase=600)\n  (save_state=yes)\n"
				if ok, out := gramDryRun(t, g, req); !ok {
					t.Errorf("component %d's own request refused by jobmanager-fork:\n%s\n%s", i, req, out)
				}
			}
		})
	}
	bad := `&(executable="/bin/true")(directory="` + work + `")(nosuchrelation="x")`
	if ok, out := gramDryRun(t, g, bad); ok || !strings.Contains(out, `"nosuchrelation" is not supported`) {
		t.Errorf("a request with an unknown relation was not refused for it:\n%s", out)
	}
}

// duroc matches the relations of a subrequest that DUROC consumed.
var duroc = regexp.MustCompile(`\((label|resourceManagerContact)="[^"]*"\)\s*`)

// gramRequests cuts the rsl printer's output into the requests a GRAM5
// job manager is sent: the one request, or each "( &… )" subrequest of a
// "+" multi-request without DUROC's own relations. It relies on the
// printer's layout (a subrequest ends with ")" alone on a line), and fails
// the test where that does not hold.
func gramRequests(t *testing.T, out string) []string {
	t.Helper()
	if !strings.HasPrefix(out, "+\n") {
		return []string{out}
	}
	var reqs []string
	for _, part := range strings.SplitAfter(strings.TrimPrefix(out, "+\n"), "\n)\n") {
		if part == "" {
			continue
		}
		body, ok := strings.CutPrefix(part, "( &")
		body, ok2 := strings.CutSuffix(body, "\n)\n")
		if !ok || !ok2 {
			t.Fatalf("subrequest not in the printer's layout:\n%s", part)
		}
		reqs = append(reqs, "&"+duroc.ReplaceAllString(body, "")+"\n")
	}
	return reqs
}

// gramDryRun submits req to jobmanager-fork as a dry run and reports
// whether the job manager accepted it, with what globusrun said. An answer
// that is neither an acceptance nor the job manager's refusal fails the
// test, so that a broken setup never passes for a refused request.
func gramDryRun(t *testing.T, g *gramtest.Gatekeeper, req string) (bool, string) {
	t.Helper()
	f, err := os.CreateTemp(filepath.Join(g.Dir, "client"), "*.rsl")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(req)
	f.Close()
	b, err := g.Cmd("globusrun", "-d", "-r", g.Resource("fork"), "-f", f.Name()).CombinedOutput()
	out := string(b)
	switch {
	case err == nil && strings.Contains(out, "Dryrun successful"):
		return true, out
	case err != nil && strings.Contains(out, "GRAM Job submission failed because"):
		return false, out
	}
	t.Fatalf("globusrun -d neither accepted nor refused the request (%v):\n%s\n%s", err, out, g.LogTail())
	return false, out
}
