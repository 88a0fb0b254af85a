package server

import "sync"

// broadcaster fans the committed events out to the event-stream clients.
// A client that falls behind by more than its buffer is dropped; it
// reconnects with since= and reads what it missed from the database.
type broadcaster struct {
	mu   sync.Mutex
	subs map[*subscriber]bool
}

type subscriber struct {
	ch      chan streamed
	dropped bool
}

type streamed struct {
	seq  uint64
	data []byte
}

func newBroadcaster() *broadcaster { return &broadcaster{subs: map[*subscriber]bool{}} }

func (b *broadcaster) subscribe() *subscriber {
	s := &subscriber{ch: make(chan streamed, 8192)}
	b.mu.Lock()
	b.subs[s] = true
	b.mu.Unlock()
	return s
}

func (b *broadcaster) unsubscribe(s *subscriber) {
	b.mu.Lock()
	if b.subs[s] {
		delete(b.subs, s)
		close(s.ch)
	}
	b.mu.Unlock()
}

func (b *broadcaster) publish(seq uint64, data []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		select {
		case s.ch <- streamed{seq, data}:
		default:
			s.dropped = true
			delete(b.subs, s)
			close(s.ch)
		}
	}
}
