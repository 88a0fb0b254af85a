package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gmark/gmark/internal/httpapi"
	"github.com/gmark/gmark/koala/placement"
)

// GetJobs asks the core whose API is at endpoint (http://HOST:PORT) for
// jobs: those named, by id or idempotency key, or, when none is named, every
// job in state ("" for all), in submission order. Reading needs no token.
// An endpoint with a secret in it is refused (httpapi.CheckEndpoint): it
// would be printed in the messages.
func GetJobs(ctx context.Context, client *http.Client, endpoint, state string, ids []string) ([]JobView, error) {
	if err := httpapi.CheckEndpoint("koala", endpoint); err != nil {
		return nil, err
	}
	base := strings.TrimRight(endpoint, "/")
	if len(ids) == 0 {
		path := "/v1/jobs"
		if state != "" {
			path += "?state=" + url.QueryEscape(state)
		}
		var jobs []JobView
		return jobs, getJSON(ctx, client, base, path, &jobs)
	}
	jobs := make([]JobView, len(ids))
	for i, id := range ids {
		if err := getJSON(ctx, client, base, "/v1/jobs/"+url.PathEscape(id), &jobs[i]); err != nil {
			return nil, err
		}
	}
	return jobs, nil
}

// getJSON reads one answer of the API into v; an error answer becomes an
// error with the API's message.
func getJSON(ctx context.Context, client *http.Client, base, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("the core at %s does not answer: %w", base, err)
	}
	defer resp.Body.Close()
	body := io.LimitReader(resp.Body, 1<<30)
	if resp.StatusCode != http.StatusOK {
		var e apiError
		if json.NewDecoder(body).Decode(&e) != nil || e.Error == "" {
			e.Error = resp.Status
		}
		return fmt.Errorf("GET %s: %s", path, e.Error)
	}
	if err := json.NewDecoder(body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: the core's answer does not read as jobs: %w", path, err)
	}
	return nil
}

// WriteJobs prints jobs as a table: id, name, state, priority, placement
// tries, sites and why. Why is a failed or cancelled job's reason, or, for a
// job whose last placement try failed, that try's reasons, site by site.
func WriteJobs(w io.Writer, jobs []JobView) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATE\tPRIORITY\tTRIES\tSITES\tWHY")
	for _, j := range jobs {
		why := j.Reason
		if len(j.Why) > 0 {
			if why != "" {
				why += "; "
			}
			why += "placement: " + placement.Summary(j.Why)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, dash(j.Name), j.State, j.Priority,
			strconv.Itoa(j.PlacementTries), dash(strings.Join(j.Sites, ",")), dash(why))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
