package mcplive

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
)

// fifo is an unbounded queue with one consumer: producers (the read loop,
// list syncers) never block on a slow consumer.
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

// pop returns the next item; false once the queue is closed and empty:
// items pushed before close are still delivered.
func (q *fifo[T]) pop() (T, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			v := q.items[0]
			var zero T
			q.items[0] = zero
			q.items = q.items[1:]
			q.mu.Unlock()
			return v, true
		}
		if q.closed {
			q.mu.Unlock()
			var zero T
			return zero, false
		}
		q.mu.Unlock()
		<-q.signal
	}
}

// goid returns the current goroutine's id. Close uses it to tell whether it
// runs inside a callback of the goroutine it would otherwise wait for.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}
