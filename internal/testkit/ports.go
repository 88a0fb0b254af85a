package testkit

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// FreePorts finds n distinct free TCP ports, for daemons a test starts
// that must be told their port in a configuration file (Slurm, Grid
// Engine, the grid middleware).
//
// They are taken below the kernel's ephemeral range, from which it gives
// the local ports of outgoing connections and of listeners on port 0: a
// port from that range, free when found, was taken by someone's connection
// before slurmd could bind it, on a loaded machine with two test suites
// running ("Unable to bind listen port: Address already in use"). Below
// the range only another listener can take one, and each port handed out
// is reserved for a while by a file in the temporary directory, so that
// parallel tests and other test processes do not find the same one.
func FreePorts(n int) ([]int, error) {
	lo, hi := portRange()
	if hi-lo < 100*n {
		return loopbackPorts(n) // no room below the ephemeral range
	}
	dir := filepath.Join(os.TempDir(), "gmark-test-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	forgetOldReservations(dir)
	var ports []int
	for tries := 0; len(ports) < n; tries++ {
		if tries > 1000*n {
			return nil, fmt.Errorf("no free port found in %d-%d after %d tries", lo, hi-1, tries)
		}
		p := lo + rand.IntN(hi-lo)
		if !reserve(dir, p) {
			continue
		}
		if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
			l.Close()
			ports = append(ports, p)
		}
	}
	return ports, nil
}

// portRange is where FreePorts looks: from 20000 up to the start of the
// kernel's ephemeral range (Linux's default 32768 when it cannot be read).
func portRange() (lo, hi int) {
	hi = 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil {
				hi = v
			}
		}
	}
	return 20000, hi
}

// reservationAge is how long a port handed out stays reserved: longer than
// any test that uses it.
const reservationAge = 2 * time.Hour

// reserve claims port p by creating its file; false if another test holds it.
func reserve(dir string, p int) bool {
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(p)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o666)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

func forgetOldReservations(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > reservationAge {
			_ = os.Remove(filepath.Join(dir, e.Name())) // another process may have removed it first
		}
	}
}

// loopbackPorts asks the kernel for n ports, holding every listener open
// until all are found, so that none is handed out twice.
func loopbackPorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
