package site

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/httpapi"
	"github.com/gmark/gmark/workload"
)

// koala is a cluster of the bundled scheduler core (`gmark koala serve`):
// a placeholder is a core job of one component fixed on the cluster, which
// waits in the core's queue for that cluster's processors and, with the
// core's process execution, runs `gmark app placeholder --config
// DIR/agent.json`, the placeholder's agent, where the core runs its jobs.
type koala struct {
	spec Spec
	conf string // the site's agent.json
}

// PlaceholderApp is the `gmark app` application a placeholder job runs.
const PlaceholderApp = "placeholder"

// maxKoalaProcessors is the most processors a cluster of the core has
// (the grid file's cluster.processors).
const maxKoalaProcessors = 1 << 20

// koalaTimeout bounds one call to the core.
const koalaTimeout = 60 * time.Second

func (k *koala) call(ctx context.Context, method, path string, body []byte, v any) error {
	ctx, cancel := context.WithTimeout(ctx, koalaTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(k.spec.Koala, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet && k.spec.KoalaTokenFile != "" {
		tok, err := httpapi.ReadTokenFile(k.spec.KoalaTokenFile)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("koala %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("koala %s %s: %v", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(b, &e)
		return fmt.Errorf("koala %s %s: %s: %s", method, path, resp.Status, e.Error)
	}
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("koala %s %s: %v", method, path, err)
	}
	return nil
}

// job is the placeholder as a core job: one component of the site's cpus
// on its cluster, the site's wall time, the agent's configuration, and
// when it was submitted (for self-regulation).
func (k *koala) job(now time.Time) workload.Job {
	wall, _ := k.spec.Wall()
	return workload.Job{ID: "placeholder-" + k.spec.Name, Kind: workload.Unitary, Type: PlaceholderApp,
		SiteType: workload.Ordered, WallTime: wall,
		App: workload.App{Name: PlaceholderApp, Params: []workload.Param{{Key: "config", Value: k.conf},
			{Key: "submitted", Value: strconv.FormatInt(now.UnixNano(), 10)}}},
		Components: []workload.Component{{Site: k.spec.Cluster, Count: k.spec.CPUs}}}
}

func (k *koala) Submit(ctx context.Context) (string, error) {
	j := k.job(time.Now())
	body := append(append([]byte(`{"job":`), j.AppendJSON(nil)...), '}')
	var v struct {
		ID string `json:"id"`
	}
	if err := k.call(ctx, http.MethodPost, "/v1/jobs", body, &v); err != nil {
		return "", err
	}
	if !koalaJobID(v.ID) {
		return "", fmt.Errorf("koala: the core answered %q, not a job id", v.ID)
	}
	return v.ID, nil
}

// koalaJobID tells a job id of the core from what is not one: the id goes
// in a path of the core's API (DELETE /v1/jobs/ID) and in the metaqueue's
// records.
func koalaJobID(id string) bool {
	return id != "" && len(id) <= 256 && !strings.ContainsAny(id, "/?#%\x00\n\r\t ")
}

func (k *koala) Kill(ctx context.Context, localID string) error {
	if !koalaJobID(localID) {
		return fmt.Errorf("koala: %q is not a job id", localID)
	}
	return k.call(ctx, http.MethodDelete, "/v1/jobs/"+url.PathEscape(localID), nil, nil)
}

// Alive: the core's jobs queued, claiming or running.
func (k *koala) Alive(ctx context.Context, ids []string) (map[string]bool, error) {
	var jobs []struct {
		ID    string `json:"id"`
		State string `json:"state"`
	}
	if err := k.call(ctx, http.MethodGet, "/v1/jobs", nil, &jobs); err != nil {
		return nil, err
	}
	live := map[string]bool{}
	for _, j := range jobs {
		switch j.State {
		case "queued", "claiming", "running":
			live[j.ID] = true
		}
	}
	alive := map[string]bool{}
	for _, id := range ids {
		if live[id] {
			alive[id] = true
		}
	}
	return alive, nil
}

// Free is the cluster's idle processors as the core counts them.
func (k *koala) Free(ctx context.Context) (int, error) {
	var cls []struct {
		Name string `json:"name"`
		Idle int    `json:"idle"`
	}
	if err := k.call(ctx, http.MethodGet, "/v1/clusters", nil, &cls); err != nil {
		return 0, err
	}
	for _, c := range cls {
		if c.Name == k.spec.Cluster {
			if c.Idle < 0 || c.Idle > maxKoalaProcessors {
				return 0, fmt.Errorf("koala: the core says cluster %s has %d idle processors (0 to %d)", k.spec.Cluster, c.Idle, maxKoalaProcessors)
			}
			return c.Idle, nil
		}
	}
	return 0, fmt.Errorf("koala: the core has no cluster %q", k.spec.Cluster)
}

func newKoala(spec Spec, script string) *koala {
	return &koala{spec: spec, conf: filepath.Join(filepath.Dir(script), "agent.json")}
}

// checkKoala checks a koala site: the core's address (http, loopback or
// not: the core's own --listen decides) and its cluster.
func (s *Spec) checkKoala() error {
	u, err := url.Parse(s.Koala)
	if s.Koala == "" || err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Path != "" && u.Path != "/" {
		return fmt.Errorf("site %s: koala %q must be the core's address, e.g. http://127.0.0.1:7070", s.Name, s.Koala)
	}
	if s.Cluster == "" || strings.ContainsAny(s.Cluster, "/ \t\n") {
		return fmt.Errorf("site %s: cluster %q must name one of the core's clusters", s.Name, s.Cluster)
	}
	return nil
}
