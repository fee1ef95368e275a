package mcplive_test

// The modern era (MCP 2026-07-28) against the scripted server: discover
// instead of initialize, subscriptions/listen as the only change feed, the
// acknowledged filter, a stream that ends, caching hints, empty cursors,
// resultType, and the ways a server refuses the modern probe.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/scripted"
)

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

// In this revision an empty-string cursor is a cursor: only an absent
// nextCursor ends a walk.
func TestModernEmptyCursor(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{EmptyCursors: true}, 2)
	var tools []json.RawMessage
	var want []string
	for i := range 7 {
		tools = append(tools, scripted.Tool(fmt.Sprint("t", i)))
		want = append(want, fmt.Sprint("t", i))
	}
	srv.Set(scripted.Tools, tools...)
	c := liveConnect(t, srv.URL, modernOptions())
	if got := liveKeys(c.Tools().Snapshot().Items); !liveSameKeys(got, want) {
		t.Fatalf("tools: %v, want %v", got, want)
	}
	assertEqual(t, srv.Count("tools/list"), 4, "pages")
}

// A result that is not complete is a clear error.
func TestModernIncompleteResult(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{ToolResult: json.RawMessage(`{"resultType":"input_required","inputRequests":{}}`)}, 0)
	c := liveConnect(t, srv.URL, modernOptions())
	_, err := c.CallTool(liveCtx(t), "a", nil, nil)
	if !errors.Is(err, mcplive.ErrIncompleteResult) || !strings.Contains(err.Error(), "input_required") {
		t.Fatalf("CallTool = %v, want ErrIncompleteResult naming input_required", err)
	}
}

// The ways a server answers the modern probe, and what the client makes of
// each.
func TestModernProbeRefusals(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	for _, tc := range []struct {
		name    string
		answer  string // the error answer to server/discover; "" leaves the scripted server's own
		pin     string
		version string // the revision the client ends up with; "" for an error
		errText string
	}{
		{name: "method-not-found", answer: `{"code":-32601,"message":"method not found"}`, version: mcplive.ProtocolVersion},
		{name: "unsupported-legacy-listed", answer: `{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}`, version: mcplive.ProtocolVersion},
		{name: "unsupported-other-modern", answer: `{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2099-01-01"]}}`, errText: "2099-01-01"},
		{name: "missing-capability", answer: `{"code":-32021,"message":"missing capability"}`, errText: "missing capability"},
		{name: "pinned-modern-legacy-server", answer: `{"code":-32601,"message":"method not found"}`, pin: mcplive.ModernVersion, errText: "method not found"},
		{name: "pinned-legacy", pin: mcplive.ProtocolVersion, version: mcplive.ProtocolVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, err := scripted.New("", 0) // a legacy server, whatever this run's era
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			if tc.answer != "" {
				srv.Hook = func(r *scripted.Request) error {
					if r.Method == "server/discover" {
						return scripted.RawError(json.RawMessage(tc.answer))
					}
					return nil
				}
			}
			o := liveOptions()
			o.ProtocolVersion = tc.pin
			o.Reconnect.Disabled = true
			c, err := mcplive.Connect(liveCtx(t), srv.URL, o)
			if tc.version == "" {
				if err == nil || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("Connect = %v, want an error mentioning %q", err, tc.errText)
				}
				return
			}
			assertNoErr(t, err, "Connect")
			defer c.Close()
			assertEqual(t, c.ProtocolVersion(), tc.version, "negotiated revision")
			wantDiscover := 1
			if tc.pin == mcplive.ProtocolVersion {
				wantDiscover = 0
			}
			assertEqual(t, srv.Count("server/discover"), wantDiscover, "discover requests")
			assertEqual(t, srv.Count("initialize"), 1, "initialize requests")
		})
	}
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

// ping is gone from this revision: the heartbeat is server/discover, and
// a server that stops answering it is given up.
func TestModernHeartbeat(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{}, 0)
	silent := make(chan struct{})
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "server/discover" && r.Conn == 1 {
			select {
			case <-silent:
				<-r.Done
				return scripted.ErrDrop
			default:
			}
		}
		return nil
	}
	o := modernOptions()
	o.HeartbeatInterval, o.HeartbeatTimeout = 10*time.Millisecond, 200*time.Millisecond
	c := liveConnect(t, srv.URL, o)
	states := liveWatchStates(t, c)
	close(silent)
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
	if srv.Count("ping") != 0 {
		t.Errorf("%d pings sent in %s", srv.Count("ping"), mcplive.ModernVersion)
	}
}
