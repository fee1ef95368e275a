package mcplive

import (
	"context"
	"sync"
	"time"
)

// syncer owns one list's refresh, as a TanStack Query owns its fetch:
// "invalidate, then refetch". Single flight: at most one walk is in flight,
// and triggers during a walk schedule exactly one more walk after it, so a
// burst of notifications costs at most one walk after the last of them
// (two in all when the burst arrives within one walk). No timed debounce:
// it would add its delay to every change.
//
// It knows nothing of the Client: it is given a context that ends when its
// owner closes, a wait group its walks join, and run, which obtains the
// current session, walks every page and applies the result (dropping it when
// a newer session has taken over).
type syncer struct {
	ctx context.Context
	wg  *sync.WaitGroup
	run func(ctx context.Context, cause Cause, since time.Time)

	wake chan struct{} // a walk is due (serve runs it)

	mu      sync.Mutex
	started bool // serve runs
	running bool // a walk is due or in flight
	dirty   bool
	reqGen  uint64 // triggers so far
	doneGen uint64 // triggers covered by finished walks
	waiters []syncWaiter
	// Why the next walk runs: a notification wins over any other cause,
	// and since is the arrival of the first notification it covers.
	cause Cause
	since time.Time
}

type syncWaiter struct {
	gen uint64
	ch  chan struct{}
}

func newSyncer(ctx context.Context, wg *sync.WaitGroup, run func(context.Context, Cause, time.Time)) *syncer {
	return &syncer{ctx: ctx, wg: wg, run: run, wake: make(chan struct{}, 1)}
}

// trigger asks for a re-list; at is when the cause arose (the arrival of a
// notification). The returned channel is closed when a walk that started
// after this call has finished (or the owner closed).
func (s *syncer) trigger(cause Cause, at time.Time) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqGen++
	ch := make(chan struct{})
	s.waiters = append(s.waiters, syncWaiter{s.reqGen, ch})
	switch {
	case cause == CauseNotification && s.cause != CauseNotification:
		s.cause, s.since = cause, at
	case s.cause != CauseNotification:
		s.cause = cause
	}
	if s.ctx.Err() != nil {
		s.release()
		return ch
	}
	if s.running {
		s.dirty = true
		return ch
	}
	s.running = true
	if !s.started {
		s.started = true
		s.wg.Add(1)
		go s.serve()
	}
	s.wake <- struct{}{} // never blocks: one wake per running = true
	return ch
}

// serve runs the walks for the syncer's life: one goroutine, started by the
// first trigger, rather than one per walk (in wasm a new goroutine's stack
// grows, by copying, through the depth of a walk every time).
func (s *syncer) serve() {
	defer s.wg.Done()
	for {
		select {
		case <-s.wake:
			s.loop()
		case <-s.ctx.Done():
			s.mu.Lock()
			s.running = false
			s.release() // every waiter, the owner being closed
			s.mu.Unlock()
			return
		}
	}
}

// loop runs walks until no trigger came during the last one.
func (s *syncer) loop() {
	for {
		s.mu.Lock()
		s.dirty = false
		gen := s.reqGen
		cause, since := s.cause, s.since
		s.cause, s.since = "", time.Time{}
		s.mu.Unlock()

		s.run(s.ctx, cause, since)

		s.mu.Lock()
		s.doneGen = gen
		s.release() // (all of them once the owner is closed)
		if !s.dirty || s.ctx.Err() != nil {
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
	if s.ctx.Err() != nil {
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
