package mcplive

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
)

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
	ctx      context.Context       // ends when the owner closes
	wg       *sync.WaitGroup       // the syncer's goroutine joins it
	events   *jsonrpc.Fifo[func()] // where the List queues its subscribers' calls
	sessions *sessionSlot          // the session the walks list on
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
	before := l.view()
	prev := before.Items
	b := w.newBuilder(prev)
	seed := w.seed
	w.seed = nil
	var cache *CacheHint
	al := &alignment{base: before.Version}
	var err error
	if cause == CauseInitial && seed.fresh(time.Now()) {
		// Fresh from an earlier run: no walk (caching, 2026-07-28).
		cache, err = seeded(l.spec, seed, b)
		if err != nil {
			w.log.Warn("mcplive: a kept list does not read; walking it", "kind", string(l.spec.kind), "err", err)
			b = w.newBuilder(prev)
		} else if prev.Len() == 0 {
			al.runs = freshRuns(al.runsBuf[:0], b.items().Len())
		}
	}
	if cache == nil {
		cache, al.runs, err = relist(ctx, sess, l.spec, prev, b, al.runsBuf[:0])
		var refused *cursorRefusedError
		if errors.As(err, &refused) {
			w.log.Info("mcplive: the server refused a cursor; walking the list again from its first page", "kind", string(l.spec.kind), "err", err.Error())
			b = w.newBuilder(prev)
			cache, al.runs, err = relist(ctx, sess, l.spec, prev, b, al.runsBuf[:0])
		}
	}
	var items itemSlice
	if err == nil {
		items = sess.listed(l.spec.kind, b.items())
		if items.Len() != b.items().Len() {
			al.runs = nil // tools left out (paramMirror): diff aligns the lists itself
		}
	}
	w.sessions.ifCurrent(sess, epoch, func() {
		if err == nil {
			l.apply(items, StatusReady, nil, cause, time.Since(since), cache, al)
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
		w.log.Warn("mcplive: re-list failed; keeping the last items", "kind", string(l.spec.kind), "err", err)
		l.setStatus(StatusError, err)
	})
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
