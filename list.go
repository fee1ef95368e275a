package mcplive

import (
	"sync"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
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

// maxAligned bounds the items diffRuns takes as added: each costs a
// comparison with every key of the list.
const maxAligned = 16
