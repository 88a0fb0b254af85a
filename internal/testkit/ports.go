package testkit

import "net"

// FreePorts finds n distinct free TCP ports on loopback, for daemons a
// test starts (Slurm, Grid Engine): all n listeners are held open until
// every port is found, so none is handed out twice.
func FreePorts(n int) ([]int, error) {
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
