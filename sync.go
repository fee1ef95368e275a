package mcplive

import (
	"context"
	"errors"
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

// liveList is the kind-independent face of a Client's List, for the
// client's loops over the kind registry.
type liveList interface {
	ListView
	syncer() *syncer
	markStale()
	markUnsupported(Cause)
	setLive(bool)
	lastErr() error
}

// liveEnv is what a kind's List and its syncer are handed by their owner
// (a Client): nothing of the owner itself.
type liveEnv struct {
	ctx      context.Context // ends when the owner closes
	wg       *sync.WaitGroup // the syncer's goroutine joins it
	events   *fifo[func()]   // where the List queues its subscribers' calls
	sessions *sessionSlot    // the session the walks list on
	log      Logger
	raw      bool // keep raw items (Options.RawItems)
	seed     *Seed
}

// seedOf returns the seed of kind k, if any.
func seedOf(seeds []Seed, k Kind) *Seed {
	for i := range seeds {
		if seeds[i].Kind == k {
			return &seeds[i]
		}
	}
	return nil
}

// newLive makes the List of one kind, with the syncer that keeps it.
func newLive[T Item, PT rawSetter[T]](spec kindSpec, env liveEnv) liveList {
	l := newList[T](spec, env.events)
	w := &walker{sessions: env.sessions, log: env.log, l: &l.list, seed: env.seed}
	if rawItemsOnly || env.raw {
		l.none = rawEntries(nil)
		l.snap.Items = l.none
		w.newBuilder = newRawBuild(spec)
	} else {
		w.newBuilder = newBuild[T, PT]
	}
	l.sync = newSyncer(env.ctx, env.wg, w.run)
	return l
}

// sessionSlot holds the session that the walks of every list list on and
// counts the sessions (epochs). Its owner sets it when a session begins and
// clears it when the session ends; a walk's result lands only while the
// session it listed on is still the one in the slot, so that a result of
// an older session never overwrites a newer one.
type sessionSlot struct {
	mu    sync.Mutex
	sess  *Session
	epoch uint64
}

// current returns the session and its epoch; nil between sessions.
func (s *sessionSlot) current() (*Session, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess, s.epoch
}

// begin makes sess the current session, of a new epoch.
func (s *sessionSlot) begin(sess *Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sess = sess
	s.epoch++
}

// end leaves the slot without a session.
func (s *sessionSlot) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sess = nil
}

// ifCurrent runs fn, under the slot's lock, only while sess of epoch is
// still the current session.
func (s *sessionSlot) ifCurrent(sess *Session, epoch uint64, fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.epoch == epoch && s.sess == sess {
		fn()
	}
}

// walker runs the walks of one List, the same code for every kind.
type walker struct {
	sessions   *sessionSlot
	log        Logger
	l          *list
	newBuilder func(prev Entries) builder
	// seed is the list kept from an earlier run, until the first sync
	// (only the syncer's goroutine touches it).
	seed *Seed
}

// run is the run function of the List's syncer: each walk lists every page
// on the current session and applies the result unless a newer session has
// taken over meanwhile (an older result never overwrites a newer one).
func (w *walker) run(ctx context.Context, cause Cause, since time.Time) {
	l := w.l
	sess, epoch := w.sessions.current()
	if sess == nil {
		return // no session: the next one re-lists everything
	}
	prev := l.view().Items
	b := w.newBuilder(prev)
	seed := w.seed
	w.seed = nil
	var cache *CacheHint
	var err error
	if cause == CauseInitial && seed.fresh(time.Now()) {
		// Fresh from an earlier run: no walk (caching, 2026-07-28).
		cache, err = seeded(l.spec, seed, b)
		if err != nil {
			w.log.Warn("mcplive: a kept list does not read; walking it", "kind", l.spec.kind, "err", err)
			b = w.newBuilder(prev)
		}
	}
	if cache == nil {
		cache, err = relist(ctx, sess, l.spec, prev, b)
		var refused *cursorRefusedError
		if errors.As(err, &refused) {
			w.log.Info("mcplive: the server refused a cursor; walking the list again from its first page", "kind", l.spec.kind, "err", err.Error())
			b = w.newBuilder(prev)
			cache, err = relist(ctx, sess, l.spec, prev, b)
		}
	}
	var items itemSlice
	if err == nil {
		items = sess.listed(l.spec.kind, b.items())
	}
	w.sessions.ifCurrent(sess, epoch, func() {
		if err == nil {
			l.apply(items, StatusReady, nil, cause, time.Since(since), cache)
			return
		}
		select {
		case <-sess.Done():
			return // the drop marks the list stale; the reconnect re-lists
		default:
		}
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return
		}
		w.log.Warn("mcplive: re-list failed; keeping the last items", "kind", l.spec.kind, "err", err)
		l.setStatus(StatusError, err)
	})
}

// listChanged is the Client's change feed: it re-lists the kinds. It runs
// on the session's dispatcher.
func (c *Client) listChanged(kinds []Kind, at time.Time) {
	for _, k := range kinds {
		c.lists[k].syncer().trigger(CauseNotification, at)
	}
}

// seeded reads a fresh seed into b as the walk's result would be read.
func seeded(spec kindSpec, sd *Seed, b builder) (*CacheHint, error) {
	res := make([]byte, 0, len(sd.Items)+len(spec.field)+5)
	res = append(append(append(append(res, `{"`...), spec.field...), `":`...), sd.Items...)
	res = append(res, '}')
	page, _, _, err := parseListPage(res, nil, spec.field)
	if err == nil {
		err = decodeItems(spec, []listPage{page}, b)
	}
	if err != nil {
		return nil, err
	}
	return &CacheHint{TTL: sd.TTL, HasTTL: true, Scope: sd.Scope, Received: sd.Received}, nil
}
