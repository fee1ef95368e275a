package mcplive

import (
	"context"
	"errors"
	"sync"
)

// syncer keeps one list in sync: single flight (at most one walk in
// flight), and a trigger during a walk schedules exactly one more walk after
// it, so a burst of N notifications costs at most two walks. No timed
// debounce: it would add its delay to every change.
type syncer struct {
	c    *Client
	kind Kind
	walk func(ctx context.Context, sess *Session, epoch uint64)

	mu      sync.Mutex
	running bool
	dirty   bool
	reqGen  uint64 // triggers so far
	doneGen uint64 // triggers covered by finished walks
	waiters []syncWaiter
	walks   uint64 // walks started, for tests and benchmarks
}

type syncWaiter struct {
	gen uint64
	ch  chan struct{}
}

func newSyncer(c *Client, kind Kind, walk func(context.Context, *Session, uint64)) *syncer {
	return &syncer{c: c, kind: kind, walk: walk}
}

// trigger asks for a re-list. The returned channel is closed when a walk
// that started after this call has finished (or the client closed).
func (s *syncer) trigger() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqGen++
	ch := make(chan struct{})
	s.waiters = append(s.waiters, syncWaiter{s.reqGen, ch})
	if s.c.ctx.Err() != nil {
		s.release()
		return ch
	}
	if s.running {
		s.dirty = true
		return ch
	}
	s.running = true
	s.c.wg.Add(1)
	go s.loop()
	return ch
}

func (s *syncer) loop() {
	defer s.c.wg.Done()
	for {
		s.mu.Lock()
		s.dirty = false
		gen := s.reqGen
		s.walks++
		s.mu.Unlock()

		s.c.mu.Lock()
		sess, epoch := s.c.sess, s.c.epoch
		s.c.mu.Unlock()
		if sess != nil {
			s.walk(s.c.ctx, sess, epoch)
		}

		s.mu.Lock()
		s.doneGen = gen
		s.release() // (all of them once the client is closed)
		if !s.dirty || s.c.ctx.Err() != nil {
			s.running = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
}

// release wakes the waiters whose trigger a finished walk covered. Called
// with s.mu held.
func (s *syncer) release() {
	if s.c.ctx.Err() != nil {
		s.doneGen = s.reqGen
	}
	keep := s.waiters[:0]
	for _, w := range s.waiters {
		if w.gen <= s.doneGen {
			close(w.ch)
		} else {
			keep = append(keep, w)
		}
	}
	s.waiters = keep
}

// syncList returns the walk for one list: list every page, then apply the
// result unless the session it came from is no longer the current one (an
// older result never overwrites a newer one).
func syncList[T Item](c *Client, l *List[T]) func(context.Context, *Session, uint64) {
	return func(ctx context.Context, sess *Session, epoch uint64) {
		items, err := relist(ctx, sess, l.kind, l.Snapshot().Items)
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.epoch != epoch || c.sess != sess {
			return // a newer session has taken over, or this one is gone
		}
		if err != nil {
			select {
			case <-sess.Done():
				return // the drop marks the list stale; the reconnect re-lists
			default:
			}
			if errors.Is(err, context.Canceled) && ctx.Err() != nil {
				return
			}
			c.opts.Logger.Warn("mcplive: re-list failed; keeping the last items", "kind", l.kind, "err", err)
			l.setStatus(StatusError, err)
			return
		}
		l.apply(items, StatusReady, nil)
	}
}

// Walks reports how many list walks (every page of one list) the client has
// started for kind. Tests and benchmarks use it to count re-lists.
func (c *Client) Walks(kind Kind) uint64 {
	s, ok := c.syncers[kind]
	if !ok {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.walks
}
