package rendezvous

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// When a job is started without a rendezvous address, its rank 0 starts a
// server for its own job (StartJob) and publishes the address in a file in
// the job's working directory, which every process of the job shares; the
// other ranks poll the file and join. Publishing is atomic (write a temporary
// file, then rename), so a reader never sees half an address. A file left by
// an earlier run of the same job points at a server that is gone (the
// connection is refused) or that serves another job (a retryable error), so
// readers simply retry until rank 0 replaces it.

// Publish writes addr to path atomically.
func Publish(path, addr string) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".gmark-rendezvous-*")
	if err != nil {
		return fmt.Errorf("rendezvous: cannot publish the address: %w", err)
	}
	tmp := f.Name()
	_, err = f.WriteString(addr + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rendezvous: cannot publish the address: %w", err)
	}
	return nil
}

// maxAddrFile bounds what Lookup reads: an address is a line of a few
// dozen bytes, and the file is in a directory the job's processes share.
const maxAddrFile = 1024

// Lookup reads the address published at path; "" with no error means the
// file does not exist yet. A file that does not hold one host:port line
// (empty, several words, too long) is an error naming it.
func Lookup(path string) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxAddrFile+1))
	if err != nil {
		return "", fmt.Errorf("rendezvous: %s: %w", path, err)
	}
	addr := strings.TrimSpace(string(b))
	if len(b) > maxAddrFile {
		return "", fmt.Errorf("rendezvous: %s holds more than %d bytes, not an address", path, maxAddrFile)
	}
	if err := checkAddr(addr); err != nil {
		return "", fmt.Errorf("rendezvous: %s: %v", path, err)
	}
	return addr, nil
}

// checkAddr refuses what is not a host:port a process can dial.
func checkAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || port == "" || strings.ContainsAny(addr, " \t\r\n") {
		return fmt.Errorf("%q is not an address host:port", addr)
	}
	return nil
}

// JoinFile joins through the address published at path, polling every poll
// until the file names a server that answers for the job, or ctx ends. Only
// a definite refusal by the job's own server (a size mismatch, a duplicate
// rank) ends it early.
func JoinFile(ctx context.Context, path string, req Request, poll time.Duration) ([]Member, error) {
	var last error
	for {
		addr, err := Lookup(path)
		switch {
		case err != nil:
			last = err
		case addr == "":
			last = fmt.Errorf("%s does not exist yet", path)
		default:
			table, err := Join(ctx, addr, req)
			if err == nil {
				return table, nil
			}
			var re *Error
			if errors.As(err, &re) && !re.Retry {
				return nil, err
			}
			last = err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no rendezvous through %s: %w (last: %v)", path, ctx.Err(), last)
		case <-time.After(poll):
		}
	}
}
