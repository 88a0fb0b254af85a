package target

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Pollers runs the periodic status polls of a target that asks its resource
// manager about its jobs (squeue, condor_q, qstat) rather than being told.
// The zero value is ready; Close stops every poll and waits for it.
type Pollers struct {
	once sync.Once
	stop chan struct{}
	wg   sync.WaitGroup
}

func (p *Pollers) init() { p.once.Do(func() { p.stop = make(chan struct{}) }) }

// Go calls poll every interval, in a goroutine of its own, until Close or
// until ctx ends.
func (p *Pollers) Go(ctx context.Context, every time.Duration, poll func(context.Context)) {
	p.init()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
			case <-p.stop:
				return
			case <-ctx.Done():
				return
			}
			poll(ctx)
		}
	}()
}

// Close stops the polls and waits for the one under way; it may be called
// more than once.
func (p *Pollers) Close() {
	p.init()
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	p.wg.Wait()
}

// JobFiles resolves where a target that runs gmark's applications on its
// hosts keeps its files: exe, or the running gmark when "", is the binary the
// jobs run as "EXE app NAME …"; dir is made absolute and sub is created in
// it (the job descriptions). name prefixes the errors (the target's name).
func JobFiles(name, exe, dir, sub string) (string, string, error) {
	if exe == "" {
		self, err := os.Executable()
		if err != nil {
			return "", "", fmt.Errorf("%s: cannot locate gmark: %v", name, err)
		}
		exe = self
	}
	if dir == "" {
		return "", "", fmt.Errorf("%s: no work directory", name)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", fmt.Errorf("%s: %v", name, err)
	}
	if err := os.MkdirAll(filepath.Join(abs, sub), 0o755); err != nil {
		return "", "", fmt.Errorf("%s: %v", name, err)
	}
	return exe, abs, nil
}
