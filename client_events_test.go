package mcplive_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/mcplive/mcplive/internal/scripted"
)

// Rule: a list_changed for a kind the server does not offer is logged and
// ignored: no request, no update, the list stays "unsupported".
func TestLiveListChangedForKindNotOffered(t *testing.T) {
	t.Parallel()
	onlyIn(t, "legacy")
	srv := liveScripted(t, `{"tools":{"listChanged":true}}`, 0)
	srv.Set(scripted.Tools, scripted.Tool("a"))
	var logs liveLog
	o := liveOptions()
	o.Logger = logs.Logger()
	c := liveConnect(t, srv.URL, o)
	pr, rr, tr := liveRecord(t, c.Prompts()), liveRecord(t, c.Resources()), liveRecord(t, c.ResourceTemplates())
	srv.Notify(liveNotifyPrompts, nil)
	srv.Notify(liveNotifyResources, nil)
	// Notifications are handled in order: once the tools change is in,
	// the two before it have been handled.
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"))
	srv.Notify(liveNotifyTools, nil)
	liveWait(t, c.Tools(), "two tools", liveHasKeys[mcplive.Tool]([]string{"a", "b"}))
	// And one more change, so that any update queued for the other lists
	// before it has been delivered.
	srv.Set(scripted.Tools, scripted.Tool("a"))
	srv.Notify(liveNotifyTools, nil)
	liveWait(t, c.Tools(), "one tool", liveHasKeys[mcplive.Tool]([]string{"a"}))

	for _, m := range []string{"prompts/list", "resources/list", "resources/templates/list"} {
		if n := srv.Count(m); n != 0 {
			t.Errorf("%d %s requests to a server that does not offer it", n, m)
		}
	}
	for name, got := range map[string]struct {
		s mcplive.Status
		e error
		n int
	}{
		"prompts":           {c.Prompts().Snapshot().Status, c.Prompts().Snapshot().Err, len(pr.all())},
		"resources":         {c.Resources().Snapshot().Status, c.Resources().Snapshot().Err, len(rr.all())},
		"resourceTemplates": {c.ResourceTemplates().Snapshot().Status, c.ResourceTemplates().Snapshot().Err, len(tr.all())},
	} {
		if got.s != mcplive.StatusUnsupported || got.e != nil || got.n != 0 {
			t.Errorf("%s: status %s, err %v, %d updates; want unsupported, nil, 0", name, got.s, got.e, got.n)
		}
	}
	for _, m := range []string{liveNotifyPrompts, liveNotifyResources} {
		if len(logs.find(m)) != 1 {
			t.Errorf("want one log record about the ignored %s; log: %v", m, logs.find())
		}
	}
}

// Rule: list_changed is honoured for an offered kind even when the server
// did not declare listChanged.
func TestLiveListChangedWithoutFlag(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, `{"tools":{},"prompts":{},"resources":{}}`, 1)
	for _, k := range liveScriptedKinds {
		srv.Set(k.kind, k.item("k1"))
	}
	c := liveConnect(t, srv.URL, nil)
	for _, k := range liveScriptedKinds {
		srv.Set(k.kind, k.item("k1"), k.item("k2"))
		srv.Notify(k.notify, nil)
	}
	key := func(k liveScriptedKind, n string) string { return scripted.Key(k.item(n)) }
	two := func(k liveScriptedKind) []string { return []string{key(k, "k1"), key(k, "k2")} }
	liveWait(t, c.Tools(), "two tools", liveHasKeys[mcplive.Tool](two(liveScriptedKinds[0])))
	liveWait(t, c.Prompts(), "two prompts", liveHasKeys[mcplive.Prompt](two(liveScriptedKinds[1])))
	liveWait(t, c.Resources(), "two resources", liveHasKeys[mcplive.Resource](two(liveScriptedKinds[2])))
	liveWait(t, c.ResourceTemplates(), "two templates", liveHasKeys[mcplive.ResourceTemplate](two(liveScriptedKinds[3])))
}

// Rule: resources/list_changed re-lists resources and resource templates.
func TestLiveResourcesListChangedRelistsTemplates(t *testing.T) {
	t.Parallel()
	for _, ps := range livePageSizes {
		t.Run(fmt.Sprintf("pageSize=%d", ps), func(t *testing.T) {
			t.Parallel()
			srv := mcptest.New(t, &mcptest.Options{PageSize: ps, Setup: liveSDKSetup})
			c := liveConnect(t, srv.URL, nil)
			tk, rk := liveSDKKinds[3], liveSDKKinds[2]
			// A template alone changes: go-sdk announces it with
			// resources/list_changed, the only notification there is.
			tk.put(srv.S, tk.key(50), "new")
			liveWait(t, c.ResourceTemplates(), "with the new template",
				liveHasKeys[mcplive.ResourceTemplate](append(liveInitialKeys(tk), tk.key(50))))
			tk.remove(srv.S, tk.key(0))
			liveWait(t, c.ResourceTemplates(), "without template 0",
				liveHasKeys[mcplive.ResourceTemplate](append(liveInitialKeys(tk)[1:], tk.key(50))))
			if v := c.Resources().Snapshot().Version; v != 1 {
				t.Errorf("resources version %d: the resources did not change", v)
			}
			rk.remove(srv.S, rk.key(1))
			liveWait(t, c.Resources(), "without resource 1",
				liveHasKeys[mcplive.Resource](slices.Delete(liveInitialKeys(rk), 1, 2)))
		})
	}
	t.Run("both walked", func(t *testing.T) {
		t.Parallel()
		srv := liveScripted(t, "", 1)
		srv.Set(scripted.Resources, scripted.Resource("file:///a"), scripted.Resource("file:///b"))
		srv.Set(scripted.ResourceTemplates, scripted.Template("file:///t/{x}"))
		o := liveOptions()
		walks := liveCountWalks(t, srv.URL, o)
		c := liveConnect(t, srv.URL, o)
		r0, t0 := walks.of(mcplive.KindResources), walks.of(mcplive.KindResourceTemplates)
		// Both lists change, so that each walk is seen to have applied
		// before the Refresh (which would otherwise share a walk the
		// notification asked for and that had not started yet).
		srv.Set(scripted.Resources, scripted.Resource("file:///a"), scripted.Resource("file:///b"), scripted.Resource("file:///c"))
		srv.Set(scripted.ResourceTemplates, scripted.Template("file:///t/{x}"), scripted.Template("file:///u/{x}"))
		srv.Notify(liveNotifyResources, nil)
		liveWait(t, c.ResourceTemplates(), "two templates", liveHasKeys[mcplive.ResourceTemplate]([]string{"file:///t/{x}", "file:///u/{x}"}))
		liveWait(t, c.Resources(), "three resources", liveHasKeys[mcplive.Resource]([]string{"file:///a", "file:///b", "file:///c"}))
		if err := c.Refresh(liveCtx(t), mcplive.KindResources); err != nil {
			t.Fatal(err)
		}
		if r, tp := walks.of(mcplive.KindResources)-r0, walks.of(mcplive.KindResourceTemplates)-t0; r != 2 || tp != 1 {
			t.Errorf("walks after one resources/list_changed and a Refresh of resources: resources %d (want 2), templates %d (want 1)", r, tp)
		}
	})
}

// The callbacks may call back into the client: Close from a subscriber
// callback or a notification handler returns, and a tool called from a
// notification handler gets every progress notification before it
// returns. No goroutine is waited on by what runs on it (Close never waits
// on a callback; progress goes to the calling goroutine), so none of these
// can deadlock.

// Close from a subscriber callback returns, and the subscribers then get
// the last updates: StateClosed and the lists' stale status.
func TestCloseFromSubscriberCallback(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 1)
	srv.Set(scripted.Tools, scripted.Tool("a"))
	c := liveConnect(t, srv.URL, nil)
	states := liveWatchStates(t, c)
	closed := make(chan error, 1)
	stale := make(chan struct{})
	var once, staleOnce sync.Once
	c.Tools().Subscribe(func(u mcplive.Update[mcplive.Tool]) {
		if u.Snapshot.Status == mcplive.StatusStale {
			staleOnce.Do(func() { close(stale) })
			return
		}
		once.Do(func() { closed <- c.Close() })
	})
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"))
	srv.Notify(liveNotifyTools, nil)
	assertNoErr(t, liveRecv(t, closed, "Close from the subscriber callback returning"), "Close")
	states.await(t, mcplive.StateClosed)
	liveRecv(t, stale, "the stale status after Close from a callback")
	if s := c.State(); s != mcplive.StateClosed {
		t.Errorf("state after Close: %s", s)
	}
}

// Close from another goroutine while a subscriber callback is blocked
// returns: Close never waits on a callback. Once the callback returns, the
// last updates (the stale status) follow.
func TestCloseWhileCallbackBlocks(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 1)
	srv.Set(scripted.Tools, scripted.Tool("a"))
	c := liveConnect(t, srv.URL, nil)
	inside := make(chan struct{})
	release := make(chan struct{})
	stale := make(chan struct{})
	var first, staleOnce sync.Once
	c.Tools().Subscribe(func(u mcplive.Update[mcplive.Tool]) {
		first.Do(func() {
			close(inside)
			<-release
		})
		if u.Snapshot.Status == mcplive.StatusStale {
			staleOnce.Do(func() { close(stale) })
		}
	})
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"))
	srv.Notify(liveNotifyTools, nil)
	liveRecv(t, inside, "the first update")
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	assertNoErr(t, liveRecv(t, done, "Close while a callback blocks"), "Close")
	close(release)
	liveRecv(t, stale, "the stale status after the blocked callback")
}
