package mcplive

import (
	"slices"
	"sync"

	"github.com/mcplive/mcplive/internal/jsonrpc"
)

// watchers is the one registry of subscriber callbacks (a list's, the
// connection state's, a resource URI's): in subscription order, each
// removable once. It has its own lock, taken inside its owner's and never
// around a callback.
type watchers[T any] struct {
	mu    sync.Mutex
	fns   map[int]func(T)
	order []int
	next  int
}

// add registers fn; remove unregisters it and reports whether it was still
// registered (a second call does nothing).
func (w *watchers[T]) add(fn func(T)) (remove func() bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fns == nil {
		w.fns = make(map[int]func(T))
	}
	w.next++
	id := w.next
	w.fns[id] = fn
	w.order = append(w.order, id)
	return func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		if _, ok := w.fns[id]; !ok {
			return false
		}
		delete(w.fns, id)
		w.order = slices.DeleteFunc(w.order, func(v int) bool { return v == id })
		return true
	}
}

// len says how many are registered.
func (w *watchers[T]) len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.order)
}

// now returns the callbacks registered now, in subscription order.
func (w *watchers[T]) now() []func(T) {
	w.mu.Lock()
	ids := slices.Clone(w.order)
	w.mu.Unlock()
	return w.still(ids)
}

// still returns, in order, those of the callbacks registered at ids that
// are registered still.
func (w *watchers[T]) still(ids []int) []func(T) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]func(T), 0, len(ids))
	for _, id := range ids {
		if fn, ok := w.fns[id]; ok {
			out = append(out, fn)
		}
	}
	return out
}

// publish queues on events one delivery of v to the callbacks registered
// now that are still registered when it runs: one that subscribes later
// already holds v in what it read, and must not get it again. Called with
// the owner's lock held, deliveries are queued in the order published.
func (w *watchers[T]) publish(events *jsonrpc.Fifo[func()], v T) {
	w.mu.Lock()
	ids := slices.Clone(w.order)
	w.mu.Unlock()
	events.Push(func() {
		for _, fn := range w.still(ids) {
			fn(v)
		}
	})
}
