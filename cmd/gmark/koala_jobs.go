package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/server"
	"github.com/urfave/cli/v2"
)

// koalaJobsOptions are what 'gmark koala jobs' is asked.
type koalaJobsOptions struct {
	Endpoint string   // the core's API
	State    string   // only jobs in this state; "" for all
	JSON     bool     // print the API's JSON instead of a table
	IDs      []string // only these jobs (ids or idempotency keys)
}

func koalaJobsCommand() *cli.Command {
	o := &koalaJobsOptions{}
	return &cli.Command{
		Name:      "jobs",
		Usage:     "list the jobs of a running core, and why the queued ones wait",
		ArgsUsage: "[ID or KEY ...]",
		Description: "Asks a running 'gmark koala serve' for its jobs (all of them, those of --state, or those\n" +
			"named) and prints one line per job. WHY is a failed job's reason and, for a job whose last\n" +
			"placement try failed, why each site did not take it (docs/koala.md lists the reasons).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "endpoint", Value: "http://127.0.0.1:7070", Destination: &o.Endpoint, Usage: "URL of the core's HTTP API"},
			&cli.StringFlag{Name: "state", Destination: &o.State, Usage: "only jobs in this state: queued, claiming, running, finished, failed or cancelled"},
			&cli.BoolFlag{Name: "json", Destination: &o.JSON, Usage: "print the jobs as the API gives them (JSON)"},
		},
		Action: func(c *cli.Context) error {
			o.IDs = c.Args().Slice()
			return runKoalaJobs(c.Context, *o, c.App.Writer)
		},
	}
}

// runKoalaJobs prints the jobs of the core at o.Endpoint to w.
func runKoalaJobs(ctx context.Context, o koalaJobsOptions, w io.Writer) error {
	switch core.State(o.State) {
	case "", core.Queued, core.Claiming, core.Running, core.Finished, core.Failed, core.Cancelled:
	default:
		return usageErrorf("--state %q: give queued, claiming, running, finished, failed or cancelled", o.State)
	}
	if o.State != "" && len(o.IDs) > 0 {
		return usageErrorf("give --state or job ids, not both")
	}
	jobs, err := server.GetJobs(ctx, &http.Client{Timeout: 30 * time.Second}, o.Endpoint, o.State, o.IDs)
	var unreachable *url.Error
	if errors.As(err, &unreachable) {
		return fmt.Errorf("%w (is 'gmark koala serve' running there? --endpoint gives its URL)", err)
	}
	if err != nil {
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(jobs)
	}
	return server.WriteJobs(w, jobs)
}
