package mcplive

import (
	"context"
	"slices"
	"sync"
)

// fifo is the package's one queue: unbounded, with one consumer, so that
// producers (the read loop, list syncers, the HTTP transport's streams)
// never block on a slow consumer. It carries the session's notifications
// to its dispatcher (jsonrpc.go), the Client's deliveries to its event
// goroutine (below), and the Streamable HTTP transport's messages to its
// Read (http.go).
type fifo[T any] struct {
	mu     sync.Mutex
	items  []T
	closed bool
	signal chan struct{}
}

func (q *fifo[T]) init() { q.signal = make(chan struct{}, 1) }

func (q *fifo[T]) push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.wake()
}

func (q *fifo[T]) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *fifo[T]) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.wake()
}

// drop closes the queue and discards what it holds.
func (q *fifo[T]) drop() {
	q.mu.Lock()
	q.closed = true
	clear(q.items)
	q.items = nil
	q.mu.Unlock()
	q.wake()
}

// pop returns the next item; false once the queue is closed and empty:
// items pushed before close are still delivered.
func (q *fifo[T]) pop() (T, bool) {
	v, ok, _ := q.popCtx(context.Background())
	return v, ok
}

// popCtx is pop that gives up with ctx's error when ctx ends first.
func (q *fifo[T]) popCtx(ctx context.Context) (T, bool, error) {
	var zero T
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			v := q.items[0]
			q.items[0] = zero
			q.items = q.items[1:]
			q.mu.Unlock()
			return v, true, nil
		}
		if q.closed {
			q.mu.Unlock()
			return zero, false, nil
		}
		q.mu.Unlock()
		select {
		case <-q.signal:
		case <-ctx.Done():
			return zero, false, ctx.Err()
		}
	}
}

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
func (w *watchers[T]) publish(events *fifo[func()], v T) {
	w.mu.Lock()
	ids := slices.Clone(w.order)
	w.mu.Unlock()
	events.push(func() {
		for _, fn := range w.still(ids) {
			fn(v)
		}
	})
}

// The Client's event goroutine runs, in order, what its lists and its
// state queued on c.events (watchers.publish): the subscriber callbacks.

// It says when it runs one (inCallback), so that Close never waits for a
// callback, which may be Close's own caller.
func (c *Client) eventLoop() {
	defer close(c.evDone)
	for {
		fn, ok := c.events.pop()
		if !ok {
			return
		}
		c.inCallback.Store(true)
		c.safeCall(fn)
		c.inCallback.Store(false)
	}
}

// safeCall runs a subscriber callback; a panic in it is logged, not fatal
// (in wasm a panic would end the runtime for the whole page).
func (c *Client) safeCall(fn func()) {
	defer func() {
		if r := recover(); r != nil {
			c.opts.Logger.Error("mcplive: subscriber panicked", "panic", r)
		}
	}()
	fn()
}
