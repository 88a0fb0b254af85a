package apps

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// PlaceholderRefused is the exit status of a placeholder the metaqueue
// refused (the thesis's 111): a normal end for the application.
const PlaceholderRefused = 111

func init() {
	register(&app{
		name:  "placeholder",
		short: "a placeholder of `gmark placeholder` on a cluster of the bundled core: runs its agent",
		long: `Runs 'gmark placeholder agent --config FILE' (the same gmark binary) as a
child process: the placeholder pulls a job from the metaqueue, runs it,
resubmits itself to the same cluster of the core and reports the job done
(docs/placeholder.md). This is how a placeholder runs where 'gmark koala
serve' executes its jobs as processes, which run only 'gmark app'
applications. The agent's output goes to standard error; its exit status is
in the summary (agent_exit): 0, or 111 when the metaqueue refused it, are a
success; any other is a failure. --submitted (Unix nanoseconds) is when the
placeholder was submitted, handed to the agent for self-regulation.`,
		define: func(fs *flagSet) instance {
			var config string
			var submitted int64
			fs.Path(&config, "config", "FILE", "", "the site's agent.json")
			fs.Int(&submitted, "submitted", "NS", 0, 0, math.MaxInt64, "when the placeholder was submitted, Unix nanoseconds (0: unknown)")
			return instance{run: func(r *runner) error {
				return runPlaceholder(r, config, submitted)
			}, work: func(int) Work { return Work{Starts: 1} }}
		},
	})
}

func runPlaceholder(r *runner, config string, submitted int64) error {
	exe, err := os.Executable()
	if err != nil {
		return &Failure{App: r.app, Reason: "error", Err: err}
	}
	cmd := exec.CommandContext(r.ctx, exe, "placeholder", "agent", "--config", config)
	cmd.Env = os.Environ()
	if submitted > 0 {
		cmd.Env = append(cmd.Env, "GMARK_PLACEHOLDER_SUBMITTED="+strconv.FormatInt(submitted, 10))
	}
	cmd.Stdout, cmd.Stderr = r.stderr, r.stderr
	// At the wall time or on a signal: SIGTERM, then SIGKILL.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		return &Failure{App: r.app, Reason: "error", Err: err}
	}
	r.sum.Set("agent_exit", code)
	if r.ctx.Err() != nil {
		return stopped("after %.3f s", r.since())
	}
	if code != 0 && code != PlaceholderRefused {
		return &Failure{App: r.app, Reason: "error", Err: fmt.Errorf("the agent exited with status %d", code)}
	}
	return nil
}
