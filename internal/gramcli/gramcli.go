// Package gramcli runs Globus GRAM5's client, globusrun, and reads what it
// and gmark's GRAM jobs print: the job contact of a submission, a job's
// state, and the report a job's script writes on its standard error (the
// rsl printer's PrintComponent), since a GRAM5 job manager reports neither
// exit codes nor times. The GRAM target and the bundled core's GRAM
// clusters both use it.
package gramcli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// TransientMessages are globusrun's ways of saying the gatekeeper or job
// manager did not answer (error 12: the connection failed; 7 and 31:
// authentication or the job manager's reply broke off).
var TransientMessages = []string{"connection to the server failed", "error code 12", "timed out", "Connection refused",
	"error code 7", "error code 31", "authentication with the remote server failed"}

// Client runs globusrun with the user's credentials.
type Client struct {
	Env     []string      // globusrun's environment: X509_USER_PROXY, X509_CERT_DIR set
	Timeout time.Duration // bounds every globusrun
}

// New is a client with the proxy and CA directory given.
func New(proxy, caDir string, timeout time.Duration) Client {
	return Client{Env: append(os.Environ(), "X509_USER_PROXY="+proxy, "X509_CERT_DIR="+caDir), Timeout: timeout}
}

// Error is a globusrun that failed, with what it printed.
type Error struct {
	Status int // -1: it did not exit on its own
	Output string
	// Transient: the gatekeeper or job manager did not answer (the call
	// may succeed later; a submission may have got through).
	Transient bool
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Output)
	if len(msg) > 500 {
		msg = msg[:500] + "..."
	}
	return fmt.Sprintf("globusrun (exit status %d): %s", e.Status, msg)
}

// run runs globusrun with its output written to out as it comes, when out
// is not nil (so a killed caller leaves it there), and returns the output.
func (c Client) run(ctx context.Context, out *os.File, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "globusrun", args...)
	cmd.Env = c.Env
	var b []byte
	var err error
	if out != nil {
		cmd.Stdout, cmd.Stderr = out, out
		err = cmd.Run()
		b, _ = os.ReadFile(out.Name())
	} else {
		b, err = cmd.CombinedOutput()
	}
	if err == nil {
		return b, nil
	}
	e := &Error{Status: -1, Output: string(b)}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		e.Status = ee.ExitCode()
	}
	e.Transient = ctx.Err() != nil
	for _, m := range TransientMessages {
		e.Transient = e.Transient || strings.Contains(e.Output, m)
	}
	return b, e
}

// Submit submits the request in file rsl to the job manager contact
// (globusrun -b), writing what globusrun prints to outFile, and returns
// the job contact. A request with a two-phase commit makes globusrun -b
// commit the submission and exit 110, waiting for a commit signal: that is
// a success.
func (c Client) Submit(ctx context.Context, contact, rsl, outFile string) (string, string, error) {
	f, err := os.Create(outFile)
	if err != nil {
		return "", "", err
	}
	out, err := c.run(ctx, f, "-b", "-r", contact, "-f", rsl)
	f.Close()
	job := ParseContact(out)
	text := strings.TrimSpace(string(out))
	var ge *Error
	if err != nil && !(errors.As(err, &ge) && ge.Status == 110 && job != "") {
		return "", text, err
	}
	if job == "" {
		return "", text, fmt.Errorf("globusrun -b printed no job contact: %s", text)
	}
	return job, text, nil
}

// Status is the job's state as globusrun -status prints it (PENDING,
// ACTIVE, DONE, FAILED, …).
func (c Client) Status(ctx context.Context, job string) (string, error) {
	out, err := c.run(ctx, nil, "-status", job)
	if err != nil {
		return "", err
	}
	word := strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	if word == "" {
		return "", errors.New("globusrun -status printed nothing")
	}
	return word, nil
}

// Cancel cancels a job (globusrun -k).
func (c Client) Cancel(ctx context.Context, job string) error {
	_, err := c.run(ctx, nil, "-k", job)
	return err
}

// ParseContact finds the job contact in what globusrun -b printed.
func ParseContact(out []byte) string {
	for _, f := range strings.Fields(string(out)) {
		if strings.HasPrefix(f, "https://") {
			return f
		}
	}
	return ""
}

// Report is what a gmark job's script says of itself on its standard
// error: "gmark-job v1 started=T" when it starts and "gmark-job v1
// status=S ended=T" as it ends (T in Unix seconds).
type Report struct {
	Started, Ended time.Time
	Status         *int
}

// ReadReport reads the gmark-job lines of a job's standard error; a file
// that is not there is an empty report.
func ReadReport(path string) Report {
	var r Report
	f, err := os.Open(path)
	if err != nil {
		return r
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "gmark-job v1 ")
		if !ok {
			continue
		}
		for _, kv := range strings.Fields(rest) {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				continue
			}
			switch k {
			case "started":
				r.Started = time.Unix(n, 0)
			case "ended":
				r.Ended = time.Unix(n, 0)
			case "status":
				if n <= 255 {
					s := int(n)
					r.Status = &s
				}
			}
		}
	}
	return r
}
