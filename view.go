package mcplive

import (
	"time"

	"github.com/mcplive/mcplive/internal/listpos"
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
	RawJSON(i int) RawMessage
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
	// pos is Items by positions in the items before the update, when the
	// walk knew them (nil: not known); the wasm binding reads it through
	// listpos.Of. (A pointer: ViewUpdate stays comparable.)
	pos *listpos.Positions
}

func init() {
	listpos.Of = func(u any) (listpos.Positions, bool) {
		if p := u.(*ViewUpdate).pos; p != nil {
			return *p, true
		}
		return listpos.Positions{}, false
	}
}

// entries views a slice of items as Entries without copying it.
type entries[T Item] []T

func (e entries[T]) Len() int                 { return len(e) }
func (e entries[T]) Key(i int) string         { return e[i].Key() }
func (e entries[T]) RawJSON(i int) RawMessage { return e[i].RawJSON() }

func (e entries[T]) note(i int) *any {
	if t, ok := any(&e[i]).(*Tool); ok {
		return &t.note
	}
	return nil
}

// itemSlice is entries[T] for the kind-independent code of a List: the
// items of a snapshot or an update, whatever their kind.
type itemSlice interface {
	Entries
	// pick returns the items at idx, in that order.
	pick(idx []int) itemSlice
}

func (e entries[T]) pick(idx []int) itemSlice {
	if len(idx) == 0 {
		return entries[T](nil)
	}
	out := make(entries[T], len(idx))
	for n, i := range idx {
		out[n] = e[i]
	}
	return out
}

// itemsOf returns the items e views, decoded from their raw JSON when the
// list keeps only that (Options.RawItems).
func itemsOf[T Item](e Entries) []T {
	switch e := e.(type) {
	case entries[T]:
		return e
	case rawEntries:
		return decodeRaw[T](e)
	}
	return nil
}

func snapshotOf[T Item](v ViewSnapshot) Snapshot[T] {
	return Snapshot[T]{Items: itemsOf[T](v.Items), Status: v.Status, Err: v.Err, Version: v.Version, Live: v.Live, Cache: v.Cache}
}

// View returns the current state as a ViewSnapshot.
func (l *List[T]) View() ViewSnapshot { return l.view() }

// WatchView subscribes fn to kind-independent updates (see Subscribe).
func (l *List[T]) WatchView(fn func(ViewUpdate)) (cancel func()) { return l.watch(fn) }
