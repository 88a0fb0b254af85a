// Package placeholder is placeholder (pilot-job) scheduling after Pinchak's
// thesis (the Trellis project): a metaqueue server holds each group's jobs
// (package metaqueue), placeholders queued at the group's sites pull them
// when they start (package agent), and package site submits, kills and
// watches placeholders on Slurm clusters and on hosts with no scheduler.
// This package holds what the command line calls: thin clients of the
// server's API. docs/placeholder.md describes it all.
package placeholder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/gmark/gmark/internal/httpapi"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/placeholder/agent"
	"github.com/gmark/gmark/placeholder/metaqueue"
	"github.com/gmark/gmark/placeholder/site"
)

// TokenEnv holds the server's token for the client commands when no token
// file is given.
const TokenEnv = "GMARK_PLACEHOLDER_TOKEN"

// ClientOptions say how a command reaches the server.
type ClientOptions struct {
	Server    string // http://127.0.0.1:PORT
	TokenFile string // default $GMARK_PLACEHOLDER_TOKEN
}

// Client makes the API client.
func (o ClientOptions) Client() (*metaqueue.Client, error) {
	token := os.Getenv(TokenEnv)
	if o.TokenFile != "" {
		t, err := httpapi.ReadTokenFile(o.TokenFile)
		if err != nil {
			return nil, err
		}
		token = t
	}
	return &metaqueue.Client{URL: o.Server, Token: token, HTTP: &http.Client{Timeout: 5 * time.Minute}}, nil
}

// addChunk is how many jobs one request adds.
const addChunk = 10000

// ErrInput is what Add's errors of the user's input are (errors.Is): a
// file of commands that cannot be read as one (not a regular file, too
// large, empty, lines that are not commands) or a bad split.
var ErrInput = errors.New("bad input")

type inputError struct{ error }

func (e inputError) Unwrap() error      { return e.error }
func (inputError) Is(target error) bool { return target == ErrInput }

// Add adds the command lines of files ("-": stdin) to a group, in order,
// and prints how many were added. A split ("a:17,b:16,c:17", see
// metaqueue.Split) pins them to sites: the static-partitioning baseline.
// The files are read and checked before the server is asked anything.
func Add(ctx context.Context, o ClientOptions, group, split string, files []string, stdin io.Reader, w io.Writer) error {
	jobs, err := readCommands(files, stdin)
	if err != nil {
		return err
	}
	if split != "" {
		if err := metaqueue.Split(jobs, split); err != nil {
			return inputError{err}
		}
	}
	c, err := o.Client()
	if err != nil {
		return err
	}
	var first, last int64
	for i := 0; i < len(jobs); i += addChunk {
		ids, err := c.AddJobs(ctx, group, jobs[i:min(i+addChunk, len(jobs))])
		if err != nil {
			return err
		}
		if i == 0 {
			first = ids[0]
		}
		last = ids[len(ids)-1]
	}
	fmt.Fprintf(w, "added %d jobs to group %s (ids %d to %d)\n", len(jobs), group, first, last)
	return nil
}

// readCommands reads the command lines of files ("-": stdin, once); a
// file that has none is refused, as a mistake. Its errors are ErrInput's,
// naming the file.
func readCommands(files []string, stdin io.Reader) ([]metaqueue.NewJob, error) {
	var jobs []metaqueue.NewJob
	for _, f := range files {
		name, b, err := f, []byte(nil), error(nil)
		if f == "-" {
			name = "standard input"
			b, err = io.ReadAll(io.LimitReader(stdin, metaqueue.MaxAddBody+1))
			if err == nil && len(b) > metaqueue.MaxAddBody {
				err = fmt.Errorf("%s: larger than %d bytes", name, metaqueue.MaxAddBody)
			}
		} else {
			b, err = readlimit.File(f, metaqueue.MaxAddBody) // its errors name the file
		}
		if err != nil {
			return nil, inputError{err}
		}
		js, err := metaqueue.ParseCommands(name, b)
		if err != nil {
			return nil, inputError{err}
		}
		if len(js) == 0 {
			return nil, inputError{fmt.Errorf("%s: no command lines in it (one command a line; empty lines and # comments are skipped)", name)}
		}
		jobs = append(jobs, js...)
	}
	return jobs, nil
}

// Start starts count placeholders at a site of a group.
func Start(ctx context.Context, o ClientOptions, group, siteName string, count int, w io.Writer) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	res, err := c.Start(ctx, group, siteName, count)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "started %d placeholders at %s (group %s)\n", len(res.Placeholders), siteName, group)
	if res.Auto != "" {
		fmt.Fprintf(w, "  %s\n", res.Auto)
	}
	for _, e := range res.Errors {
		fmt.Fprintf(w, "  %s\n", e)
	}
	if len(res.Placeholders) < res.Count {
		return fmt.Errorf("%d of %d placeholders could not be submitted", res.Count-len(res.Placeholders), res.Count)
	}
	return nil
}

// Stop stops one placeholder (id), a site's, or the whole group's.
func Stop(ctx context.Context, o ClientOptions, group, siteName string, id int64, w io.Writer) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	n, err := c.Stop(ctx, group, siteName, id)
	if err == nil {
		fmt.Fprintf(w, "stopped %d placeholders\n", n)
	}
	return err
}

// Status prints a group's report (as JSON with asJSON).
func Status(ctx context.Context, o ClientOptions, group string, asJSON bool, w io.Writer) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	r, err := c.Report(ctx, group)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	r.WriteText(w)
	return nil
}

// Agent runs one placeholder from its configuration file and returns its
// exit status (agent.ExitRefused when the metaqueue had no job for it).
func Agent(ctx context.Context, config string) (int, error) {
	cfg, err := site.ReadConfig(config)
	if err != nil {
		return 1, err
	}
	return agent.Run(ctx, agent.Options{Config: cfg})
}

// ReadGroups reads a groups file.
func ReadGroups(path string) ([]metaqueue.GroupSpec, error) {
	b, err := readlimit.File(path, metaqueue.MaxGroupsFile)
	if err != nil {
		return nil, err
	}
	return metaqueue.ParseGroups(path, b)
}
