// Package progress shows how far a long piece of work has gone, on
// standard error: a bar redrawn in place on a terminal, and elsewhere (a CI
// log, a file) one line at a steady interval, so that a run of minutes says
// it is alive and how far it is without filling the log.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// DefaultEvery is the interval of the progress lines where there is no
// terminal; $GMARK_PROGRESS_EVERY (a duration, e.g. 1m) sets another, 0
// none.
const DefaultEvery = 15 * time.Second

// EveryEnv names the environment variable of the interval.
const EveryEnv = "GMARK_PROGRESS_EVERY"

// Bar is the progress of one piece of work. Its methods may be called from
// any goroutine; a Bar of nothing (quiet) does nothing.
type Bar struct {
	bar *progressbar.ProgressBar // on a terminal

	// Without a terminal: the state the lines show.
	mu                 sync.Mutex
	w                  io.Writer
	desc, unit, detail string
	n, total           int64
	start              time.Time
	stop               chan struct{}
	stopOnce           sync.Once
	done               sync.WaitGroup
}

// Options say what the work is and where its progress goes.
type Options struct {
	Total int64  // units of work in all; -1 when not known
	Desc  string // what is being done: "submitting"
	Unit  string // of the count: "jobs"
	Quiet bool   // show nothing
}

// New starts showing the progress of the work o on w: a bar when w is a
// terminal, otherwise a line every Every() (none when it is 0). Done ends
// it.
func New(w io.Writer, o Options) *Bar {
	if o.Quiet {
		return &Bar{}
	}
	if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		return &Bar{bar: progressbar.NewOptions64(o.Total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(o.Desc),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(o.Unit),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionFullWidth(),
		)}
	}
	every := Every()
	if every <= 0 {
		return &Bar{}
	}
	b := &Bar{w: w, desc: o.Desc, unit: o.Unit, total: o.Total, start: time.Now(), stop: make(chan struct{})}
	b.done.Add(1)
	go b.lines(every, b.stop)
	return b
}

// Every is the interval of the progress lines: $GMARK_PROGRESS_EVERY, or
// DefaultEvery when it is not set or not a duration.
func Every() time.Duration {
	if s := os.Getenv(EveryEnv); s != "" {
		if d, err := time.ParseDuration(s); err == nil && d >= 0 {
			return d
		}
	}
	return DefaultEvery
}

func (b *Bar) lines(every time.Duration, stop <-chan struct{}) {
	defer b.done.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			b.mu.Lock()
			fmt.Fprintln(b.w, b.line())
			b.mu.Unlock()
		}
	}
}

// line is one progress line: "submitting: 30 of 56 jobs (54%) after 1m15s",
// and the detail after a dot.
func (b *Bar) line() string {
	s := b.desc + ": " + fmt.Sprint(b.n)
	if b.total > 0 {
		s += fmt.Sprintf(" of %d %s (%.0f%%)", b.total, b.unit, 100*float64(b.n)/float64(b.total))
	} else {
		s += " " + b.unit
	}
	s += " after " + time.Since(b.start).Round(time.Second).String()
	if b.detail != "" {
		s += " · " + b.detail
	}
	return s
}

// Add counts n more units done.
func (b *Bar) Add(n int) {
	if b.bar != nil {
		_ = b.bar.Add(n)
		return
	}
	b.mu.Lock()
	b.n += int64(n)
	b.mu.Unlock()
}

// Set says n units are done.
func (b *Bar) Set(n int) {
	if b.bar != nil {
		_ = b.bar.Set(n)
		return
	}
	b.mu.Lock()
	b.n = int64(n)
	b.mu.Unlock()
}

// SetTotal changes the units of work in all.
func (b *Bar) SetTotal(total int) {
	if b.bar != nil {
		if b.bar.GetMax() != total {
			b.bar.ChangeMax(total)
		}
		return
	}
	b.mu.Lock()
	b.total = int64(total)
	b.mu.Unlock()
}

// Detail says more of how the work goes ("queued 3 · running 5"): the
// bar's description, or the end of each line.
func (b *Bar) Detail(s string) {
	if b.bar != nil {
		b.bar.Describe(s)
		return
	}
	b.mu.Lock()
	b.detail = s
	b.mu.Unlock()
}

// Done clears the bar, or stops the lines.
func (b *Bar) Done() {
	if b.bar != nil {
		_ = b.bar.Finish()
		return
	}
	if b.stop != nil {
		b.stopOnce.Do(func() { close(b.stop) })
		b.done.Wait()
	}
}
