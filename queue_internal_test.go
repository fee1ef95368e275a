package mcplive

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestWatchers: a delivery reaches, in subscription order, the watchers
// registered when it was published that are registered still; never one
// added after it, nor one removed before it ran.
func TestWatchers(t *testing.T) {
	var events fifo[func()]
	events.init()
	var w watchers[int]
	var got []string
	rec := func(name string) func(int) { return func(v int) { got = append(got, name+":"+string(rune('0'+v))) } }
	removeA := w.add(rec("a"))
	w.add(rec("b"))
	w.publish(&events, 1) // a and b
	removeC := w.add(rec("c"))
	if !removeA() || removeA() {
		t.Fatal("remove: true the first time, false after")
	}
	w.publish(&events, 2) // b and c
	removeC()
	events.close()
	for fn, ok := events.pop(); ok; fn, ok = events.pop() {
		fn()
	}
	if want := []string{"b:1", "b:2"}; !slices.Equal(got, want) {
		t.Errorf("deliveries %v, want %v (a removed before 1 ran, c added after 1 and removed before 2 ran)", got, want)
	}
	if n := w.len(); n != 1 {
		t.Errorf("len = %d, want 1", n)
	}

	// Nothing registered at publish: a watcher added later gets nothing.
	var empty watchers[int]
	var ev2 fifo[func()]
	ev2.init()
	empty.publish(&ev2, 1)
	late := 0
	empty.add(func(int) { late++ })
	ev2.close()
	for fn, ok := ev2.pop(); ok; fn, ok = ev2.pop() {
		fn()
	}
	if late != 0 {
		t.Errorf("a watcher added after the publish got it %d times", late)
	}
}

// TestFifo: items come out in order; close lets the consumer read what is
// queued, then reports the end; drop discards it; popCtx gives up with its
// context's error, and a push wakes a consumer that waits.
func TestFifo(t *testing.T) {
	var q fifo[int]
	q.init()
	q.push(1)
	q.push(2)
	if v, ok := q.pop(); !ok || v != 1 {
		t.Fatalf("pop = %d, %v; want 1", v, ok)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v, ok, err := q.popCtx(ctx); !ok || v != 2 || err != nil {
		t.Fatalf("popCtx with an item queued = %d, %v, %v; want 2 (an item first, even with ctx done)", v, ok, err)
	}
	if _, ok, err := q.popCtx(ctx); ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("popCtx of an empty queue with ctx done = %v, %v; want context.Canceled", ok, err)
	}
	got := make(chan int)
	go func() {
		v, _ := q.pop()
		got <- v
	}()
	q.push(3)
	if v := <-got; v != 3 {
		t.Fatalf("a waiting pop got %d, want 3", v)
	}
	q.push(4)
	q.close()
	if v, ok := q.pop(); !ok || v != 4 {
		t.Fatalf("pop after close = %d, %v; want the queued 4", v, ok)
	}
	if _, ok := q.pop(); ok {
		t.Fatal("pop of a closed, empty queue: ok")
	}
	var d fifo[int]
	d.init()
	d.push(5)
	d.drop()
	if v, ok, err := d.popCtx(context.Background()); ok || err != nil {
		t.Fatalf("popCtx after drop = %d, %v, %v; want the end, nothing queued", v, ok, err)
	}
}
