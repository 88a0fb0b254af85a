package metaqueue

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// A read without the token is answered only under a Host that names the
// loopback or an IP address: a page of another site whose name was
// rebound to 127.0.0.1 (DNS rebinding), in a browser on this machine,
// sends its own name and gets 403, not the job list. With the token, any
// Host is answered (a client that has it is no page of another site).
func TestHostCheck(t *testing.T) {
	r := startServer(t, filepath.Join(t.TempDir(), "mq.db"))
	for _, c := range []struct {
		host, token string
		want        int
	}{
		{"", "", http.StatusOK}, // the listen address, 127.0.0.1:PORT
		{"localhost", "", http.StatusOK},
		{"[::1]:80", "", http.StatusOK},
		{"rebound.example", "", http.StatusForbidden},
		{"rebound.example:8080", "", http.StatusForbidden},
		{"rebound.example", "secret", http.StatusOK},
		{"rebound.example", "wrong", http.StatusForbidden},
	} {
		for _, path := range []string{"/v1/groups", "/v1/health", "/status"} {
			req, err := http.NewRequest("GET", r.url+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.host != "" {
				req.Host = c.host
			}
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			resp, err := r.client.HTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := c.want
			if path == "/status" && want == http.StatusOK && strings.HasPrefix(c.host, "rebound") {
				want = http.StatusForbidden // the page asks a loopback name, token or not
			}
			if resp.StatusCode != want {
				t.Errorf("GET %s, Host %q, token %q: %d, want %d", path, c.host, c.token, resp.StatusCode, want)
			}
		}
	}
}
