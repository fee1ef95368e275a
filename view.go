package mcplive

import (
	"encoding/json"
	"time"
)

// ListView is the kind-independent face of a List, for code that serves
// every kind alike (the wasm binding loops over Kinds with it). It reads
// the same state as the List: no copies of the items.
type ListView interface {
	Kind() Kind
	// View returns the current state.
	View() ViewSnapshot
	// WatchView is Subscribe with kind-independent updates.
	WatchView(fn func(ViewUpdate)) (cancel func())
}

// Entries is a read-only view of a list's items: their keys and their JSON
// as the server sent it.
type Entries interface {
	Len() int
	Key(i int) string
	RawJSON(i int) json.RawMessage
}

// ViewSnapshot is Snapshot for a ListView.
type ViewSnapshot struct {
	Items   Entries
	Status  Status
	Err     error
	Version uint64
	Live    bool
	Cache   *CacheHint
}

// ViewUpdate is Update for a ListView.
type ViewUpdate struct {
	ViewSnapshot
	Added, Removed, Changed Entries
	Cause                   Cause
	Latency                 time.Duration
}

// entries views a slice of items as Entries without copying it.
type entries[T Item] []T

func (e entries[T]) Len() int                      { return len(e) }
func (e entries[T]) Key(i int) string              { return e[i].Key() }
func (e entries[T]) RawJSON(i int) json.RawMessage { return e[i].RawJSON() }

func viewOf[T Item](s Snapshot[T]) ViewSnapshot {
	return ViewSnapshot{Items: entries[T](s.Items), Status: s.Status, Err: s.Err, Version: s.Version, Live: s.Live, Cache: s.Cache}
}

// View returns the current state as a ViewSnapshot.
func (l *List[T]) View() ViewSnapshot { return viewOf(l.Snapshot()) }

// WatchView subscribes fn to kind-independent updates (see Subscribe).
func (l *List[T]) WatchView(fn func(ViewUpdate)) (cancel func()) {
	return l.Subscribe(func(u Update[T]) {
		fn(ViewUpdate{
			ViewSnapshot: viewOf(u.Snapshot),
			Added:        entries[T](u.Added),
			Removed:      entries[T](u.Removed),
			Changed:      entries[T](u.Changed),
			Cause:        u.Cause,
			Latency:      u.Latency,
		})
	})
}
