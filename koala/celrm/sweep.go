package celrm

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gmark/gmark/internal/gramcli"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/koala/lrmkit"
)

// A core restarted on its state finds the CE jobs its previous run left
// and cancels them, as koala/slurmlrm does Slurm's: a component that was
// waiting for its release file would otherwise hold its CE's processors
// until its wall-time limit (or for good), and one that was running
// belongs to a job core.Restore failed, which is not run again. Only the
// jobs of the core's prefix that this run did not submit are touched.
//
// The sweep is done once, at a cluster's first poll the CE answers:
//   - ARC: the CE lists the user's jobs (one call) and gives their records
//     (one call per sweepChunk); a job is the core's by its name
//     (lrmkit.JobName), as its xRSL named it. A job the CE no longer keeps
//     is nothing to cancel.
//   - GRAM has no listing at all, so the core's own files are the list:
//     globusrun -b writes the job contact into Dir/<job>/<name>.submit as it
//     submits (it survives the core's kill -9). Each contact not of this
//     run is asked its state and cancelled unless final; its file is then
//     renamed <name>.submit.swept, so that the next restart does not ask
//     again. It is done once for the whole grid (any gatekeeper's contact
//     is cancelled with the same credentials), by the first GRAM cluster
//     to poll.

// sweepChunk is how many job records one A-REX info call asks for.
const sweepChunk = 200

// sweep cancels the previous runs' CE jobs; an error (the CE did not
// answer) leaves it to be done again at the next poll.
func (c *Cluster) sweep(ctx context.Context) error {
	if c.arc != nil {
		return c.sweepARC(ctx)
	}
	c.set.gramMu.Lock()
	defer c.set.gramMu.Unlock()
	if c.set.gramSwept {
		return nil
	}
	err := c.sweepGRAM(ctx)
	c.set.gramSwept = err == nil
	return err
}

// knownNames are the names of the submissions this run follows. It is
// read after the CE's jobs (or the files) are listed: a job listed was
// submitted before, so this run's are all in it.
func (c *Cluster) knownNames() map[string]bool {
	c.kit.Lock()
	defer c.kit.Unlock()
	known := make(map[string]bool, len(c.kit.Subs))
	for _, sb := range c.kit.Subs {
		known[sb.Name] = true
	}
	return known
}

// leftOver tells whether a CE job's name is the core's, of a run before
// this one.
func (c *Cluster) leftOver(name string, known map[string]bool) bool {
	return strings.HasPrefix(name, lrmkit.NamePrefix(c.set.opts.Prefix)) && !known[name]
}

func (c *Cluster) sweepARC(ctx context.Context) error {
	ids, err := c.arc.List(ctx)
	if err != nil {
		return err
	}
	known := c.knownNames()
	var kill, names []string
	for len(ids) > 0 {
		n := min(len(ids), sweepChunk)
		jobs, err := c.arc.Info(ctx, ids[:n])
		if err != nil {
			return err
		}
		for i, j := range jobs {
			if i >= n || j.Info == nil || !c.leftOver(j.Info.Name, known) || arcSeen(j.Info).ended {
				continue
			}
			kill, names = append(kill, ids[i]), append(names, j.Info.Name)
		}
		ids = ids[n:]
	}
	if len(kill) == 0 {
		return nil
	}
	jobs, err := c.arc.Kill(ctx, kill)
	if err != nil {
		return err
	}
	for i, j := range jobs {
		if i >= len(kill) {
			break
		}
		if j.OK() {
			c.kit.Logf("cancelled CE job %s (%s): a job of this core's state it did not submit (left by an earlier run)", kill[i], names[i])
		} else {
			c.kit.Logf("cancelling CE job %s (%s), left by an earlier run, failed: %s %s", kill[i], names[i], j.Code, j.Reason)
		}
	}
	return nil
}

func (c *Cluster) sweepGRAM(ctx context.Context) error {
	files, err := filepath.Glob(filepath.Join(c.set.opts.Dir, "*", lrmkit.NamePrefix(c.set.opts.Prefix)+"*.submit"))
	if err != nil {
		return err
	}
	known := c.knownNames()
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".submit")
		if !c.leftOver(name, known) {
			continue
		}
		out, err := readSubmitFile(f)
		if err != nil {
			c.kit.Logf("reading %s: %v", f, err)
			continue
		}
		contact := gramcli.ParseContact(out)
		if contact == "" { // globusrun printed no contact: nothing was submitted
			c.markSwept(f)
			continue
		}
		word, err := c.gram.Status(ctx, contact)
		if err == nil && (word == "DONE" || word == "FAILED") {
			c.markSwept(f)
			continue
		}
		if err == nil {
			err = c.gram.Cancel(ctx, contact)
		}
		var ge *gramcli.Error
		switch {
		case err == nil:
			c.kit.Logf("cancelled CE job %s (%s): a job of this core's state it did not submit (left by an earlier run)", contact, name)
		case errors.As(err, &ge) && ge.Transient:
			return err // the gatekeeper did not answer: again at the next poll
		default: // the job manager no longer knows it
			c.kit.Logf("CE job %s (%s), left by an earlier run: %v", contact, name, err)
		}
		c.markSwept(f)
	}
	return nil
}

// maxSubmitFile bounds what is read of a .submit file: globusrun's output
// of one submission is a few hundred bytes.
const maxSubmitFile = 64 << 10

// readSubmitFile reads a .submit file of the core's own: a regular file
// (readlimit.Open, which checks what it opened by its descriptor), not
// through a link, owned by this process's user (the core made it), and at
// most maxSubmitFile of it. The jobs' directories are writable by the CEs'
// mapped accounts: a FIFO or a link to /dev/zero of that name must not
// hang or swell the core's poller, nor a file one of them wrote name a
// contact for the core to cancel.
func readSubmitFile(path string) ([]byte, error) {
	if fi, err := os.Lstat(path); err != nil {
		return nil, err
	} else if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, errors.New("a symbolic link: left alone")
	}
	f, err := readlimit.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return nil, errors.New("not made by this core (another user owns it): left alone")
	}
	return io.ReadAll(io.LimitReader(f, maxSubmitFile))
}

// markSwept renames a .submit file the sweep has dealt with.
func (c *Cluster) markSwept(f string) {
	if err := os.Rename(f, f+".swept"); err != nil {
		c.kit.Logf("%v", err)
	}
}
