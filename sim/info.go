package sim

// info is the monitoring/information service: what a scheduler knows of
// the clusters' idle processors. With InfoPeriod P > 0 it takes a snapshot
// of every cluster at 0, P, 2P, … and each snapshot becomes visible
// InfoDelay δ after it was taken; with P = 0 every change is reported and
// becomes visible δ after it happened. Before the first report is visible a
// cluster shows 0 idle processors. With P = 0 and δ = 0 the view is the
// truth and costs nothing.
//
// Each report counts one NotifyBroker message per cluster it covers.
type info struct {
	s    *Sim
	on   bool
	live bool
	idle []int
	ver  []uint64 // the engine version a cluster's view was taken at
	// snapshots taken and not yet visible, oldest first (the delay is
	// constant, so they become visible in the order they were taken)
	snaps    [][]int
	snapVers []uint64
}

func (in *info) init(s *Sim) {
	in.s = s
	in.idle = make([]int, len(s.clusters))
	in.ver = make([]uint64, len(s.clusters))
}

// UseInfo starts the information service (the architectures that read it
// call it from Init).
func (s *Sim) UseInfo() {
	in := &s.info
	if in.on {
		return
	}
	in.on = true
	p, d := s.cfg.InfoPeriod, s.cfg.InfoDelay
	in.live = p == 0 && d == 0
	switch {
	case in.live:
	case p > 0:
		s.push(event{at: 0, kind: evRefresh})
	default: // every change, delayed: the initial state is the first change
		for _, c := range s.clusters {
			s.bus.Send(NotifyBroker, 1)
			s.push(event{at: d, kind: evInfo, a: int32(c.Index), n: int64(c.Free), v: s.version})
		}
	}
}

// InfoLive tells whether the view is the truth (P = 0 and δ = 0).
func (s *Sim) InfoLive() bool { return s.info.live }

// Idle is the idle processors of a cluster as the information service
// shows them now.
func (s *Sim) Idle(c int) int {
	if s.info.live {
		return s.clusters[c].Free
	}
	return s.info.idle[c]
}

// ViewVersion is the engine version the current view of a cluster was
// taken at: a change made at a version up to it shows in the view.
func (s *Sim) ViewVersion(c int) uint64 {
	if s.info.live {
		return s.version
	}
	return s.info.ver[c]
}

// Version is the engine's current version (bumped at every change of a
// cluster's idle processors).
func (s *Sim) Version() uint64 { return s.version }

func (in *info) changed(c *Cluster) {
	if !in.on || in.live || in.s.cfg.InfoPeriod > 0 {
		return
	}
	s := in.s
	s.bus.Send(NotifyBroker, 1)
	s.push(event{at: s.now + s.cfg.InfoDelay, kind: evInfo, a: int32(c.Index), n: int64(c.Free), v: s.version})
}

func (in *info) apply(c, idle int, ver uint64) {
	in.idle[c], in.ver[c] = idle, ver
	in.s.arch.InfoChanged(c)
}

func (in *info) refresh() {
	s := in.s
	s.bus.Send(NotifyBroker, int64(len(s.clusters)))
	s.push(event{at: s.now + s.cfg.InfoPeriod, kind: evRefresh})
	if s.cfg.InfoDelay == 0 {
		for i, c := range s.clusters {
			in.idle[i], in.ver[i] = c.Free, s.version
		}
		s.arch.InfoChanged(-1)
		return
	}
	snap := make([]int, len(s.clusters))
	for i, c := range s.clusters {
		snap[i] = c.Free
	}
	in.snaps = append(in.snaps, snap)
	in.snapVers = append(in.snapVers, s.version)
	s.push(event{at: s.now + s.cfg.InfoDelay, kind: evSnap})
}

func (in *info) showSnap() {
	snap, ver := in.snaps[0], in.snapVers[0]
	in.snaps[0] = nil
	in.snaps, in.snapVers = in.snaps[1:], in.snapVers[1:]
	copy(in.idle, snap)
	for i := range in.ver {
		in.ver[i] = ver
	}
	in.s.arch.InfoChanged(-1)
}
