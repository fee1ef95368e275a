package mcplive

import (
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
