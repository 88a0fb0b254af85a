package metaqueue

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzClient: a placeholder's client reads any answer to a pull: any
// status, any body. A 3xx (not followed) or 4xx is a final refusal with
// its status and a message; anything else that
// is not a reply the server gives is an error naming the call; a reply it
// takes is one a placeholder can act on (an order it can run, a stop, or
// a wait of at most MaxPullWait), as the server's JSON says.
func FuzzClient(f *testing.F) {
	answers := make(chan [2]any, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := <-answers
		w.WriteHeader(a[0].(int))
		w.Write(a[1].([]byte))
	}))
	f.Cleanup(srv.Close)
	c := &Client{URL: srv.URL, Token: "t"}
	for _, s := range []struct {
		status int
		body   string
	}{
		{200, `{"placeholder":3,"order":{"job":1,"key":"k","attempt":2,"command":"echo hi"},"regulate":"increase"}`},
		{200, `{"placeholder":3,"stop":"no work left"}`},
		{200, `{"placeholder":3,"wait":10}`},
		// A wait of centuries, or of a negative or overflowing time,
		// was taken and slept on; an order without a command was run.
		{200, `{"placeholder":3,"wait":1e300}`},
		{200, `{"placeholder":3,"wait":-1}`},
		{200, `{"placeholder":3,"order":{"job":0,"attempt":0,"command":""}}`},
		{200, `{"placeholder":3,"regulate":"explode"}`},
		{200, `not json`},
		{404, `{"error":"no group g"}`},
		{409, `{}`},
		{503, `{"error":"shutting down"}`},
		{302, ``},
	} {
		f.Add(s.status, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 200 || status > 599 {
			return
		}
		answers <- [2]any{status, body}
		r, err := c.Pull(context.Background(), "g", PullRequest{})
		switch {
		case err != nil && status >= 300 && status < 500:
			var ae *APIError
			if !asAPI(err, &ae) || ae.Message == "" || ae.Status != status {
				t.Fatalf("%d %q: %v is not a refusal with a message", status, body, err)
			}
		case err != nil:
			if Refused(err) || !strings.Contains(err.Error(), "/v1/groups/g/pull") {
				t.Fatalf("%d %q: error %q does not name the call", status, body, err)
			}
		case status >= 300:
			t.Fatalf("%d %q: taken as a reply %+v", status, body, r)
		default:
			var want PullReply
			if json.Unmarshal(body, &want) != nil {
				t.Fatalf("%d %q: taken, though it is not JSON of a reply: %+v", status, body, r)
			}
			n := 0
			if r.Order != nil {
				n++
				if r.Order.Command == "" || r.Order.Job < 1 || r.Order.Attempt < 1 {
					t.Fatalf("%q: order %+v", body, *r.Order)
				}
			}
			if r.Stop != "" {
				n++
			}
			if r.Wait != 0 {
				n++
			}
			if n > 1 || math.IsNaN(r.Wait) || r.Wait < 0 || r.Wait > MaxPullWait.Seconds() {
				t.Fatalf("%q: reply %+v", body, r)
			}
		}
	})
}

func asAPI(err error, ae **APIError) bool {
	e, ok := err.(*APIError)
	*ae = e
	return ok
}
