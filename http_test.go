package mcplive_test

// Tests of the Streamable HTTP transport against the official go-sdk
// server (mcp.NewStreamableHTTPHandler): live lists over the GET stream,
// both of go-sdk's answer modes, an expired session, a restarted server,
// DELETE on Close, a stateless server. The hostile server's tests are in
// http_hostile_test.go.

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkServer is a go-sdk server on one transport, as the tests that run
// over every transport see it.
type sdkServer struct {
	URL     string
	S       func() *mcp.Server // the current server (a restart makes a new one)
	Restart func(setup func(*mcp.Server))
	HTTP    *mcptest.HTTPServer // nil for WebSocket
}

// sdkTransports start the go-sdk server on each transport: WebSocket
// (mcpws), Streamable HTTP with event-stream answers, and with JSON
// answers. In the run of 2026-07-28 the HTTP servers are stateless: go-sdk
// speaks that revision over HTTP only so.
var sdkTransports = []struct {
	name  string
	start func(t testing.TB, o *mcptest.Options) sdkServer
}{
	{"websocket", func(t testing.TB, o *mcptest.Options) sdkServer {
		s := mcptest.NewWebSocket(t, o)
		return sdkServer{URL: s.URL, S: func() *mcp.Server { return s.S }, Restart: s.Restart}
	}},
	{"http", func(t testing.TB, o *mcptest.Options) sdkServer {
		s := mcptest.NewHTTP(t, o, &mcp.StreamableHTTPOptions{Stateless: !legacyEra()})
		return sdkServer{URL: s.URL, S: func() *mcp.Server { return s.S }, Restart: s.Restart, HTTP: s}
	}},
	{"http-json", func(t testing.TB, o *mcptest.Options) sdkServer {
		s := mcptest.NewHTTP(t, o, &mcp.StreamableHTTPOptions{JSONResponse: true, Stateless: !legacyEra()})
		return sdkServer{URL: s.URL, S: func() *mcp.Server { return s.S }, Restart: s.Restart, HTTP: s}
	}},
}

// httpTransports are the HTTP entries of sdkTransports.
func httpTransports() []int { return []int{1, 2} }

// legacyEra reports whether this run's era has sessions and the GET
// stream (2025-11-25); the other, 2026-07-28, has neither: list changes
// arrive on a subscriptions/listen stream.
func legacyEra() bool { return testEra == "legacy" }

func TestHTTPNewTransport(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"http://127.0.0.1:1/mcp", "https://example.com/mcp", "HTTP://127.0.0.1:1/"} {
		tr, err := mcplive.NewTransport(url, &mcplive.Options{ReadLimit: 99, DialTimeout: time.Second})
		assertNoErr(t, err, "NewTransport "+url)
		ht, ok := tr.(*mcplive.HTTPTransport)
		if !ok || ht.URL != url || ht.ReadLimit != 99 || ht.DialTimeout != time.Second {
			t.Errorf("NewTransport(%q) = %#v, want an HTTPTransport with the options' limits", url, tr)
		}
	}
	_, err := (&mcplive.HTTPTransport{URL: "ws://127.0.0.1:1/"}).Connect(testCtx(t))
	assertErr(t, err, nil, "http://")
}

// Lists load, and a change on the server reaches the client's list: over
// the standalone GET stream (2025-11-25) or the subscriptions/listen
// stream (2026-07-28), in both of go-sdk's answer modes, and over
// WebSocket for comparison. Every request carries the headers its era
// asks for.
func TestHTTPSDKLiveLists(t *testing.T) {
	t.Parallel()
	for _, tr := range sdkTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			srv := tr.start(t, &mcptest.Options{PageSize: 7, Setup: liveSDKSetup})
			c := liveConnect(t, srv.URL, nil)
			assertEqual(t, c.ProtocolVersion(), eraVersion(), "negotiated version")
			liveWait(t, c.Tools(), "initial", liveHasKeys[mcplive.Tool](liveInitialKeys(liveSDKKinds[0])))
			rec := liveRecord(t, c.Tools())
			liveSDKKinds[0].put(srv.S(), "added", "new")
			u := rec.at(t, 0)
			if len(u.Added) != 1 || u.Added[0].Key() != "added" {
				t.Fatalf("update after AddTool: %s", liveDescribeAll(rec.all()))
			}
			res, err := c.CallTool(liveCtx(t), "added", nil, nil)
			assertNoErr(t, err, "CallTool")
			assertEqual(t, res.Content[0].Text, "added", "tool result")
			switch {
			case srv.HTTP == nil:
			case legacyEra():
				httpCheckHeaders(t, srv.HTTP, c.ProtocolVersion())
			default:
				httpCheckModernHeaders(t, srv.HTTP)
			}
		})
	}
}

// httpCheckModernHeaders checks the requests of a 2026-07-28 session:
// POSTs only, no session id, the protocol version and Mcp-Method on each
// request, Mcp-Name on a call.
func httpCheckModernHeaders(t *testing.T, srv *mcptest.HTTPServer) {
	t.Helper()
	for _, r := range srv.Requests() {
		if r.Method != http.MethodPost || r.SessionID() != "" {
			t.Errorf("%s %s with session id %q in the modern era", r.Method, r.RPC, r.SessionID())
		}
		if got := r.Header.Get("Mcp-Protocol-Version"); got != mcplive.ModernVersion {
			t.Errorf("POST %s: Mcp-Protocol-Version %q", r.RPC, got)
		}
		if r.RPC != "" && !strings.HasPrefix(r.RPC, "notifications/") && r.Header.Get("Mcp-Method") != r.RPC {
			t.Errorf("POST %s: Mcp-Method %q", r.RPC, r.Header.Get("Mcp-Method"))
		}
		if r.RPC == "tools/call" && r.Header.Get("Mcp-Name") != "added" {
			t.Errorf("tools/call: Mcp-Name %q", r.Header.Get("Mcp-Name"))
		}
	}
}

// httpCheckHeaders checks what the client sent: initialize without a
// session id; then the session id and the protocol version on every
// request; the Accept headers Streamable HTTP asks for.
func httpCheckHeaders(t *testing.T, srv *mcptest.HTTPServer, version string) {
	t.Helper()
	srv.WaitRequest("the GET stream", func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet })
	reqs := srv.Requests()
	if len(reqs) == 0 || reqs[0].RPC != "initialize" || reqs[0].SessionID() != "" {
		t.Fatalf("first request: %+v, want initialize without a session id", reqs[0])
	}
	sid := ""
	for i, r := range reqs {
		switch r.Method {
		case http.MethodPost:
			if got := r.Header.Get("Accept"); got != "application/json, text/event-stream" {
				t.Errorf("POST %s: Accept %q", r.RPC, got)
			}
			if got := r.Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("POST %s: Content-Type %q", r.RPC, got)
			}
		case http.MethodGet:
			if got := r.Header.Get("Accept"); got != "text/event-stream" {
				t.Errorf("GET: Accept %q", got)
			}
		}
		if i == 0 {
			continue
		}
		if sid == "" {
			sid = r.SessionID()
		}
		if r.SessionID() == "" || r.SessionID() != sid {
			t.Errorf("%s %s: session id %q, want %q", r.Method, r.RPC, r.SessionID(), sid)
		}
		if got := r.Header.Get("Mcp-Protocol-Version"); got != version {
			t.Errorf("%s %s: Mcp-Protocol-Version %q, want %q", r.Method, r.RPC, got, version)
		}
	}
}

// The server ends the session (as one that expires sessions does): the
// client's next request (here the GET stream re-opening) gets 404, the
// connection ends with an error that says so, and the client starts a new
// session and syncs everything again; changes reach it on the new session.
func TestHTTPSDKSessionExpired(t *testing.T) {
	onlyIn(t, "legacy") // sessions are of this era
	t.Parallel()
	for _, i := range httpTransports() {
		tr := sdkTransports[i]
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			srv := tr.start(t, &mcptest.Options{PageSize: 7, Setup: liveSDKSetup})
			log := &liveLog{}
			o := liveOptions()
			o.Logger = log.Logger()
			c := liveConnect(t, srv.URL, o)
			states := liveWatchStates(t, c)
			first := srv.HTTP.WaitRequest("the GET stream", func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet }).SessionID()
			rec := liveRecord(t, c.Tools())

			srv.HTTP.EndSession(first)
			states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
			second := srv.HTTP.WaitRequest("a request of a new session", func(r mcptest.HTTPRequest) bool {
				return r.SessionID() != "" && r.SessionID() != first
			}).SessionID()
			if len(log.find("ended session", first, "404")) == 0 {
				t.Errorf("the log does not say that the server ended the session: %q", log.find(""))
			}
			// The resync: stale, then the same items (no diff).
			liveCheckResync(t, rec, liveSDKKinds[0], false)
			sdkSentinel(t, srv.S(), rec, liveSDKKinds[0])
			srv.HTTP.WaitRequest("the GET stream of the new session", func(r mcptest.HTTPRequest) bool {
				return r.Method == http.MethodGet && r.SessionID() == second
			})
		})
	}
}

// A restarted server (streams dropped, the session unknown to the new
// one): the client reconnects and each list gets one diff against what
// its subscribers last saw.
func TestHTTPSDKRestart(t *testing.T) {
	t.Parallel()
	for _, i := range httpTransports() {
		tr := sdkTransports[i]
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			srv := tr.start(t, &mcptest.Options{PageSize: 7, Setup: liveSDKSetup})
			c := liveConnect(t, srv.URL, nil)
			states := liveWatchStates(t, c)
			trec, prec := liveRecord(t, c.Tools()), liveRecord(t, c.Prompts())
			srv.Restart(func(s *mcp.Server) {
				liveSDKSetup(s)
				k := liveSDKKinds[0]
				k.remove(s, k.key(0))
				k.put(s, k.key(60), "new")
				k.put(s, k.key(1), "v2")
			})
			// Nothing tells an idle HTTP client of the restart until one
			// of its streams fails: the GET stream, or the listen stream.
			states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
			liveCheckResync(t, trec, liveSDKKinds[0], true)
			liveCheckResync(t, prec, liveSDKKinds[1], false)
			sdkSentinel(t, srv.S(), trec, liveSDKKinds[0])
		})
	}
}

// Close ends the session on the server with DELETE (carrying the session
// id) and leaves no goroutine behind (TestMain checks).
func TestHTTPSDKCloseDeletes(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTP(t, &mcptest.Options{Setup: liveSDKSetup}, &mcp.StreamableHTTPOptions{Stateless: !legacyEra()})
	c, err := mcplive.Connect(testCtx(t), srv.URL, eraOptions(liveOptions()))
	assertNoErr(t, err, "Connect")
	if !legacyEra() {
		// 2026-07-28 has no sessions: nothing to delete.
		assertNoErr(t, c.Close(), "Close")
		for _, r := range srv.Requests() {
			if r.Method != http.MethodPost {
				t.Errorf("%s in the modern era", r.Method)
			}
		}
		return
	}
	sid := srv.WaitRequest("the GET stream", func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet }).SessionID()
	assertNoErr(t, c.Close(), "Close")
	srv.WaitRequest("DELETE", func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodDelete && r.SessionID() == sid })
}

// Calls work over HTTP: a tool, a prompt, a resource, its subscription
// (resources/updated arrives on the GET stream), progress notifications
// on a call's own event stream.
func TestHTTPSDKCalls(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTP(t, &mcptest.Options{Setup: func(s *mcp.Server) {
		liveSDKSetup(s)
		s.AddTool(mcptest.Tool("slow"), func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				if err := r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: r.Params.GetProgressToken(), Progress: float64(i), Total: 3}); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	}}, &mcp.StreamableHTTPOptions{Stateless: !legacyEra()})
	c := liveConnect(t, srv.URL, nil)
	ctx := liveCtx(t)
	var progress []float64
	res, err := c.CallTool(ctx, "slow", nil, &mcplive.CallToolOptions{OnProgress: func(p mcplive.Progress) { progress = append(progress, p.Progress) }})
	assertNoErr(t, err, "CallTool")
	assertEqual(t, res.Content[0].Text, "done", "result")
	assertEqual(t, progress, []float64{1, 2, 3}, "progress")

	uri := liveSDKKinds[2].key(3)
	got := make(chan string, 4)
	if _, err := c.SubscribeResource(ctx, uri, func(u string) { got <- u }); err != nil {
		t.Fatal(err)
	}
	if err := srv.S.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	assertEqual(t, liveRecv(t, got, "resources/updated"), uri, "updated URI")
	var rpcErr *mcplive.RPCError
	if _, err := c.CallTool(ctx, "nope", nil, nil); !errors.As(err, &rpcErr) {
		t.Errorf("unknown tool: %v, want an RPCError", err)
	}
}

// A stateless go-sdk server has no session and no GET stream (405): the
// client works all the same, in both eras.
func TestHTTPSDKStateless(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTP(t, &mcptest.Options{Setup: liveSDKSetup}, &mcp.StreamableHTTPOptions{Stateless: true})
	c := liveConnect(t, srv.URL, nil)
	liveWait(t, c.Tools(), "initial", liveHasKeys[mcplive.Tool](liveInitialKeys(liveSDKKinds[0])))
	if legacyEra() {
		srv.WaitRequest("the GET", func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet })
	}
	assertNoErr(t, c.Ping(liveCtx(t)), "Ping")
	// A stateless server answers the 2025-11-25 GET stream with 405: it can
	// tell the client of no change between requests, so no list is live.
	// In 2026-07-28 the listen stream carries the changes.
	assertEqual(t, c.Tools().Snapshot().Live, !legacyEra(), "tools live")
	for _, r := range srv.Requests() {
		if r.SessionID() != "" {
			t.Errorf("%s %s carries a session id %q the server never assigned", r.Method, r.RPC, r.SessionID())
		}
	}
	assertEqual(t, c.State(), mcplive.StateReady, "state")
}

// sdkSentinel is liveSentinel for any sdkServer: the next change of the
// list is its next update.
func sdkSentinel[T mcplive.Item](t *testing.T, s *mcp.Server, rec *liveRec[T], k liveSDKKind) {
	t.Helper()
	n := len(rec.all())
	want := rec.all()[n-1].Version + 1
	k.put(s, k.key(70), "sentinel")
	u := rec.at(t, n)
	if u.Version != want || len(u.Added) != 1 || u.Added[0].Key() != k.key(70) {
		t.Errorf("%s: update after the resync: %s; want only the sentinel's addition", k.name, liveDescribeAll(rec.all()[n:]))
	}
}
