package mcplive

import (
	"context"
	"errors"
	"github.com/mcplive/mcplive/internal/jsonrpc"
	"sync"
	"time"

	"github.com/mcplive/mcplive/internal/listpos"
)

// Status is the state of one live list.
type Status string

// List statuses.
const (
	// StatusLoading: the first sync has not finished.
	StatusLoading Status = "loading"
	// StatusReady: Items is the server's list as of the last sync.
	StatusReady Status = "ready"
	// StatusStale: the connection dropped; Items is the last good list,
	// kept visible until the reconnect re-lists it.
	StatusStale Status = "stale"
	// StatusError: the last re-list failed (Err says why); Items is the
	// last good list. The next notification or Refresh retries.
	StatusError Status = "error"
	// StatusUnsupported: the server does not offer this kind.
	StatusUnsupported Status = "unsupported"
)

// Item is a list entry: Tool, Prompt, Resource or ResourceTemplate.
type Item interface {
	Tool | Prompt | Resource | ResourceTemplate
	// Key is the item's identity in its list: name for tools and
	// prompts, uri for resources, uriTemplate for templates.
	Key() string
	// RawJSON is the item exactly as the server sent it.
	RawJSON() RawMessage
}

// Snapshot is one immutable state of a live list. Do not modify Items:
// it is shared with every other reader.
type Snapshot[T Item] struct {
	Items   []T
	Status  Status
	Err     error
	Version uint64 // grows by one with each applied change of Items
	// Live reports whether the server tells this client when the list
	// changes: in the legacy era whenever it offers the kind (list_changed
	// is honoured even without the listChanged flag), in the modern era
	// when it acknowledged the kind on the subscriptions/listen stream.
	// False while the list is stale: while the client reconnects (until
	// the list is re-listed) and once it is closed. A list that is not
	// live changes only on Refresh or a reconnect.
	Live bool
	// Cache holds the caching hints of the last walk's pages (modern
	// servers send them); nil when the server sent none.
	Cache *CacheHint
}

// CacheHint is what a server said about the freshness of a list: the
// smallest ttlMs of its pages and their cacheScope ("private" when any page
// says so). The stores never poll: a TTL is a freshness hint, not a polling
// interval (spec 2026-07-28, caching), and a list_changed invalidates a list
// whatever its TTL. Received is when the walk's first page arrived (every
// page came at or after it): the list is fresh while time.Since(Received) < TTL.
type CacheHint struct {
	TTL      time.Duration
	HasTTL   bool
	Scope    string
	Received time.Time
}

// sameHint compares two hints but for the time they were received.
func sameHint(a, b *CacheHint) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.TTL == b.TTL && a.HasTTL == b.HasTTL && a.Scope == b.Scope
}

// Update is what subscribers receive: the new snapshot and what changed
// since the previous one. Changed holds the new versions of changed items.
// A change of Status or Err alone has an empty diff and the same Version;
// so has a pure reordering, which does bump Version.
type Update[T Item] struct {
	Snapshot[T]
	Added, Removed, Changed []T
	// Cause says why the list was walked; Latency is the time from the
	// arrival of the notification that caused the walk (the first one,
	// when several were covered by it) to this update, and zero unless
	// Cause is CauseNotification.
	Cause   Cause
	Latency time.Duration
}

// Cause says why a list was walked.
type Cause string

// Causes of a walk.
const (
	CauseInitial      Cause = "initial"      // the first sync after Connect
	CauseNotification Cause = "notification" // the server said the list changed
	CauseReconnect    Cause = "reconnect"    // a new session after a drop
	CauseRefresh      Cause = "refresh"      // Client.Refresh
)

// List is one live list. Its methods are safe for concurrent use.
type List[T Item] struct {
	list
}

// list is the kind-independent core of a List: its state, subscribers and
// diff work on the items through itemSlice, so that a binary holds this code
// once rather than once per kind. Only the conversions to Snapshot[T] and
// Update[T] are per kind.
type list struct {
	spec   kindSpec
	events *jsonrpc.Fifo[func()]
	sync   *syncer   // the Client's refresh of this list
	none   itemSlice // the kind's empty list

	mu     sync.Mutex
	snap   ViewSnapshot // Items is an itemSlice
	unique bool         // snap.Items repeats no key (see diff)
	feed   bool         // the session's feed tells of this kind's changes (setLive)
	subs   watchers[ViewUpdate]
}

// liveAs is what snap.Live says with status: the feed tells of changes
// and the items are not stale (a stale list waits for its re-list: what
// changed meanwhile is not in it yet). Called with l.mu held.
func (l *list) liveAs(status Status) bool { return l.feed && status != StatusStale }

func newList[T Item](spec kindSpec, events *jsonrpc.Fifo[func()]) *List[T] {
	none := entries[T](nil)
	return &List[T]{list{
		spec:   spec,
		events: events,
		none:   none,
		snap:   ViewSnapshot{Items: none, Status: StatusLoading},
		unique: true,
	}}
}

// Kind says which list this is.
func (l *List[T]) Kind() Kind { return l.spec.kind }

// Snapshot returns the current state.
func (l *List[T]) Snapshot() Snapshot[T] { return snapshotOf[T](l.view()) }

// Subscribe calls fn with every applied change and every status change, in
// order, on the client's event goroutine (one for all lists, so updates of
// different lists keep their order too). It does not call fn at once: read
// Snapshot for the current state. The returned function unsubscribes.
func (l *List[T]) Subscribe(fn func(Update[T])) (cancel func()) {
	return l.watch(func(u ViewUpdate) {
		fn(Update[T]{
			Snapshot: snapshotOf[T](u.ViewSnapshot),
			Added:    itemsOf[T](u.Added),
			Removed:  itemsOf[T](u.Removed),
			Changed:  itemsOf[T](u.Changed),
			Cause:    u.Cause,
			Latency:  u.Latency,
		})
	})
}

func (l *list) view() ViewSnapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.snap
}

func (l *list) watch(fn func(ViewUpdate)) (cancel func()) {
	remove := l.subs.add(fn)
	return func() { remove() }
}

// alignment is a walk's new list by positions in the list it started
// from, the list of version base (relister.runs; runs nil: not known),
// with room for what the diff and the update derive from it: after a
// change of a few items, one allocation for all of it.
type alignment struct {
	base    uint64
	runs    []int
	pos     listpos.Positions // what the update hands on (apply)
	runsBuf [6]int
	idx     [3][2]int // diffRuns's added, removed and changed, while few
}

// apply swaps in a new list with status and err, computes the diff against
// the current items and queues one update. It reports whether anything
// visible changed. al is items by positions in the current items, when
// the walk knew it (nil: not known): it holds while the current items are
// still those of version al.base (items change only with the version).
func (l *list) apply(items itemSlice, status Status, err error, cause Cause, latency time.Duration, cache *CacheHint, al *alignment) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if al != nil && al.base != l.snap.Version {
		al = nil
	}
	oldUnique := l.unique
	added, removed, changed, reordered, unique, rem := diff(l.snap.Items.(itemSlice), items, oldUnique, al)
	itemsChanged := added.Len()+removed.Len()+changed.Len() > 0 || reordered
	if !itemsChanged && status == l.snap.Status && sameErr(err, l.snap.Err) && sameHint(cache, l.snap.Cache) {
		// Only the time of the walk moved: readers see it, subscribers
		// are not woken for it.
		l.snap.Cache = cache
		return false
	}
	next := ViewSnapshot{Items: l.snap.Items, Status: status, Err: err, Version: l.snap.Version, Live: l.liveAs(status), Cache: cache}
	if itemsChanged {
		next.Items = items
		next.Version++
		l.unique = unique
	}
	l.snap = next
	u := ViewUpdate{ViewSnapshot: next, Added: added, Removed: removed, Changed: changed, Cause: cause}
	if itemsChanged && al != nil && al.runs != nil {
		al.pos = listpos.Positions{Runs: al.runs, RemovedAt: rem}
		u.pos = &al.pos
	}
	if cause == CauseNotification {
		u.Latency = latency
	}
	l.publish(u)
	return true
}

// setStatus changes status and err and keeps the items.
func (l *list) setStatus(status Status, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if status == l.snap.Status && sameErr(err, l.snap.Err) {
		return
	}
	l.snap.Status, l.snap.Err = status, err
	l.snap.Live = l.liveAs(status)
	l.publishState()
}

// publishState queues an update of the state alone, with an empty diff.
// Called with l.mu held.
func (l *list) publishState() {
	l.publish(ViewUpdate{ViewSnapshot: l.snap, Added: l.none, Removed: l.none, Changed: l.none})
}

// publish queues u for the subscribers registered now that are still
// registered when it is delivered (watchers.publish): one that subscribes
// later already holds u in its Snapshot and must not get its diff again.
// Called with l.mu held, so updates are queued in the order applied.
func (l *list) publish(u ViewUpdate) { l.subs.publish(l.events, u) }

// markStale turns a list that had been synced "stale", keeping its items,
// and not live: nothing keeps it in sync until a new session re-lists it
// (and, in 2026-07-28, its listen stream is open again). One update.
func (l *list) markStale() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.feed = false
	stale := l.snap.Status == StatusReady || l.snap.Status == StatusError
	if !stale && !l.snap.Live {
		return
	}
	if stale {
		l.snap.Status, l.snap.Err = StatusStale, nil
	}
	l.snap.Live = false
	l.publishState()
}

// markUnsupported empties the list of a kind the server does not offer.
func (l *list) markUnsupported(cause Cause) {
	l.apply(l.none, StatusUnsupported, nil, cause, 0, nil, nil)
}

// setLive records whether the server tells this client of changes; a
// stale list shows it live once it is re-listed (liveAs).
func (l *list) setLive(live bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.feed = live
	if l.snap.Live == l.liveAs(l.snap.Status) {
		return
	}
	l.snap.Live = l.liveAs(l.snap.Status)
	l.publishState()
}

func (l *list) lastErr() error { return l.view().Err }

func (l *list) syncer() *syncer { return l.sync }

func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// diff compares two lists by key. Items whose key is in both but whose raw
// JSON differs are changed. reordered reports the same set of keys in a
// different order. A key repeated within a list counts once (first wins).
// oldUnique says that old has no repeated key (known from the diff that
// made it current); curUnique says the same of cur, for the next diff.
//
// Most diffs are of lists that differ in a few places: given al, the walk's
// alignment of cur with old, they are compared in the places where the
// walk found new items (diffRuns), without hashing every key of both
// lists; in wasm, where maps hash without AES, two maps of 10,000 keys
// cost more than the rest of the diff. rem is the positions of removed in
// old.
func diff(old, cur itemSlice, oldUnique bool, al *alignment) (added, removed, changed itemSlice, reordered, curUnique bool, rem []int) {
	if oldUnique && al != nil && al.runs != nil {
		if add, rem, chg, ok := diffRuns(old, cur, al.runs, &al.idx); ok {
			return cur.pick(add), old.pick(rem), cur.pick(chg), false, true, rem
		}
	}
	nOld, nCur := old.Len(), cur.Len()
	var add, chg []int
	oldByKey := make(map[string]int, nOld)
	for i := range nOld {
		k := old.Key(i)
		if _, dup := oldByKey[k]; !dup {
			oldByKey[k] = i
		}
	}
	curUnique = true
	seen := make(map[string]bool, nCur)
	for i := range nCur {
		k := cur.Key(i)
		if seen[k] {
			curUnique = false
			continue
		}
		seen[k] = true
		j, ok := oldByKey[k]
		switch {
		case !ok:
			add = append(add, i)
		case !sameBytes(old.RawJSON(j), cur.RawJSON(i)):
			chg = append(chg, i)
		}
		if ok && (i >= nOld || old.Key(i) != k) {
			reordered = true
		}
	}
	for i := range nOld {
		if k := old.Key(i); !seen[k] {
			rem = append(rem, i)
			seen[k] = true // report a duplicate key once
		}
	}
	if nOld != nCur {
		reordered = reordered || (len(add) == 0 && len(rem) == 0)
	}
	return cur.pick(add), old.pick(rem), cur.pick(chg), reordered, curUnique, rem
}

// diffRuns is diff for an old list without repeated keys and a new one
// given by runs, its alignment with old (relister.runs): a reused run is
// old's items as they are; the fresh items between two reused runs are
// changed versions of old's items between them, with the same key in the
// same order, or added; old's other items there are removed. It gives up
// (ok false) on a reused run that goes back (a move), on more than
// maxAligned added items, and on an added key that old has (a move) or
// that is added twice (a repeat), which diff then compares by key. It
// compares keys only in the gaps of the reused runs.
func diffRuns(old, cur itemSlice, runs []int, idx *[3][2]int) (add, rem, chg []int, ok bool) {
	nOld, nCur := old.Len(), cur.Len()
	add, rem, chg = idx[0][:0], idx[1][:0], idx[2][:0]
	i, o := 0, 0 // the next items of cur and of old
	fresh := 0   // items of cur from i on, decoded anew
	// Past the last run, the gap up to the end of old.
	for r := 0; r <= len(runs); r += 2 {
		x, n := nOld, 0
		if r < len(runs) {
			if x, n = runs[r], runs[r+1]; x < 0 {
				fresh += n
				continue
			}
		}
		if x < o || x+n > nOld || i+fresh+n > nCur {
			return nil, nil, nil, false
		}
		// The gap: old[o:x] and the fresh items before x.
		for ; fresh > 0; fresh, i = fresh-1, i+1 {
			p := indexKey(old, cur.Key(i), o, x)
			if p < 0 {
				if len(add) >= maxAligned {
					return nil, nil, nil, false
				}
				add = append(add, i)
				continue
			}
			for ; o < p; o++ {
				rem = append(rem, o)
			}
			chg = append(chg, i)
			o++
		}
		for ; o < x; o++ {
			rem = append(rem, o)
		}
		i, o = i+n, x+n
	}
	if i != nCur {
		return nil, nil, nil, false
	}
	for n, a := range add {
		k := cur.Key(a)
		if hasKey(old, k, 0, nOld) {
			return nil, nil, nil, false
		}
		for _, b := range add[:n] {
			if cur.Key(b) == k {
				return nil, nil, nil, false
			}
		}
	}
	return add, rem, chg, true
}

// maxAligned bounds the items diffRuns takes as added: each costs a
// comparison with every key of the list.
const maxAligned = 16

// indexKey returns the index of key k in e[from:to], or -1.
func indexKey(e Entries, k string, from, to int) int {
	for i := from; i < to; i++ {
		if e.Key(i) == k {
			return i
		}
	}
	return -1
}

func hasKey(e Entries, k string, from, to int) bool { return indexKey(e, k, from, to) >= 0 }

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
			w.log.Warn("mcplive: a kept list does not read; walking it", "kind", l.spec.kind, "err", err)
			b = w.newBuilder(prev)
		} else if prev.Len() == 0 {
			al.runs = freshRuns(al.runsBuf[:0], b.items().Len())
		}
	}
	if cache == nil {
		cache, al.runs, err = relist(ctx, sess, l.spec, prev, b, al.runsBuf[:0])
		var refused *cursorRefusedError
		if errors.As(err, &refused) {
			w.log.Info("mcplive: the server refused a cursor; walking the list again from its first page", "kind", l.spec.kind, "err", err.Error())
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
