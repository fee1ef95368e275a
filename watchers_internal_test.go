package mcplive

import (
	"github.com/mcplive/mcplive/internal/jsonrpc"
	"slices"
	"testing"
)

// TestWatchers: a delivery reaches, in subscription order, the watchers
// registered when it was published that are registered still; never one
// added after it, nor one removed before it ran.
func TestWatchers(t *testing.T) {
	var events jsonrpc.Fifo[func()]
	events.Init()
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
	events.Close()
	for fn, ok := events.Pop(); ok; fn, ok = events.Pop() {
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
	var ev2 jsonrpc.Fifo[func()]
	ev2.Init()
	empty.publish(&ev2, 1)
	late := 0
	empty.add(func(int) { late++ })
	ev2.Close()
	for fn, ok := ev2.Pop(); ok; fn, ok = ev2.Pop() {
		fn()
	}
	if late != 0 {
		t.Errorf("a watcher added after the publish got it %d times", late)
	}
}
