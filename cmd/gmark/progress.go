package main

import (
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// progress is a progress bar on stderr, shown only when stderr is a terminal
// and --quiet is not set, so logs and CI output stay clean.
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress starts a bar for total units of work (-1 when unknown).
func newProgress(total int64, desc, unit string, quiet bool) *progress {
	if quiet || !isatty.IsTerminal(os.Stderr.Fd()) {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionFullWidth(),
	)}
}

// Add advances the bar by n.
func (p *progress) Add(n int) {
	if p.bar != nil {
		_ = p.bar.Add(n)
	}
}

// Done clears the bar.
func (p *progress) Done() {
	if p.bar != nil {
		_ = p.bar.Finish()
		_, _ = io.WriteString(os.Stderr, "")
	}
}
