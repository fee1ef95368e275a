package mcplive

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"
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
	RawJSON() json.RawMessage
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
	// when it acknowledged the kind on the subscriptions/listen stream. A
	// list that is not live changes only on Refresh or a reconnect.
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

// merge folds one page's hints into h (nil: none so far). The walk sets
// Received once, when its last page has come (time.Now is a call into JS
// in the browser: not one per page).
func (h *CacheHint) merge(p pageInfo) *CacheHint {
	if p.ttlMs < 0 && p.cacheScope == "" {
		return h
	}
	if h == nil {
		h = &CacheHint{}
	}
	if ttl := time.Duration(p.ttlMs) * time.Millisecond; p.ttlMs >= 0 && (!h.HasTTL || ttl < h.TTL) {
		h.TTL, h.HasTTL = ttl, true
	}
	if h.Scope != "private" && p.cacheScope != "" {
		h.Scope = p.cacheScope
	}
	return h
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
	events *fifo[func()]
	sync   *syncer   // the Client's refresh of this list
	none   itemSlice // the kind's empty list

	mu     sync.Mutex
	snap   ViewSnapshot // Items is an itemSlice
	unique bool         // snap.Items repeats no key (see diff)
	subs   watchers[ViewUpdate]
}

func newList[T Item](spec kindSpec, events *fifo[func()]) *List[T] {
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
// visible changed.
func (l *list) apply(items itemSlice, status Status, err error, cause Cause, latency time.Duration, cache *CacheHint) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	added, removed, changed, reordered, unique := diff(l.snap.Items.(itemSlice), items, l.unique)
	itemsChanged := added.Len()+removed.Len()+changed.Len() > 0 || reordered
	if !itemsChanged && status == l.snap.Status && sameErr(err, l.snap.Err) && sameHint(cache, l.snap.Cache) {
		// Only the time of the walk moved: readers see it, subscribers
		// are not woken for it.
		l.snap.Cache = cache
		return false
	}
	next := ViewSnapshot{Items: l.snap.Items, Status: status, Err: err, Version: l.snap.Version, Live: l.snap.Live, Cache: cache}
	if itemsChanged {
		next.Items = items
		next.Version++
		l.unique = unique
	}
	l.snap = next
	u := ViewUpdate{ViewSnapshot: next, Added: added, Removed: removed, Changed: changed, Cause: cause}
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

// markStale turns a list that had been synced "stale", keeping its items:
// nothing keeps it in sync until a new session re-lists it.
func (l *list) markStale() {
	l.mu.Lock()
	s := l.snap.Status
	l.mu.Unlock()
	if s == StatusReady || s == StatusError {
		l.setStatus(StatusStale, nil)
	}
}

// markUnsupported empties the list of a kind the server does not offer.
func (l *list) markUnsupported(cause Cause) { l.apply(l.none, StatusUnsupported, nil, cause, 0, nil) }

// setLive records whether the server tells this client of changes.
func (l *list) setLive(live bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.snap.Live == live {
		return
	}
	l.snap.Live = live
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
// Most diffs are of lists that differ in a few places: they are compared
// side by side (diffAligned), without hashing every key of both lists; in
// wasm, where maps hash without AES, two maps of 10,000 keys cost more than
// the rest of the diff.
func diff(old, cur itemSlice, oldUnique bool) (added, removed, changed itemSlice, reordered, curUnique bool) {
	if oldUnique {
		if add, rem, chg, ok := diffAligned(old, cur); ok {
			return cur.pick(add), old.pick(rem), cur.pick(chg), false, true
		}
	}
	nOld, nCur := old.Len(), cur.Len()
	var add, rem, chg []int
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
	return cur.pick(add), old.pick(rem), cur.pick(chg), reordered, curUnique
}

// maxAligned bounds the keys that differ in place for diffAligned: each
// costs a comparison with every key of the list.
const maxAligned = 16

// lookAhead is how far diffAligned looks for the key it expected.
const lookAhead = 8

// diffAligned is diff for an old list without repeated keys and a new one
// that keeps the others' order: both are walked side by side, and where
// their keys part, a few items on either side are taken as added or
// removed (at most maxAligned in all, each found within lookAhead). It
// gives up (ok false) on more, on a key that moved, and on a new list that
// repeats a key, which diff then compares by key. With add and rem empty,
// the lists have the same keys in the same order: not reordered.
func diffAligned(old, cur itemSlice) (add, rem, chg []int, ok bool) {
	nOld, nCur := old.Len(), cur.Len()
	i, j := 0, 0
	for i < nOld || j < nCur {
		if len(add)+len(rem) > maxAligned {
			return nil, nil, nil, false
		}
		if i < nOld && j < nCur {
			k := old.Key(i)
			if k == cur.Key(j) {
				if !sameBytes(old.RawJSON(i), cur.RawJSON(j)) {
					chg = append(chg, j)
				}
				i, j = i+1, j+1
				continue
			}
			// Items added before old's next key, or removed before
			// cur's; otherwise old's is replaced by cur's.
			if d := indexKey(cur, k, j+1, min(nCur, j+1+lookAhead)); d > 0 {
				for ; j < d; j++ {
					add = append(add, j)
				}
				continue
			}
			if d := indexKey(old, cur.Key(j), i+1, min(nOld, i+1+lookAhead)); d > 0 {
				for ; i < d; i++ {
					rem = append(rem, i)
				}
				continue
			}
		}
		if i < nOld {
			rem = append(rem, i)
			i++
		}
		if j < nCur {
			add = append(add, j)
			j++
		}
	}
	if len(add)+len(rem) > maxAligned {
		return nil, nil, nil, false
	}
	// An added key that old has is a move or a repeat; two added keys
	// alike are a repeat. (A removed key that cur has is one of these.)
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

// sameBytes is bytes.Equal that answers at once for the same slice: a
// re-list reuses unchanged items, raw JSON included.
func sameBytes(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return bytes.Equal(a, b)
}
