package jsonrpc

import (
	"context"
	"sync"
)

// Fifo is the module's one queue: unbounded, with one consumer, so that
// producers (the read loop, list syncers, the HTTP transport's streams)
// never block on a slow consumer. It carries a Connection's notifications
// to its dispatcher, the Client's deliveries to its event goroutine
// (the root package's client_events.go), and the Streamable HTTP transport's
// messages to its Read (http.go). Init must be called before use.
type Fifo[T any] struct {
	mu     sync.Mutex
	items  []T
	closed bool
	signal chan struct{}
}

// Init makes q ready.
func (q *Fifo[T]) Init() { q.signal = make(chan struct{}, 1) }

// Push queues v.
func (q *Fifo[T]) Push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.wake()
}

func (q *Fifo[T]) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// Close closes the queue: what it holds is still delivered.
func (q *Fifo[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.wake()
}

// Drop closes the queue and discards what it holds.
func (q *Fifo[T]) Drop() {
	q.mu.Lock()
	q.closed = true
	clear(q.items)
	q.items = nil
	q.mu.Unlock()
	q.wake()
}

// Pop returns the next item; false once the queue is closed and empty:
// items pushed before close are still delivered.
func (q *Fifo[T]) Pop() (T, bool) {
	v, ok, _ := q.PopCtx(context.Background())
	return v, ok
}

// PopCtx is Pop that gives up with ctx's error when ctx ends first.
func (q *Fifo[T]) PopCtx(ctx context.Context) (T, bool, error) {
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
