package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A page of another site whose name was rebound to 127.0.0.1 (DNS
// rebinding) sends its own name as Host: without the token, every route
// refuses it (403), the JSON reads included; under localhost or an IP
// address, or with the token, the same requests are answered.
func TestHostIsChecked(t *testing.T) {
	hs, _, _ := start(t, "")
	port := hs.URL[strings.LastIndex(hs.URL, ":"):]
	cases := []struct {
		host  string
		auth  bool
		allow bool
	}{
		{"127.0.0.1" + port, false, true},
		{"localhost" + port, false, true},
		{"LocalHost", false, true},
		{"[::1]" + port, false, true},
		{"10.1.2.3" + port, false, true},
		{"rebound.example" + port, false, false},
		{"localhost.rebound.example" + port, false, false},
		{"127.0.0.1.nip.example" + port, false, false},
		{"rebound.example" + port, true, true},
	}
	for _, path := range []string{"/v1/jobs", "/v1/jobs/k1", "/v1/clusters", "/v1/utilization", "/v1/deadlines", "/metrics", "/v1/health"} {
		for _, tc := range cases {
			req, _ := http.NewRequest("GET", hs.URL+path, nil)
			req.Host = tc.host
			if tc.auth {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			refused := resp.StatusCode == http.StatusForbidden && strings.Contains(string(body), "Host")
			if refused == tc.allow {
				t.Errorf("GET %s, Host %q, token %v: %d %.120s", path, tc.host, tc.auth, resp.StatusCode, body)
			}
		}
	}
}
