package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gmark/gmark/internal/httpapi"
	"github.com/gmark/gmark/placeholder"
	"github.com/gmark/gmark/placeholder/agent"
	"github.com/gmark/gmark/placeholder/metaqueue"
	"github.com/urfave/cli/v2"
)

// gmark placeholder: placeholder (pilot-job) scheduling, docs/placeholder.md.
func init() { makers = append(makers, placeholderCommand) }

// placeholderFlags are the values of the flags of the placeholder client commands.
type placeholderFlags struct {
	opts                       placeholder.ClientOptions // --server, --token-file
	group, site, split, config string
	count                      int
	id                         int64
	json                       bool
}

func placeholderCommand() *cli.Command {
	o := &placeholderFlags{}
	group := &cli.StringFlag{Name: "group", Aliases: []string{"g"}, Required: true, Destination: &o.group, Usage: "placeholder group"}
	client := []cli.Flag{group,
		&cli.StringFlag{Name: "server", Value: "http://127.0.0.1:7071", Destination: &o.opts.Server, Usage: "URL of 'gmark placeholder serve'"},
		&cli.StringFlag{Name: "token-file", Destination: &o.opts.TokenFile, Usage: "file holding the server's token (without it: the token is $" + placeholder.TokenEnv + ")"}}
	site := &cli.StringFlag{Name: "site", Destination: &o.site, Usage: "site of the group"}
	return &cli.Command{
		Name:  "placeholder",
		Usage: "placeholder (pilot-job) scheduling: a metaqueue server, and placeholders on Slurm and bare hosts",
		Subcommands: []*cli.Command{placeholderServeCommand(), placeholderExperimentCommand(), {
			Name: "agent", Usage: "run one placeholder (the placeholder scripts run this)", Hidden: true,
			Flags: []cli.Flag{&cli.StringFlag{Name: "config", Required: true, Destination: &o.config, Usage: "the site's agent.json"}},
			Action: func(c *cli.Context) error {
				if code, err := placeholder.Agent(c.Context, o.config); err != nil || code == 0 {
					return err
				}
				return cli.Exit("placeholder: no job for it, exiting", agent.ExitRefused)
			},
		}, {
			Name: "add", Usage: "add command lines (one per line) to a group's metaqueue", ArgsUsage: "FILE... (- for stdin)", Flags: append([]cli.Flag{&cli.StringFlag{Name: "split", Destination: &o.split, Usage: "pin the jobs to sites in order, e.g. a:17,b:16,c:17 (the static-partitioning baseline)"}}, client...),
			Action: func(c *cli.Context) error {
				if c.NArg() == 0 {
					return usageErrorf("placeholder add takes files of command lines (- for standard input)")
				}
				return placeholder.Add(c.Context, o.opts, o.group, o.split, c.Args().Slice(), c.App.Reader, c.App.Writer)
			},
		}, {
			Name: "start", Usage: "start placeholders at a site", Flags: append([]cli.Flag{site, &cli.IntFlag{Name: "count", Value: 1, Destination: &o.count, Usage: "how many (0: automatic, one per free processor of the site, at most its max_count)"}}, client...),
			Action: func(c *cli.Context) error {
				return placeholder.Start(c.Context, o.opts, o.group, o.site, o.count, c.App.Writer)
			},
		}, {
			Name: "stop", Usage: "stop one placeholder, a site's, or a whole group's", Flags: append([]cli.Flag{site, &cli.Int64Flag{Name: "id", Destination: &o.id, Usage: "the placeholder's metaqueue id"}}, client...),
			Action: func(c *cli.Context) error {
				return placeholder.Stop(c.Context, o.opts, o.group, o.site, o.id, c.App.Writer)
			},
		}, {
			Name: "status", Usage: "what became of a group's jobs and placeholders", Flags: append([]cli.Flag{&cli.BoolFlag{Name: "json", Destination: &o.json, Usage: "print JSON"}}, client...),
			Action: func(c *cli.Context) error {
				return placeholder.Status(c.Context, o.opts, o.group, o.json, c.App.Writer)
			},
		}},
	}
}

// serveFlags are the values of the flags of 'gmark placeholder serve'.
type serveFlags struct {
	metaqueue.ServeOptions
	tokenFile, groups string
}

func placeholderServeCommand() *cli.Command {
	w, o := metaqueue.DefaultWatchdog, &serveFlags{}
	return &cli.Command{
		Name:  "serve",
		Usage: "run the metaqueue server with its HTTP API",
		Description: "Serves the API of docs/placeholder.md. Requests that change state need the token (as for 'gmark koala\n" +
			"serve'; default STATE.token). After a crash, restart with the same --state: nothing acknowledged is lost.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:7071", Destination: &o.Addr, Usage: "address to serve on (loopback only)"},
			&cli.StringFlag{Name: "state", Value: "placeholder-state.db", Destination: &o.State, Usage: "SQLite database of the metaqueue"},
			&cli.StringFlag{Name: "token-file", Destination: &o.tokenFile, Usage: "file holding the token"},
			&cli.StringFlag{Name: "groups", Destination: &o.groups, Usage: "TOML file of groups and their sites, created or updated at start"},
			&cli.DurationFlag{Name: "exec-failure", Value: w.ExecFailure, Destination: &o.Watchdog.ExecFailure, Usage: "watchdog: a placeholder executing longer is taken for dead (0: never)"},
			&cli.DurationFlag{Name: "queue-failure", Value: w.QueueFailure, Destination: &o.Watchdog.QueueFailure, Usage: "watchdog: a placeholder queued longer is resubmitted (0: never)"},
			&cli.IntFlag{Name: "max-retries", Value: w.MaxRetries, Destination: &o.Watchdog.MaxRetries, Usage: "watchdog: a job is put back while its retries <= this, then failed"},
			&cli.DurationFlag{Name: "watchdog-interval", Value: w.Interval, Destination: &o.Watchdog.Interval, Usage: "how often the watchdog runs"},
			&cli.BoolFlag{Name: "probe", Destination: &o.Watchdog.Probe, Usage: "watchdog: also ask the sites which placeholders they still have (an extension)"},
			&cli.IntFlag{Name: "retries", Value: 5, Destination: &o.Retries, Usage: "placeholders: tries again of each call to the server"},
			&cli.DurationFlag{Name: "retry-wait", Value: 10 * time.Minute, Destination: &o.RetryWait, Usage: "placeholders: wait between tries"},
		},
		Action: o.serve,
	}
}

func (f *serveFlags) serve(c *cli.Context) error {
	o := f.ServeOptions
	if err := httpapi.CheckListen(o.Addr); err != nil {
		return usageError{err}
	}
	if !httpapi.IsLoopback(o.Addr) {
		return usageErrorf("--listen %s is not a loopback address", o.Addr)
	}
	if o.Retries < 0 || o.Watchdog.MaxRetries < 0 || o.RetryWait < 0 || o.Watchdog.Interval <= 0 {
		return usageErrorf("--retries, --max-retries and --retry-wait must be >= 0, --watchdog-interval > 0")
	}
	var err error
	if f.groups != "" { // read before the token is written
		if o.Groups, err = placeholder.ReadGroups(f.groups); err != nil {
			return usageError{err}
		}
	}
	if err := metaqueue.CheckState(o.State); err != nil { // before the token is written beside it
		return err
	}
	token, tokenFile, err := httpapi.ServeToken(o.State, f.tokenFile)
	if o.Token = token; err != nil { // --token-file's, or the one beside the state
		return usageError{err}
	}
	if o.Gmark, err = os.Executable(); err != nil {
		return err
	}
	watchInterrupts()
	o.Serving = func(url string) {
		fmt.Fprintf(c.App.Writer, "gmark placeholder: serving %s/v1/ (state %s, token in %s)\n", url, o.State, tokenFile)
	}
	if err = metaqueue.Serve(c.Context, o); errors.Is(err, metaqueue.ErrInUse) {
		return usageError{err}
	}
	return err
}
