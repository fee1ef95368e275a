package jsonrpc

import (
	"context"
	"errors"
	"testing"
)

// TestFifo: items come out in order; close lets the consumer read what is
// queued, then reports the end; drop discards it; popCtx gives up with its
// context's error, and a push wakes a consumer that waits.
func TestFifo(t *testing.T) {
	var q Fifo[int]
	q.Init()
	q.Push(1)
	q.Push(2)
	if v, ok := q.Pop(); !ok || v != 1 {
		t.Fatalf("pop = %d, %v; want 1", v, ok)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v, ok, err := q.PopCtx(ctx); !ok || v != 2 || err != nil {
		t.Fatalf("popCtx with an item queued = %d, %v, %v; want 2 (an item first, even with ctx done)", v, ok, err)
	}
	if _, ok, err := q.PopCtx(ctx); ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("popCtx of an empty queue with ctx done = %v, %v; want context.Canceled", ok, err)
	}
	got := make(chan int)
	go func() {
		v, _ := q.Pop()
		got <- v
	}()
	q.Push(3)
	if v := <-got; v != 3 {
		t.Fatalf("a waiting pop got %d, want 3", v)
	}
	q.Push(4)
	q.Close()
	if v, ok := q.Pop(); !ok || v != 4 {
		t.Fatalf("pop after close = %d, %v; want the queued 4", v, ok)
	}
	if _, ok := q.Pop(); ok {
		t.Fatal("pop of a closed, empty queue: ok")
	}
	var d Fifo[int]
	d.Init()
	d.Push(5)
	d.Drop()
	if v, ok, err := d.PopCtx(context.Background()); ok || err != nil {
		t.Fatalf("popCtx after drop = %d, %v, %v; want the end, nothing queued", v, ok, err)
	}
}
