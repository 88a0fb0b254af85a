// Package arcrest is a client of the REST interface of ARC compute
// elements (A-REX, version 1.0 of the interface, ARC 6): submitting xRSL,
// asking many jobs' states or records in one call, killing and cleaning
// jobs, and moving files in and out of their session directories. It
// authenticates with an X.509 proxy certificate, the file being both the
// certificate chain and the key, and trusts the CAs of an X509_CERT_DIR.
// The ARC target and the bundled core's ARC clusters both use it.
//
// What A-REX answers, as measured on ARC 6.17 (docs/grid.md): one job of
// a request as an object, several as an array; a per-job "status-code"
// (201 created, 200 found, 202 accepted, 404 no such job, 500 refused, as
// for a queue the user may not use); states from the per-job record its
// information provider writes, so a polled state is as old as the
// provider's last run.
package arcrest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Client talks to one CE.
type Client struct {
	base string // https://host:port/arex/rest/1.0
	http *http.Client
}

// Options make a Client.
type Options struct {
	// Endpoint is the CE's A-REX URL, https://host:port/arex.
	Endpoint string
	// Proxy is the proxy certificate file (X509_USER_PROXY): certificate,
	// key and the chain up to the user's certificate.
	Proxy string
	// CADir is the trusted-CA directory (X509_CERT_DIR): every *.0 and
	// *.pem file in it is read.
	CADir string
	// Timeout bounds every call. Default 60s.
	Timeout time.Duration
}

// New checks the options and reads the credentials.
func New(o Options) (*Client, error) {
	u, err := url.Parse(o.Endpoint)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("ARC endpoint %q: not an https://host:port/arex URL", o.Endpoint)
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Minute
	}
	tlsConf, err := TLSConfig(o.Proxy, o.CADir)
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{TLSClientConfig: tlsConf, MaxIdleConnsPerHost: 8, IdleConnTimeout: time.Minute}
	return &Client{base: strings.TrimSuffix(o.Endpoint, "/") + "/rest/1.0", http: &http.Client{Timeout: o.Timeout, Transport: tr}}, nil
}

// TLSConfig is the client side of GSI over TLS: the proxy as the client
// certificate, sent whatever CA names the server asks for (its issuer is
// the user, not a CA), and the CAs of caDir as the roots.
func TLSConfig(proxy, caDir string) (*tls.Config, error) {
	pair, err := tls.LoadX509KeyPair(proxy, proxy)
	if err != nil {
		return nil, fmt.Errorf("proxy %s: %v (make one with arcproxy or grid-proxy-init)", proxy, err)
	}
	if len(pair.Certificate) > 0 {
		if leaf, err := x509.ParseCertificate(pair.Certificate[0]); err == nil && time.Now().After(leaf.NotAfter) {
			return nil, fmt.Errorf("proxy %s expired at %s: make a new one", proxy, leaf.NotAfter.UTC().Format(time.RFC3339))
		}
	}
	pool := x509.NewCertPool()
	files, _ := filepath.Glob(filepath.Join(caDir, "*.0"))
	pems, _ := filepath.Glob(filepath.Join(caDir, "*.pem"))
	n := 0
	for _, f := range append(files, pems...) {
		if b, err := os.ReadFile(f); err == nil && pool.AppendCertsFromPEM(b) {
			n++
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("CA directory %q: no CA certificate (*.0, *.pem) in it", caDir)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }}, nil
}

// HTTPError is an answer other than the one a call expects.
type HTTPError struct {
	Status int
	Body   string
}

func (e *HTTPError) Error() string {
	body := strings.TrimSpace(e.Body)
	if len(body) > 300 {
		body = body[:300] + "..."
	}
	return fmt.Sprintf("A-REX answered %d %s: %s", e.Status, http.StatusText(e.Status), body)
}

// Temporary reports whether an error may pass: the CE did not answer (a
// refused connection, a timeout, a broken TLS session), or answered with
// a server error of its own (5xx).
func Temporary(err error) bool {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Status >= 500
	}
	return err != nil && !errors.Is(err, context.Canceled)
}

// Job is what A-REX says of one job of a request.
type Job struct {
	ID     string `json:"id"`
	Code   string `json:"status-code"`
	Reason string `json:"reason"`
	State  string `json:"state"`
	// Info is the job's record (action=info only).
	Info *Info `json:"-"`
}

// OK reports whether the per-job code is a 2xx.
func (j Job) OK() bool { return len(j.Code) == 3 && j.Code[0] == '2' }

// Info is a job's GLUE2 ComputingActivity, as A-REX keeps it.
type Info struct {
	Name       string
	State      string // the REST state (its "arcrest:" entry)
	States     []string
	ExitCode   *int     // the LRM's exit code, when the job ran
	Errors     []string // A-REX's failure texts
	LocalID    string   // the LRM's job id
	Queue      string
	Slots      int
	WallTime   int // RequestedTotalWallTime, seconds (all slots)
	Submission time.Time
	Start      time.Time // the LRM started it
	LRMEnd     time.Time // the LRM ended it (ComputingManagerEndTime)
	End        time.Time // A-REX ended it (after staging out)
}

// Submit creates jobs from an xRSL description (one request, or a "+" of
// several): one Job per request, in order.
func (c *Client) Submit(ctx context.Context, xrsl []byte) ([]Job, error) {
	return c.call(ctx, "POST", "/jobs?action=new", "application/rsl", xrsl, 201)
}

// Status asks the state of many jobs in one call, in the order of ids.
func (c *Client) Status(ctx context.Context, ids []string) ([]Job, error) {
	return c.manage(ctx, "status", ids, 201)
}

// Info asks the records of many jobs in one call, in the order of ids.
func (c *Client) Info(ctx context.Context, ids []string) ([]Job, error) {
	return c.manage(ctx, "info", ids, 201)
}

// Kill asks A-REX to kill jobs (each gets 202 when accepted).
func (c *Client) Kill(ctx context.Context, ids []string) ([]Job, error) {
	return c.manage(ctx, "kill", ids, 201)
}

// Clean removes ended jobs and their session directories from the CE.
func (c *Client) Clean(ctx context.Context, ids []string) ([]Job, error) {
	return c.manage(ctx, "clean", ids, 201)
}

// List is the ids of every job of the user the CE keeps.
func (c *Client) List(ctx context.Context) ([]string, error) {
	jobs, err := c.call(ctx, "GET", "/jobs", "", nil, 200)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids, nil
}

// Put writes a file of the job's session directory (an input file the
// client uploads).
func (c *Client) Put(ctx context.Context, id, name string, body io.Reader) error {
	req, err := http.NewRequestWithContext(ctx, "PUT", c.sessionURL(id, name), body)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 && resp.StatusCode != 201 && resp.StatusCode != 204 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return &HTTPError{resp.StatusCode, string(b)}
	}
	return nil
}

// Get copies a file of the job's session directory to w, at most limit
// bytes.
func (c *Client) Get(ctx context.Context, id, name string, w io.Writer, limit int64) error {
	req, err := http.NewRequestWithContext(ctx, "GET", c.sessionURL(id, name), nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return &HTTPError{resp.StatusCode, string(b)}
	}
	_, err = io.Copy(w, io.LimitReader(resp.Body, limit))
	return err
}

func (c *Client) sessionURL(id, name string) string {
	return c.base + "/jobs/" + url.PathEscape(id) + "/session/" + url.PathEscape(name)
}

// manage is POST jobs?action=A with the ids.
func (c *Client) manage(ctx context.Context, action string, ids []string, want int) ([]Job, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	type ref struct {
		ID string `json:"id"`
	}
	refs := make([]ref, len(ids))
	for i, id := range ids {
		refs[i] = ref{id}
	}
	body, _ := json.Marshal(map[string]any{"job": refs})
	jobs, err := c.call(ctx, "POST", "/jobs?action="+action, "application/json", body, want)
	if err != nil {
		return nil, err
	}
	if len(jobs) != len(ids) {
		return nil, fmt.Errorf("A-REX answered %s for %d jobs with %d", action, len(ids), len(jobs))
	}
	return jobs, nil
}

// maxAnswer bounds what a call reads: a record is a few kB.
const maxAnswer = 64 << 20

func (c *Client) call(ctx context.Context, method, path, ctype string, body []byte, want int) ([]Job, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, &HTTPError{resp.StatusCode, string(b)}
	}
	return ParseJobs(b)
}

// ParseJobs reads A-REX's {"job": …}: an object for one job, an array for
// several, nothing (an empty body or no "job") for none.
func ParseJobs(b []byte) ([]Job, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	var top struct {
		Job json.RawMessage `json:"job"`
	}
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("A-REX's answer is not JSON: %v: %.200s", err, b)
	}
	raw := bytes.TrimSpace(top.Job)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if raw[0] == '[' {
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("A-REX's job list: %v", err)
		}
	} else {
		list = []json.RawMessage{raw}
	}
	jobs := make([]Job, 0, len(list))
	for _, r := range list {
		j, err := parseJob(r)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

func parseJob(r json.RawMessage) (Job, error) {
	var j Job
	var doc struct {
		Info *struct {
			Activity *rawActivity `json:"ComputingActivity"`
		} `json:"info_document"`
	}
	if err := json.Unmarshal(r, &j); err != nil {
		return j, fmt.Errorf("A-REX's job entry: %v: %.200s", err, r)
	}
	if err := json.Unmarshal(r, &doc); err != nil {
		return j, fmt.Errorf("A-REX's job record: %v: %.200s", err, r)
	}
	if doc.Info != nil && doc.Info.Activity != nil {
		info := doc.Info.Activity.info()
		j.Info = &info
		if j.State == "" {
			j.State = info.State
		}
	}
	return j, nil
}

// rawActivity is the ComputingActivity as A-REX writes it: every value a
// string, and a value that may repeat a string or a list of them.
type rawActivity struct {
	Name                    string     `json:"Name"`
	State                   stringList `json:"State"`
	ExitCode                string     `json:"ExitCode"`
	Error                   stringList `json:"Error"`
	LocalIDFromManager      string     `json:"LocalIDFromManager"`
	Queue                   string     `json:"Queue"`
	RequestedSlots          string     `json:"RequestedSlots"`
	RequestedTotalWallTime  string     `json:"RequestedTotalWallTime"`
	SubmissionTime          string     `json:"SubmissionTime"`
	StartTime               string     `json:"StartTime"`
	ComputingManagerEndTime string     `json:"ComputingManagerEndTime"`
	EndTime                 string     `json:"EndTime"`
}

// stringList is a JSON string or a list of strings.
type stringList []string

func (s *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*s = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*s = many
	return nil
}

func (a *rawActivity) info() Info {
	in := Info{Name: a.Name, States: a.State, Errors: a.Error, LocalID: a.LocalIDFromManager, Queue: a.Queue}
	for _, s := range a.State {
		if st, ok := cutPrefix(s, "arcrest:"); ok {
			in.State = st
		}
	}
	if n, err := strconv.Atoi(a.ExitCode); err == nil {
		in.ExitCode = &n
	}
	in.Slots, _ = strconv.Atoi(a.RequestedSlots)
	in.WallTime, _ = strconv.Atoi(a.RequestedTotalWallTime)
	in.Submission = parseTime(a.SubmissionTime)
	in.Start = parseTime(a.StartTime)
	in.LRMEnd = parseTime(a.ComputingManagerEndTime)
	in.End = parseTime(a.EndTime)
	return in
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

// parseTime reads A-REX's times (2026-12-01T23:46:47Z); zero when absent.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
