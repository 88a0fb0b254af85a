package metaqueue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client calls a metaqueue's API. Each call is tried again Retries times,
// Wait apart, when the server cannot be reached or answers 5xx (the
// thesis's placeholder retries every SSH call 5 times, 10 minutes apart);
// an answer 4xx is final.
type Client struct {
	URL     string // http://HOST:PORT
	Token   string
	HTTP    *http.Client
	Retries int
	Wait    time.Duration
	// OnRetry, if set, hears of each failed try that will be retried.
	OnRetry func(err error)
}

// APIError is an answer 4xx: the request itself was refused.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string { return fmt.Sprintf("%d: %s", e.Status, e.Message) }

// Refused tells whether err is a final refusal (4xx) rather than a failure
// to reach the server.
func Refused(err error) bool {
	var ae *APIError
	return errors.As(err, &ae)
}

func (c *Client) call(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	var last error
	for try := 0; try <= c.Retries; try++ {
		if try > 0 {
			if c.OnRetry != nil {
				c.OnRetry(last)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(c.Wait):
			}
		}
		last = c.once(ctx, method, path, body, out)
		if last == nil || Refused(last) || ctx.Err() != nil {
			return last
		}
	}
	return fmt.Errorf("%s %s: gave up after %d tries: %w", method, path, c.Retries+1, last)
}

func (c *Client) once(ctx context.Context, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.URL, "/")+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<30))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			e.Error = resp.Status
		}
		if resp.StatusCode >= 500 {
			return fmt.Errorf("%s %s: %d: %s", method, path, resp.StatusCode, e.Error)
		}
		return &APIError{Status: resp.StatusCode, Message: e.Error}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: the answer does not read: %v", method, path, err)
	}
	return nil
}

func gpath(group, rest string) string { return "/v1/groups/" + url.PathEscape(group) + rest }

// PutGroup creates or updates a group.
func (c *Client) PutGroup(ctx context.Context, gs GroupSpec) (GroupView, error) {
	var v GroupView
	return v, c.call(ctx, http.MethodPost, "/v1/groups", gs, &v)
}

// Group reads a group.
func (c *Client) Group(ctx context.Context, group string) (GroupView, error) {
	var v GroupView
	return v, c.call(ctx, http.MethodGet, gpath(group, ""), nil, &v)
}

// Groups lists the groups.
func (c *Client) Groups(ctx context.Context) ([]GroupView, error) {
	var v []GroupView
	return v, c.call(ctx, http.MethodGet, "/v1/groups", nil, &v)
}

// AddJobs adds jobs.
func (c *Client) AddJobs(ctx context.Context, group string, jobs []NewJob) ([]int64, error) {
	var v struct {
		IDs []int64 `json:"ids"`
	}
	return v.IDs, c.call(ctx, http.MethodPost, gpath(group, "/jobs"), AddRequest{Jobs: jobs}, &v)
}

// RemoveJob removes a waiting job.
func (c *Client) RemoveJob(ctx context.Context, group string, id int64) error {
	return c.call(ctx, http.MethodDelete, gpath(group, fmt.Sprintf("/jobs/%d", id)), nil, nil)
}

// Jobs lists jobs (state "" for all) after id after, at most limit.
func (c *Client) Jobs(ctx context.Context, group, state string, after int64, limit int) ([]JobView, error) {
	q := url.Values{"after": {fmt.Sprint(after)}, "limit": {fmt.Sprint(limit)}, "attempts": {"1"}}
	if state != "" {
		q.Set("state", state)
	}
	var v []JobView
	return v, c.call(ctx, http.MethodGet, gpath(group, "/jobs?"+q.Encode()), nil, &v)
}

// Placeholders lists a group's placeholders (all: ended ones too).
func (c *Client) Placeholders(ctx context.Context, group string, all bool) ([]Placeholder, error) {
	p := "/placeholders"
	if all {
		p += "?all=1"
	}
	var v []Placeholder
	return v, c.call(ctx, http.MethodGet, gpath(group, p), nil, &v)
}

// Start starts count placeholders at a site.
func (c *Client) Start(ctx context.Context, group, siteName string, count int) (StartResult, error) {
	var v StartResult
	return v, c.call(ctx, http.MethodPost, gpath(group, "/start"), StartRequest{Site: siteName, Count: count}, &v)
}

// Stop stops placeholders (see Server.Stop).
func (c *Client) Stop(ctx context.Context, group, siteName string, id int64) (int, error) {
	var v struct {
		Stopped int `json:"stopped"`
	}
	return v.Stopped, c.call(ctx, http.MethodPost, gpath(group, "/stop"), StopRequest{Site: siteName, Placeholder: id}, &v)
}

// Pull is nextcmd. A reply that is not one the server gives (an order
// without a command, a wait of centuries) is an error: a placeholder must
// not run, or wait for, what it cannot make sense of.
func (c *Client) Pull(ctx context.Context, group string, req PullRequest) (PullReply, error) {
	var v PullReply
	if err := c.call(ctx, http.MethodPost, gpath(group, "/pull"), req, &v); err != nil {
		return PullReply{}, err
	}
	if err := v.check(); err != nil {
		return PullReply{}, fmt.Errorf("POST %s: the answer does not read: %v", gpath(group, "/pull"), err)
	}
	return v, nil
}

// MaxPullWait bounds the wait a pull's reply may ask for.
const MaxPullWait = 24 * time.Hour

// check refuses what the server never replies: an order, a stop and a
// wait are exclusive; an order names its job, its attempt and a command.
func (r *PullReply) check() error {
	switch {
	case r.Placeholder < 0:
		return fmt.Errorf("placeholder %d", r.Placeholder)
	case r.Order != nil && (r.Stop != "" || r.Wait != 0):
		return errors.New("an order with a stop or a wait")
	case r.Order != nil && (r.Order.Job < 1 || r.Order.Attempt < 1 || r.Order.Command == ""):
		return fmt.Errorf("an order of job %d, attempt %d, without a command to run", r.Order.Job, r.Order.Attempt)
	case r.Stop != "" && r.Wait != 0:
		return errors.New("a stop with a wait")
	case !(r.Wait >= 0 && r.Wait <= MaxPullWait.Seconds()):
		return fmt.Errorf("a wait of %g s (0 to %g)", r.Wait, MaxPullWait.Seconds())
	}
	switch r.Regulate {
	case "", Increase, Maintain, Reduce:
	default:
		return fmt.Errorf("regulate %q (increase, maintain or reduce)", r.Regulate)
	}
	return nil
}

// Done is donejob.
func (c *Client) Done(ctx context.Context, group string, req DoneRequest) error {
	return c.call(ctx, http.MethodPost, gpath(group, "/done"), req, nil)
}

// Dequeue is dequeue.
func (c *Client) Dequeue(ctx context.Context, group string, req DequeueRequest) error {
	return c.call(ctx, http.MethodPost, gpath(group, "/dequeue"), req, nil)
}

// Actions reads recorded actions after seq.
func (c *Client) Actions(ctx context.Context, group string, after int64, limit int) ([]Action, error) {
	var v []Action
	return v, c.call(ctx, http.MethodGet, gpath(group, fmt.Sprintf("/actions?after=%d&limit=%d", after, limit)), nil, &v)
}

// Report reads a group's report.
func (c *Client) Report(ctx context.Context, group string) (*Report, error) {
	var v Report
	return &v, c.call(ctx, http.MethodGet, gpath(group, "/report"), nil, &v)
}

// Status gets a group's status (what the status page shows).
func (c *Client) Status(ctx context.Context, group string) (*Status, error) {
	var v Status
	err := c.call(ctx, http.MethodGet, gpath(group, "/status"), nil, &v)
	return &v, err
}
