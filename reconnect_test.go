package mcplive_test

// Tests of reconnection (issue 3, "Reconnect"): stale lists that keep their
// items, one diff per list against what subscribers last saw, resource
// subscriptions restored, calls failing or waiting, backoff stopped by
// Close, the heartbeat, and a server restarted 20 times.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/mcplive/mcplive/internal/scripted"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// After a drop every list turns "stale" with its items, and after the
// reconnect each list gets exactly one update with the diff against what
// its subscribers last saw (or none with the same version when nothing
// changed). Prompts stay the same; the other kinds lose item 0, gain item
// 60 and see item 1 changed.
func TestLiveReconnectOneDiffPerList(t *testing.T) {
	t.Parallel()
	for _, ps := range livePageSizes {
		t.Run(fmt.Sprintf("pageSize=%d", ps), func(t *testing.T) {
			t.Parallel()
			srv := mcptest.New(t, &mcptest.Options{PageSize: ps, Setup: liveSDKSetup})
			c := liveConnect(t, srv.URL, nil)
			states := liveWatchStates(t, c)
			tr, pr := liveRecord(t, c.Tools()), liveRecord(t, c.Prompts())
			rr, mr := liveRecord(t, c.Resources()), liveRecord(t, c.ResourceTemplates())

			srv.Restart(func(s *mcp.Server) {
				liveSDKSetup(s)
				for _, k := range []liveSDKKind{liveSDKKinds[0], liveSDKKinds[2], liveSDKKinds[3]} {
					k.remove(s, k.key(0))
					k.put(s, k.key(60), "new")
					k.put(s, k.key(1), "v2")
				}
			})
			states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
			liveCheckResync(t, tr, liveSDKKinds[0], true)
			liveCheckResync(t, pr, liveSDKKinds[1], false)
			liveCheckResync(t, rr, liveSDKKinds[2], true)
			liveCheckResync(t, mr, liveSDKKinds[3], true)

			// Nothing else came in between: the next change of each list is
			// its next update.
			liveSentinel(t, srv, tr, liveSDKKinds[0])
			liveSentinel(t, srv, pr, liveSDKKinds[1])
			liveSentinel(t, srv, rr, liveSDKKinds[2])
			liveSentinel(t, srv, mr, liveSDKKinds[3])
		})
	}
}

func liveCheckResync[T mcplive.Item](t *testing.T, rec *liveRec[T], k liveSDKKind, changed bool) {
	t.Helper()
	keys := liveInitialKeys(k)
	stale := rec.at(t, 0)
	if stale.Status != mcplive.StatusStale || stale.Version != 1 || !liveSameKeys(liveKeys(stale.Items), keys) ||
		len(stale.Added)+len(stale.Removed)+len(stale.Changed) != 0 {
		t.Errorf("%s: first update after the drop: %s; want stale, version 1, the same items, no diff", k.name, liveDescribeAll(rec.all()))
	}
	u := rec.at(t, 1)
	if !changed {
		liveCheckUpdate(t, u, 1, keys, nil, nil, nil)
		return
	}
	liveCheckUpdate(t, u, 2, append(keys[1:], k.key(60)), []string{k.key(60)}, []string{k.key(0)}, []string{k.key(1)})
}

func liveSentinel[T mcplive.Item](t *testing.T, srv *mcptest.Server, rec *liveRec[T], k liveSDKKind) {
	t.Helper()
	n := len(rec.all())
	want := rec.all()[n-1].Version + 1
	k.put(srv.S, k.key(70), "sentinel")
	u := rec.at(t, n)
	if u.Version != want || len(u.Added) != 1 || u.Added[0].Key() != k.key(70) {
		t.Errorf("%s: update after the resync: %s; want only the sentinel's addition", k.name, liveDescribeAll(rec.all()[n:]))
	}
}

// Resource subscriptions that still have subscribers are restored on the
// new connection: resources/updated reaches them after a reconnect.
func TestLiveReconnectResubscribes(t *testing.T) {
	t.Parallel()
	t.Run("go-sdk", func(t *testing.T) {
		t.Parallel()
		srv := mcptest.New(t, &mcptest.Options{Setup: liveSDKSetup})
		c := liveConnect(t, srv.URL, nil)
		uri := liveSDKKinds[2].key(3)
		got := make(chan string, 16)
		if _, err := c.SubscribeResource(liveCtx(t), uri, func(u string) { got <- u }); err != nil {
			t.Fatal(err)
		}
		notify := func() {
			if err := srv.S.ResourceUpdated(liveCtx(t), &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
		}
		notify()
		if u := liveRecv(t, got, "updated before the restart"); u != uri {
			t.Fatalf("updated for %q, want %q", u, uri)
		}
		states := liveWatchStates(t, c)
		srv.Restart(nil)
		states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
		notify()
		if u := liveRecv(t, got, "updated after the restart"); u != uri {
			t.Fatalf("updated for %q, want %q", u, uri)
		}
	})
	t.Run("only live subscriptions", func(t *testing.T) {
		t.Parallel()
		srv := liveScripted(t, "", 0)
		var mu sync.Mutex
		subs := map[int][]string{} // connection → URIs subscribed on it
		srv.Hook = func(r *scripted.Request) error {
			switch r.Method {
			case "resources/subscribe":
				var p struct{ URI string }
				_ = json.Unmarshal(r.Params, &p)
				mu.Lock()
				subs[r.Conn] = append(subs[r.Conn], p.URI)
				mu.Unlock()
			case "subscriptions/listen": // 2026-07-28: the newest filter holds them
				var p struct {
					Notifications struct {
						URIs []string `json:"resourceSubscriptions"`
					} `json:"notifications"`
				}
				_ = json.Unmarshal(r.Params, &p)
				mu.Lock()
				subs[r.Conn] = p.Notifications.URIs
				mu.Unlock()
			}
			return nil
		}
		c := liveConnect(t, srv.URL, nil)
		got := make(chan string, 16)
		fn := func(u string) { got <- u }
		ctx := liveCtx(t)
		if _, err := c.SubscribeResource(ctx, "file:///a", fn); err != nil {
			t.Fatal(err)
		}
		unsubB, err := c.SubscribeResource(ctx, "file:///b", fn)
		if err != nil {
			t.Fatal(err)
		}
		if err := unsubB(ctx); err != nil {
			t.Fatal(err)
		}
		states := liveWatchStates(t, c)
		srv.DropConns()
		states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
		mu.Lock()
		if !slices.Equal(subs[2], []string{"file:///a"}) {
			t.Errorf("subscriptions restored on the new connection: %v, want [file:///a]", subs[2])
		}
		mu.Unlock()
		srv.Notify("notifications/resources/updated", map[string]string{"uri": "file:///b"})
		srv.Notify("notifications/resources/updated", map[string]string{"uri": "file:///a"})
		if u := liveRecv(t, got, "updated after the reconnect"); u != "file:///a" {
			t.Errorf("updated for %q; want only file:///a (b was unsubscribed)", u)
		}
	})
}

// Requests in flight when the connection drops fail at once with ErrClosed
// (not after their timeout). A list walk in flight is not a failed re-list:
// the list turns stale, then ready, never "error".
func TestLiveInFlightFailsOnDrop(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 1)
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"))
	var holdList atomic.Bool
	listHeld, callHeld := make(chan struct{}), make(chan struct{})
	srv.Hook = func(r *scripted.Request) error {
		switch {
		case r.Method == "tools/call":
			close(callHeld)
			<-r.Done
			return scripted.ErrDrop
		case r.Method == "tools/list" && holdList.CompareAndSwap(true, false):
			close(listHeld)
			<-r.Done
			return scripted.ErrDrop
		}
		return nil
	}
	o := liveOptions()
	o.RequestTimeout = time.Minute
	c := liveConnect(t, srv.URL, o)
	rec := liveRecord(t, c.Tools())
	states := liveWatchStates(t, c)

	holdList.Store(true)
	srv.Notify(liveNotifyTools, nil)
	liveRecv(t, listHeld, "held walk")
	callErr := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "a", nil, nil)
		callErr <- err
	}()
	liveRecv(t, callHeld, "held call")
	srv.DropConns()
	if err := liveRecv(t, callErr, "the call to fail"); !errors.Is(err, mcplive.ErrClosed) {
		t.Errorf("call in flight at the drop: %v, want ErrClosed", err)
	}
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
	rec.at(t, 1)
	for _, u := range rec.all() {
		if u.Status == mcplive.StatusError {
			t.Errorf("a walk cut by the drop made the list fail: %s", liveDescribeAll(rec.all()))
		}
	}
	if got := rec.all(); got[0].Status != mcplive.StatusStale || got[1].Status != mcplive.StatusReady || got[1].Version != 1 {
		t.Errorf("updates: %s; want stale, then ready at version 1", liveDescribeAll(got))
	}
}

// Calls made while reconnecting wait for ready, up to their timeout.
func TestLiveCallsWaitForReady(t *testing.T) {
	t.Parallel()
	srv := mcptest.New(t, &mcptest.Options{Setup: liveSDKSetup})
	c := liveConnect(t, srv.URL, nil)
	states := liveWatchStates(t, c)
	srv.Stop()
	states.await(t, mcplive.StateReconnecting)

	// The server stays down: the call gives up at its caller's deadline
	// (it did not fail at once for want of a connection), and says so
	// with the caller's context error, as every call does.
	start := time.Now() // before the deadline is set: the deadline is 50 ms after it at most
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, err := c.CallTool(ctx, "tool00", nil, nil)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, mcplive.ErrTimeout) || time.Since(start) < 50*time.Millisecond {
		t.Errorf("call while the server is down: %v after %v, want context.DeadlineExceeded at the deadline", err, time.Since(start))
	}

	// The server comes back while the call waits.
	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		srv.Restart(nil)
	}()
	res, err := c.CallTool(liveCtx(t), "tool00", nil, nil)
	liveRecv(t, restarted, "restart")
	if err != nil {
		t.Fatalf("call made while reconnecting: %v", err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != "tool00" {
		t.Errorf("call result: %+v", res.Content)
	}
	// The client is ready again: at once over a connection of its own
	// (the call waited for it), or once the lists are re-listed when the
	// call went out while only the change feed was being re-opened
	// (2026-07-28: the session itself was up, so the call did not wait).
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
}

// Close stops the backoff: it returns while the client waits to redial.
// WatchState sees reconnecting, then closed; calls then fail with
// ErrClosed.
func TestLiveCloseStopsBackoff(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 0)
	o := liveOptions()
	o.Reconnect = mcplive.ReconnectOptions{InitialDelay: time.Hour, MaxDelay: time.Hour}
	c := liveConnect(t, srv.URL, o)
	states := liveWatchStates(t, c)
	srv.Close()
	states.await(t, mcplive.StateReconnecting)
	closed := make(chan struct{})
	go func() {
		c.Close()
		close(closed)
	}()
	liveRecv(t, closed, "Close during a backoff of up to an hour")
	states.await(t, mcplive.StateReconnecting, mcplive.StateClosed)
	if err := c.Ping(liveCtx(t)); !errors.Is(err, mcplive.ErrClosed) {
		t.Errorf("call after Close: %v, want ErrClosed", err)
	}
}

// A list that nothing keeps in sync is not live: while the client
// reconnects (stale, with its items) and once it is closed (stale, for
// good). Each is one update: no subscriber sees "stale" with live true.
func TestLiveNotLiveWhenReconnectingOrClosed(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 0)
	c := liveConnect(t, srv.URL, nil)
	if s := c.Tools().Snapshot(); !s.Live || s.Status != mcplive.StatusReady {
		t.Fatalf("tools after Connect: %s, live %v", liveDescribe(s), s.Live)
	}
	rec := liveRecord(t, c.Tools())
	states := liveWatchStates(t, c)
	srv.DropConns()
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
	liveWait(t, c.Tools(), "tools live again", func(s mcplive.Snapshot[mcplive.Tool]) bool { return s.Live && s.Status == mcplive.StatusReady })
	n := len(rec.all())
	c.Close()
	for _, k := range []mcplive.Kind{mcplive.KindTools, mcplive.KindPrompts, mcplive.KindResources, mcplive.KindResourceTemplates} {
		if v := c.List(k).View(); v.Live || (v.Status != mcplive.StatusStale && v.Status != mcplive.StatusUnsupported) {
			t.Errorf("%s after Close: status %s, live %v; want stale (or unsupported), not live", k, v.Status, v.Live)
		}
	}
	// The update of Close (Close may return before a subscriber has it:
	// it never waits for a callback that is running).
	if u := rec.at(t, n); u.Status != mcplive.StatusStale || u.Live {
		t.Errorf("the update of Close: %s, live %v; want stale, not live", liveDescribe(u.Snapshot), u.Live)
	}
	ups := rec.all()
	if ups[0].Status != mcplive.StatusStale || ups[0].Live {
		t.Errorf("first update after the drop: %s; want stale and not live", liveDescribeAll(ups))
	}
	for _, u := range ups {
		if u.Status == mcplive.StatusStale && u.Live {
			t.Errorf("an update stale and live: %s", liveDescribeAll(ups))
		}
	}
}

// WatchState sees every state change in order: reconnecting, ready, closed
// (connecting is the state before Connect returns).
func TestLiveStateSequence(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 0)
	c := liveConnect(t, srv.URL, nil)
	if s := c.State(); s != mcplive.StateReady {
		t.Errorf("state after Connect: %s", s)
	}
	states := liveWatchStates(t, c)
	srv.DropConns()
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
	c.Close()
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady, mcplive.StateClosed)
	if s := c.State(); s != mcplive.StateClosed {
		t.Errorf("state after Close: %s", s)
	}
}

// A server restarted 20 times in a row, with different lists each time:
// every list converges to that server's state each time, with exactly one
// applied change per list per restart.
func TestLiveRestart20Times(t *testing.T) {
	t.Parallel()
	for _, ps := range livePageSizes {
		t.Run(fmt.Sprintf("pageSize=%d", ps), func(t *testing.T) {
			t.Parallel()
			srv := mcptest.New(t, &mcptest.Options{PageSize: ps, Setup: func(s *mcp.Server) { liveRoundSetup(s, 0) }})
			c := liveConnect(t, srv.URL, nil)
			// Ready only once every list is synced again. List updates and
			// state changes come in one stream, in the order they happened:
			// when "ready" comes, each list's last update must be ready.
			var mu sync.Mutex
			last := map[mcplive.Kind]mcplive.Status{}
			var notSynced atomic.Int32
			watch := func(k mcplive.Kind, st mcplive.Status) { mu.Lock(); last[k] = st; mu.Unlock() }
			t.Cleanup(c.Tools().Subscribe(func(u mcplive.Update[mcplive.Tool]) { watch(mcplive.KindTools, u.Status) }))
			t.Cleanup(c.Prompts().Subscribe(func(u mcplive.Update[mcplive.Prompt]) { watch(mcplive.KindPrompts, u.Status) }))
			t.Cleanup(c.Resources().Subscribe(func(u mcplive.Update[mcplive.Resource]) { watch(mcplive.KindResources, u.Status) }))
			t.Cleanup(c.ResourceTemplates().Subscribe(func(u mcplive.Update[mcplive.ResourceTemplate]) {
				watch(mcplive.KindResourceTemplates, u.Status)
			}))
			t.Cleanup(c.WatchState(func(s mcplive.State) {
				mu.Lock()
				defer mu.Unlock()
				for _, st := range last {
					if s == mcplive.StateReady && st != mcplive.StatusReady {
						notSynced.Add(1)
					}
				}
			}))
			liveCheckRound(t, c, 0)
			defer func() {
				if n := notSynced.Load(); n > 0 {
					t.Errorf("%d lists not synced when the state turned ready", n)
				}
			}()
			for r := 1; r <= 20; r++ {
				srv.Restart(func(s *mcp.Server) { liveRoundSetup(s, r) })
				liveCheckRound(t, c, r)
			}
		})
	}
}

// liveRound returns round r's items of kind k: key → description. Keys
// shift from round to round and even items change content every round.
func liveRound(k liveSDKKind, r int) map[string]string {
	m := map[string]string{}
	for i := r % 3; i < 4+r%3+r%5; i++ {
		d := "same"
		if i%2 == 0 {
			d = fmt.Sprintf("round %d", r)
		}
		m[k.key(i)] = d
	}
	return m
}

func liveRoundSetup(s *mcp.Server, r int) {
	for _, k := range liveSDKKinds {
		for key, d := range liveRound(k, r) {
			k.put(s, key, d)
		}
	}
}

func liveCheckRound(t *testing.T, c *mcplive.Client, r int) {
	t.Helper()
	liveConverge(t, c.Tools(), liveRound(liveSDKKinds[0], r), r)
	liveConverge(t, c.Prompts(), liveRound(liveSDKKinds[1], r), r)
	liveConverge(t, c.Resources(), liveRound(liveSDKKinds[2], r), r)
	liveConverge(t, c.ResourceTemplates(), liveRound(liveSDKKinds[3], r), r)
}

func liveConverge[T mcplive.Item](t *testing.T, l *mcplive.List[T], want map[string]string, r int) {
	t.Helper()
	s := liveWait(t, l, fmt.Sprintf("round %d", r), func(s mcplive.Snapshot[T]) bool {
		got := liveDescs(s.Items)
		if s.Status != mcplive.StatusReady || len(got) != len(want) {
			return false
		}
		for k, d := range want {
			if got[k] != d {
				return false
			}
		}
		return true
	})
	if s.Version != uint64(1+r) {
		t.Errorf("%s round %d: version %d, want %d (one applied change per restart)", l.Kind(), r, s.Version, 1+r)
	}
}

// A connection lost during the first sync fails Connect with ErrClosed
// (found by the heartbeat, not after the request timeout).
func TestLiveConnectLostDuringFirstSync(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 0)
	opened := liveOpenings()
	srv.Hook = func(r *scripted.Request) error {
		if !opened(r) {
			return scripted.ErrDrop
		}
		return nil
	}
	o := liveOptions()
	o.RequestTimeout = time.Minute
	o.HeartbeatInterval, o.HeartbeatTimeout = 10*time.Millisecond, liveHeartbeatTimeout
	c, err := mcplive.Connect(liveCtx(t), srv.URL, eraOptions(o))
	if err == nil {
		c.Close()
		t.Fatal("Connect succeeded on a connection that never answered a list call")
	}
	if !errors.Is(err, mcplive.ErrClosed) {
		t.Errorf("Connect: %v, want ErrClosed", err)
	}
}

// The result of a walk on a connection that has dropped is never applied
// after the drop: the server answers the last page and closes at once, and
// the client, still decoding that long page, has already moved on to a new
// connection (whose list differs).
func TestLiveResultOfDroppedConnectionNotApplied(t *testing.T) {
	t.Parallel()
	const n = 20000
	srv := liveScripted(t, "", 0)
	srv.Set(scripted.Tools, scripted.Tool("a"))
	var armed atomic.Bool
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "tools/list" && armed.CompareAndSwap(true, false) {
			// The answer, the old list, is made: the next connection
			// will list the new one.
			srv.Set(scripted.Tools, scripted.Tool("new"))
			return scripted.ErrAnswerThenClose
		}
		return nil
	}
	c := liveConnect(t, srv.URL, nil)
	rec := liveRecord(t, c.Tools())
	old := make([]json.RawMessage, n)
	for i := range old {
		old[i] = json.RawMessage(fmt.Sprintf(`{"name":"old%05d"}`, i))
	}
	srv.Set(scripted.Tools, old...)
	armed.Store(true)
	srv.Notify(liveNotifyTools, nil)
	liveWait(t, c.Tools(), "the new connection's list", liveHasKeys[mcplive.Tool]([]string{"new"}))
	seenStale := false
	for _, u := range rec.all() {
		if len(u.Items) != n && len(u.Items) != 1 {
			t.Errorf("a list that no connection had: %s", liveDescribe(u.Snapshot))
		}
		seenStale = seenStale || u.Status == mcplive.StatusStale
		if seenStale && len(u.Items) == n {
			t.Fatalf("the dropped connection's list was applied after the drop: %s", liveDescribeAll(rec.all()))
		}
	}
}
