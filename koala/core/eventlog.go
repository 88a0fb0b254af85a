package core

import (
	"bufio"
	"encoding/json"
	"fmt"

	"github.com/gmark/gmark/internal/outfile"
)

// eventWriter writes events as JSON lines.
type eventWriter struct {
	enc *json.Encoder
	err error
}

func (e *eventWriter) Event(ev *Event) {
	if e.err == nil {
		e.err = e.enc.Encode(ev)
	}
}

// OpenEventLog opens the events file (none when path is ""): save(true)
// commits it, save(false) abandons it if it was not committed.
func OpenEventLog(path string) (Sink, func(commit bool) error, error) {
	if path == "" {
		return nil, func(bool) error { return nil }, nil
	}
	f, err := outfile.Create(path)
	if err != nil {
		return nil, nil, err
	}
	bw := bufio.NewWriter(f)
	ew := &eventWriter{enc: json.NewEncoder(bw)}
	return ew, func(commit bool) error {
		if !commit {
			return f.Close()
		}
		err := ew.err
		if err == nil {
			err = bw.Flush()
		}
		if err == nil {
			err = f.Commit()
		}
		if err != nil {
			return fmt.Errorf("writing the events to %s: %v", path, err)
		}
		return nil
	}, nil
}
