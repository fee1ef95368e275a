package mcplive_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/mcplive/mcplive/internal/scripted"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The modern era (MCP 2026-07-28) against the scripted server: discover
// instead of initialize, subscriptions/listen as the only change feed, the
// acknowledged filter, a stream that ends, caching hints, empty cursors,
// resultType, and the ways a server refuses the modern probe.

func TestModernListsFollowTheListenStream(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{TTLMs: 60000, CacheScope: "public"}, 0)
	c := liveConnect(t, srv.URL, modernOptions())
	assertEqual(t, c.ProtocolVersion(), mcplive.ModernVersion, "protocol version")
	assertEqual(t, c.ServerInfo().Name, "scripted", "server info from discover's _meta")
	assertEqual(t, srv.Count("initialize"), 0, "initialize requests")
	assertEqual(t, srv.Count("server/discover"), 1, "discover requests")
	assertEqual(t, srv.Count("subscriptions/listen"), 1, "listen requests")

	s := c.Tools().Snapshot()
	if !s.Live || s.Status != mcplive.StatusReady || !liveSameKeys(liveKeys(s.Items), []string{"a", "b"}) {
		t.Fatalf("tools after Connect: live %v, %s", s.Live, liveDescribe(s))
	}
	if s.Cache == nil || !s.Cache.HasTTL || s.Cache.TTL != time.Minute || s.Cache.Scope != "public" || s.Cache.Received.IsZero() {
		t.Errorf("cache hints: %+v, want a TTL of 1m, scope public", s.Cache)
	}
	for _, k := range mcplive.Kinds {
		if !c.List(k).View().Live {
			t.Errorf("%s: not live, though the server acknowledged every kind", k)
		}
	}

	rec := liveRecord(t, c.Tools())
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("c"))
	srv.Notify("notifications/tools/list_changed", nil)
	u := rec.at(t, 0)
	liveCheckUpdate(t, u, 2, []string{"a", "c"}, []string{"c"}, []string{"b"}, nil)
	if u.Cause != mcplive.CauseNotification {
		t.Errorf("cause %q, want notification", u.Cause)
	}
}

// A kind the server does not acknowledge is not live, and says so.
func TestModernAcknowledgedSubset(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{Ack: func(req map[string]json.RawMessage) map[string]json.RawMessage {
		return map[string]json.RawMessage{"toolsListChanged": req["toolsListChanged"]}
	}}, 0)
	c := liveConnect(t, srv.URL, modernOptions())
	if !c.Tools().Snapshot().Live {
		t.Error("tools: not live, though acknowledged")
	}
	for _, k := range []mcplive.Kind{mcplive.KindPrompts, mcplive.KindResources, mcplive.KindResourceTemplates} {
		v := c.List(k).View()
		if v.Live || v.Status != mcplive.StatusReady {
			t.Errorf("%s: live %v, status %s; want listed but not live", k, v.Live, v.Status)
		}
	}
	// The server honours its acknowledgment: a prompts change is not
	// sent; tools changes are.
	srv.Set(scripted.Prompts, scripted.Prompt("p"), scripted.Prompt("q"))
	srv.Notify("notifications/prompts/list_changed", nil)
	srv.Set(scripted.Tools, scripted.Tool("z"))
	srv.Notify("notifications/tools/list_changed", nil)
	liveWait(t, c.Tools(), "tools after the change", liveHasKeys[mcplive.Tool]([]string{"z"}))
	if got := liveKeys(c.Prompts().Snapshot().Items); !liveSameKeys(got, []string{"p"}) {
		t.Errorf("prompts changed without a notification: %v", got)
	}
	// Refresh still reads a list that is not live.
	assertNoErr(t, c.Refresh(liveCtx(t), mcplive.KindPrompts), "Refresh prompts")
	liveWait(t, c.Prompts(), "prompts after Refresh", liveHasKeys[mcplive.Prompt]([]string{"p", "q"}))
}

// When the server ends the stream (gracefully or by dropping it), the
// lists are stale and the client reconnecting until the stream is open
// again and every list re-listed, with the diff against what subscribers
// last saw.
func TestModernListenEnds(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	for _, graceful := range []bool{true, false} {
		t.Run(fmt.Sprintf("graceful=%v", graceful), func(t *testing.T) {
			t.Parallel()
			srv := modernScripted(t, scripted.ModernOptions{}, 1)
			c := liveConnect(t, srv.URL, modernOptions())
			states := liveWatchStates(t, c)
			rec := liveRecord(t, c.Tools())
			// A change the client is never told of: it is found by the
			// re-list after the stream comes back.
			srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("new"))
			srv.EndListens(graceful)
			states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
			ups := rec.all()
			if ups[0].Status != mcplive.StatusStale || ups[0].Version != 1 {
				t.Errorf("first update after the end: %s, want stale at version 1", liveDescribe(ups[0].Snapshot))
			}
			s := liveWait(t, c.Tools(), "tools after the stream came back", liveHasKeys[mcplive.Tool]([]string{"a", "new"}))
			if s.Status != mcplive.StatusReady || !s.Live {
				t.Errorf("after the stream came back: %s, live %v", liveDescribe(s), s.Live)
			}
			last := rec.all()[len(rec.all())-1]
			liveCheckUpdate(t, last, 2, []string{"a", "new"}, []string{"new"}, []string{"b"}, nil)
			assertEqual(t, last.Cause, mcplive.CauseReconnect, "cause")
			if graceful {
				assertEqual(t, srv.Conns(), 1, "connections (a graceful end keeps the connection)")
			}
			assertEqual(t, srv.Count("subscriptions/listen"), 2, "listen requests")
		})
	}
}

// A server that acknowledges nothing and ends the stream at once is not
// asked again in a loop: the lists are listed, not live, and the client
// ready.
func TestModernNothingAcknowledged(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{
		Ack:        func(map[string]json.RawMessage) map[string]json.RawMessage { return nil },
		EndIfEmpty: true,
	}, 0)
	c := liveConnect(t, srv.URL, modernOptions())
	assertEqual(t, c.State(), mcplive.StateReady, "state")
	if c.Tools().Snapshot().Live {
		t.Error("tools live without an acknowledgment")
	}
	// A round trip after the stream ended: any re-open would have been
	// sent before it.
	assertNoErr(t, c.Refresh(liveCtx(t), mcplive.KindTools), "Refresh")
	assertNoErr(t, c.Ping(liveCtx(t)), "Ping")
	assertEqual(t, srv.Count("subscriptions/listen"), 1, "listen requests")
	assertEqual(t, c.State(), mcplive.StateReady, "state")
}

// Adding and removing resource subscribers changes the stream's filter:
// the new stream is acknowledged before the old one ends, so at no time
// is nobody listening.
func TestModernResourceSubscriptions(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{}, 0)
	c := liveConnect(t, srv.URL, modernOptions())
	const a, b = "file:///a", "file:///b"
	ctx := liveCtx(t)
	gotA, gotB := make(chan string, 8), make(chan string, 8)
	unA, err := c.SubscribeResource(ctx, a, func(uri string) { gotA <- uri })
	assertNoErr(t, err, "subscribe a")
	unB, err := c.SubscribeResource(ctx, b, func(uri string) { gotB <- uri })
	assertNoErr(t, err, "subscribe b")
	assertEqual(t, srv.Count("subscriptions/listen"), 3, "listen requests (one per filter)")
	if !srv.AwaitListens(1, liveDeadline) {
		t.Errorf("open listens: %d, want 1 (the old ones cancelled)", srv.Listens())
	}
	assertEqual(t, srv.MinListens(), 1, "open listens at the least since the first was acknowledged")

	srv.Notify("notifications/resources/updated", map[string]any{"uri": a})
	assertEqual(t, liveRecv(t, gotA, "update of a"), a, "uri")
	assertNoErr(t, unA(ctx), "unsubscribe a")
	srv.Notify("notifications/resources/updated", map[string]any{"uri": a})
	srv.Notify("notifications/resources/updated", map[string]any{"uri": b})
	assertEqual(t, liveRecv(t, gotB, "update of b"), b, "uri")
	select {
	case <-gotA:
		t.Error("a's subscriber was called after it unsubscribed")
	default:
	}
	// The lists are still live on the newest stream.
	srv.Set(scripted.Tools, scripted.Tool("x"))
	srv.Notify("notifications/tools/list_changed", nil)
	liveWait(t, c.Tools(), "tools after a change", liveHasKeys[mcplive.Tool]([]string{"x"}))
	assertNoErr(t, unB(ctx), "unsubscribe b")
	assertEqual(t, srv.MinListens(), 1, "open listens at the least")
}

// Against the real go-sdk server, the lists stay live through resource
// subscriptions: each subscribe and unsubscribe changes the listen
// stream's filter (a new stream, the old one cancelled), and a tool added
// after it still reaches the list; the updates of the resources subscribed
// still reach their subscribers. go-sdk v1.8.0 keys a session's
// subscriptions by session, not by stream: the cleanup of a cancelled
// stream drops the registrations of the stream that replaced it (over one
// connection: WebSocket) unless the client waits for the old stream's end
// before opening the new one.
func TestModernSDKListsLiveThroughSubscriptions(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	const a, b = "file:///a", "file:///b"
	var rec *mcptest.Recorder
	srv := mcptest.New(t, &mcptest.Options{Setup: func(s *mcp.Server) {
		rec = mcptest.Record(s)
		s.AddTool(mcptest.Tool("t0"), mcptest.EchoHandler("t0"))
		for _, uri := range []string{a, b} {
			s.AddResource(mcptest.Resource(uri, func() string { return "v" }))
		}
	}})
	c := liveConnect(t, srv.URL, modernOptions())
	ctx := liveCtx(t)
	tools := []string{"t0"}
	addTool := func(step string) {
		t.Helper()
		name := "after " + step
		srv.S.AddTool(mcptest.Tool(name), mcptest.EchoHandler(name))
		tools = append(tools, name)
		liveWait(t, c.Tools(), name, liveHasKeys[mcplive.Tool](slices.Clone(tools)))
	}
	updated := func(uri string, got chan string) {
		t.Helper()
		if err := srv.S.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		assertEqual(t, liveRecv(t, got, "update of "+uri), uri, "updated uri")
	}
	methods := []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list", "subscriptions/listen"}
	counts := func() []int {
		var n []int
		for _, m := range methods {
			n = append(n, rec.Count(m))
		}
		return n
	}
	base := counts()

	gotA, gotB := make(chan string, 16), make(chan string, 16)
	unA, err := c.SubscribeResource(ctx, a, func(uri string) { gotA <- uri })
	assertNoErr(t, err, "subscribe a")
	addTool("subscribe a")
	updated(a, gotA)

	unB, err := c.SubscribeResource(ctx, b, func(uri string) { gotB <- uri })
	assertNoErr(t, err, "subscribe b")
	addTool("subscribe b")
	updated(a, gotA)
	updated(b, gotB)

	assertNoErr(t, unA(ctx), "unsubscribe a")
	addTool("unsubscribe a")
	updated(b, gotB)

	assertNoErr(t, unB(ctx), "unsubscribe b")
	addTool("unsubscribe b")
	end := counts()
	for i, m := range methods {
		t.Logf("%s after Connect: %d", m, end[i]-base[i])
	}
	t.Logf("(4 subscription changes; 4 tools added: 4 walks of tools/list follow them at the least)")
}

// modernOptions pins the modern era (no fallback).
func modernOptions() *mcplive.Options {
	o := liveOptions()
	o.ProtocolVersion = mcplive.ModernVersion
	return o
}

// modernScripted starts a modern scripted server with tools a and b.
func modernScripted(t testing.TB, mo scripted.ModernOptions, pageSize int) *scripted.Server {
	srv := liveScripted(t, "", pageSize)
	srv.Modern(mo)
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"))
	srv.Set(scripted.Prompts, scripted.Prompt("p"))
	return srv
}
