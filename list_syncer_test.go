package mcplive_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/scripted"
)

// Rule: single flight. A burst of notifications that arrives while a
// re-list is in flight schedules exactly one more re-list, and that one
// sees the change the first one missed.
func TestLiveBurstDuringRelistCostsOneMore(t *testing.T) {
	t.Parallel()
	const burst = 1000
	srv := liveScripted(t, "", 2)
	srv.Set(scripted.Tools, scripted.Tool("a", "v1"), scripted.Tool("b"), scripted.Tool("c"), scripted.Tool("d"), scripted.Tool("e"))
	routed := newLiveCounter()
	allRouted := make(chan struct{})
	held := make(chan struct{})
	var hold atomic.Bool
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "tools/list" && r.Cursor() == "" && hold.CompareAndSwap(true, false) {
			close(held)
			select { // answer the first page only once the whole burst has been handled
			case <-allRouted:
			case <-r.Done:
			}
		}
		return nil
	}
	o := liveOptions()
	o.OnNotification = func(method string, _ json.RawMessage) {
		if method == liveNotifyTools {
			routed.add()
		}
	}
	walks := liveCountWalks(t, srv.URL, o)
	c := liveConnect(t, srv.URL, o)
	walks0, lists0 := walks.of(mcplive.KindTools), srv.Count("tools/list")

	// The first notification starts a walk whose first page is taken now,
	// with a@v1, and held. Then a changes, and 999 more notifications come
	// while the walk is in flight.
	hold.Store(true)
	srv.Notify(liveNotifyTools, nil)
	liveRecv(t, held, "first page request")
	srv.Update(scripted.Tools, func(items []json.RawMessage) []json.RawMessage {
		items[0] = scripted.Tool("a", "v2")
		return items
	})
	srv.Burst(liveNotifyTools, nil, burst-1)
	routed.await(t, burst, "notifications handled") // each one in turn: no budget for the whole burst
	close(allRouted)

	liveWait(t, c.Tools(), "a@v2", func(s mcplive.Snapshot[mcplive.Tool]) bool { return liveDescs(s.Items)["a"] == "v2" })
	// Refresh is a barrier: it returns after a walk that started after it.
	if err := c.Refresh(liveCtx(t), mcplive.KindTools); err != nil {
		t.Fatal(err)
	}
	if n := walks.of(mcplive.KindTools) - walks0; n != 3 {
		t.Errorf("walks: %d for a burst of %d during one walk, then a Refresh; want 3 (the walk, exactly one more, the Refresh)", n, burst)
	}
	if n := srv.Count("tools/list") - lists0; n != 3*3 {
		t.Errorf("tools/list requests: %d, want 9 (3 walks of 3 pages)", n)
	}
	if n := srv.MaxInFlight("tools/list"); n != 1 {
		t.Errorf("tools/list requests in flight at once: %d, want 1", n)
	}
}

// Rule: single flight, under a real burst: 1000 notifications back-to-back
// cost one walk at most after the last of them is handled, never two walks
// at once, and the list ends equal to the server's. How many walks the
// burst itself overlaps is up to the machine: on an idle one its 1000
// notifications are handled within a walk or two (at most two re-lists
// after the first, as TestLiveBurstDuringRelistCostsOneMore proves with the
// walk held); a busy one handles them more slowly, and each walk that ends
// meanwhile is followed by one more.
func TestLiveBurstCostsOneWalkAfterIt(t *testing.T) {
	t.Parallel()
	const burst = 1000
	srv := liveScripted(t, "", 2)
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"), scripted.Tool("c"))
	routed := newLiveCounter()
	var connected atomic.Bool
	var walksAtLast atomic.Uint64 // walks written when the last notification had been handled
	o := liveOptions()
	walks := liveCountWalks(t, srv.URL, o)
	o.OnNotification = func(method string, _ json.RawMessage) { // after the client's own handling
		if connected.Load() && method == liveNotifyTools {
			walksAtLast.Store(walks.of(mcplive.KindTools))
			routed.add()
		}
	}
	c := liveConnect(t, srv.URL, o)
	connected.Store(true)
	walks0 := walks.of(mcplive.KindTools)

	srv.Update(scripted.Tools, func(items []json.RawMessage) []json.RawMessage { return append(items, scripted.Tool("z")) })
	srv.Burst(liveNotifyTools, nil, burst)
	routed.await(t, burst, "notifications handled")
	liveWait(t, c.Tools(), "with z", liveHasKeys[mcplive.Tool]([]string{"a", "b", "c", "z"}))
	// Every trigger has happened; a walk may still be running: its first
	// page is written, its count is in. Walks are counted when their first
	// page is written: one that had started when the last notification was
	// handled may have written it since, so 2 may be counted after it (that
	// walk, then the one more the notifications asked for during it).
	n, last := walks.of(mcplive.KindTools)-walks0, walksAtLast.Load()-walks0
	if n > last+2 {
		t.Errorf("walks: %d for a burst of %d, %d of them written after its last notification was handled; want at most 2 (the walk under way, one more)", n, burst, n-last)
	}
	t.Logf("%d walks for a burst of %d (%d written by the time its last notification was handled)", n, burst, last)
	if n := srv.MaxInFlight("tools/list"); n != 1 {
		t.Errorf("tools/list requests in flight at once: %d, want 1", n)
	}
}

// Rule: Refresh(kind) goes through the same single-flight path: it never
// runs a walk of its own beside one in flight, it joins the queue, and it
// returns only after a walk that started after it was called.
func TestLiveRefreshSingleFlight(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 2)
	srv.Set(scripted.Tools, scripted.Tool("a", "v1"), scripted.Tool("b", "v1"), scripted.Tool("c"), scripted.Tool("d"), scripted.Tool("e"))
	var hold atomic.Bool
	held, release := make(chan struct{}), make(chan struct{})
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "tools/list" && r.Cursor() == "" && hold.CompareAndSwap(true, false) {
			close(held)
			select {
			case <-release:
			case <-r.Done:
			}
		}
		return nil
	}
	o := liveOptions()
	walks := liveCountWalks(t, srv.URL, o)
	c := liveConnect(t, srv.URL, o)
	w0, n0 := walks.of(mcplive.KindTools), srv.Count("tools/list")

	// A change the server does not announce: Refresh must see it.
	srv.Update(scripted.Tools, func(items []json.RawMessage) []json.RawMessage { items[0] = scripted.Tool("a", "v2"); return items })
	if err := c.Refresh(liveCtx(t), mcplive.KindTools); err != nil {
		t.Fatal(err)
	}
	if d := liveDescs(c.Tools().Snapshot().Items)["a"]; d != "v2" {
		t.Errorf("after Refresh: a@%s, want a@v2", d)
	}

	// Refreshes while a walk is held: they wait for it, then share one walk
	// that sees what changed meanwhile.
	hold.Store(true)
	srv.Notify(liveNotifyTools, nil)
	liveRecv(t, held, "held walk")
	g0 := mcplive.RefreshTriggers(c, mcplive.KindTools)
	const n = 8
	var wg sync.WaitGroup
	started := make(chan struct{}, n)
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started <- struct{}{}
			errs <- c.Refresh(context.Background(), mcplive.KindTools)
		}()
	}
	for i := 0; i < n; i++ {
		liveRecv(t, started, "refresh started")
	}
	// Every Refresh has asked the syncer (a goroutine may be late between
	// "started" and its call on a loaded machine, and a call that comes
	// once the next walk has begun rightly asks for one more).
	liveUntil(t, "the 8 Refreshes asked the syncer", func() bool { return mcplive.RefreshTriggers(c, mcplive.KindTools) >= g0+n })
	srv.Update(scripted.Tools, func(items []json.RawMessage) []json.RawMessage { items[1] = scripted.Tool("b", "v2"); return items })
	close(release)
	wg.Wait()
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Errorf("Refresh: %v", err)
		}
	}
	if d := liveDescs(c.Tools().Snapshot().Items)["b"]; d != "v2" {
		t.Errorf("after the Refreshes returned: b@%s, want b@v2", d)
	}
	if m := srv.MaxInFlight("tools/list"); m != 1 {
		t.Errorf("tools/list requests in flight at once: %d, want 1", m)
	}
	// Every request the server got belongs to a walk of 3 pages, and the
	// Refreshes shared walks: the first one's, the held one, the one the
	// 8 Refreshes share, and one more for those whose call came only once
	// that walk had started.
	if w, reqs := walks.of(mcplive.KindTools)-w0, srv.Count("tools/list")-n0; w < 3 || w > 4 || uint64(reqs) != 3*w {
		t.Errorf("%d tools/list requests in %d walks, want 3 or 4 walks of 3 pages: something lists outside the single flight", reqs, w)
	}

	// A kind the server does not offer, and a kind that does not exist.
	srv2 := liveScripted(t, `{"tools":{}}`, 0)
	c2 := liveConnect(t, srv2.URL, nil)
	if err := c2.Refresh(liveCtx(t), mcplive.KindPrompts); !errors.Is(err, mcplive.ErrUnsupported) {
		t.Errorf("Refresh of a kind not offered: %v, want ErrUnsupported", err)
	}
	if err := c2.Refresh(liveCtx(t), mcplive.Kind("widgets")); err == nil {
		t.Errorf("Refresh of an unknown kind: nil error")
	}
}
