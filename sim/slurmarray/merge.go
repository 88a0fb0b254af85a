package slurmarray

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
)

// mergeResults merges every result file of a run without a result.
func (c *coordinator) mergeResults(ctx context.Context) error {
	ents, err := os.ReadDir(c.l.results())
	if err != nil {
		return err
	}
	for _, ent := range ents {
		if !digestFile.MatchString(ent.Name()) {
			continue // a file being written (.partial-), or another's
		}
		d := strings.TrimSuffix(ent.Name(), ".json")
		if _, pending := c.runs[d]; !pending {
			continue
		}
		rf, err := readResult(c.l.ResultPath(d), d)
		if err != nil {
			fmt.Fprintf(c.o.Log, "ignoring a result file: %v\n", err)
			continue
		}
		if err := c.merge(ctx, rf); err != nil {
			return err
		}
	}
	return nil
}

// merge records a task's result: its invocation, its attempt, the result
// and how the task ended, in one transaction, unless the run has a result
// already (merging twice changes nothing). The run is then done: its
// other tasks in flight, if any, are no longer followed.
func (c *coordinator) merge(ctx context.Context, rf *ResultFile) error {
	inv := rf.Invocation
	inv.ExperimentID = c.sum.ExperimentID
	task := store.SimTask{ArrayName: rf.Array, Task: rf.Task, Digest: rf.Digest, Try: rf.Try, SlurmJobID: rf.SlurmJob,
		State: store.SimTaskCompleted, StartedNS: rf.StartedNS, EndedNS: rf.Result.FinishedNS, RecordedNS: time.Now().UnixNano()}
	if a := c.arrays[rf.Array]; a != nil {
		task.Cluster = a.m.Cluster
	}
	merged := false
	err := c.s.Store().Write(ctx, func(tx *store.Tx) error {
		if done, err := tx.SimResultExists(rf.Digest); err != nil || done {
			return err
		}
		id, err := tx.InsertSimInvocation(inv)
		if err != nil {
			return err
		}
		if err := tx.InsertSimAttempt(rf.Digest, id, rf.StartedNS); err != nil {
			return err
		}
		row := rf.Result
		row.InvocationID = id
		if err := tx.InsertSimResult(row); err != nil {
			return err
		}
		task.InvocationID = c.s.Invocation()
		if _, err := tx.InsertSimTask(task); err != nil {
			return err
		}
		merged = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("merging %s: %w", c.l.ResultPath(rf.Digest), err)
	}
	runs := c.runs[rf.Digest]
	delete(c.runs, rf.Digest)
	for k := range c.byDigest[rf.Digest] {
		c.dropSlot(c.slots[k])
	}
	if !merged {
		c.sum.AlreadyDone += len(runs)
		return nil
	}
	for _, r := range runs {
		c.sum.Ran++
		if c.ro.Done != nil {
			c.ro.Done(r, nil)
		}
	}
	return nil
}
