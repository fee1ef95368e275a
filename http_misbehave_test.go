package mcplive_test

// Streamable HTTP under misbehaving servers and proxies (issue 31): one bad
// answer costs one request, never the session. Each test scripts one fault
// on internal/hostilehttp and checks what fails, what goes on, and the
// words of the error.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	hh "github.com/mcplive/mcplive/internal/hostilehttp"
	"github.com/mcplive/mcplive/internal/scripted"
)

// A bad answer (as a JSON body, or as an event of the request's stream)
// fails the request it answers at once with an ErrProtocol that quotes it;
// the session carries on.
func TestHTTPBadAnswerFailsItsRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, text string // body: %[1]s is the request's id
	}{
		{"invalid-json", `{"jsonrpc":"2.0","id":%[1]s,"result":{oops}}`, "not valid JSON"},
		{"batch", `[{"jsonrpc":"2.0","id":%[1]s,"result":{}}]`, "batch"},
		{"no-id", `{"jsonrpc":"2.0","result":{}}`, "without an id"},
		{"result-and-error", `{"jsonrpc":"2.0","id":%[1]s,"result":{},"error":{"code":1,"message":"x"}}`, "both a result and an error"},
		{"bom", "\xEF\xBB\xBF" + `{"jsonrpc":"2.0","id":%[1]s,"result":{}}`, `not a JSON object: "\ufeff{`},
		{"jsonrpc-1.0", `{"jsonrpc":"1.0","id":%[1]s,"result":{}}`, `"jsonrpc": "2.0"`},
		{"not-json", `hello`, "not a JSON object"},
	} {
		for _, sse := range []bool{false, true} {
			name := tc.name + "/json"
			if sse {
				name = tc.name + "/sse"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				var logs logBuf
				s, h := hSession(t, hh.Options{}, mcplive.HTTPTransport{}, &mcplive.Options{Logger: logs.logger()})
				done := async(func() error { return s.Ping(testCtx(t)) })
				r := h.Expect(http.MethodPost, "ping")
				body := tc.body
				if strings.Contains(body, "%[1]s") {
					body = fmt.Sprintf(body, r.RPC.ID)
				}
				if sse {
					r.SSE()
					r.Event("", body) // and the stream stays open
				} else {
					r.JSON(200, body)
				}
				err := recv(t, done, "Ping to fail")
				assertErr(t, err, errs(mcplive.ErrProtocol), "ping", tc.text)
				if errors.Is(err, mcplive.ErrClosed) {
					t.Errorf("Ping: %v: the session must carry on", err)
				}
				if sse {
					r.WaitGone("the bad stream")
				}
				hPing(t, s, h)
			})
		}
	}
}

// A bad message on the standalone stream is reported to the logger and
// skipped: the next notification arrives, and the session carries on.
func TestHTTPBadMessageOnTheStreamIsSkipped(t *testing.T) {
	t.Parallel()
	var logs logBuf
	notes, onNote := newHNotes()
	stream := make(chan *hh.Request, 1)
	s, h := hSession(t, hh.Options{SessionID: "s1", GET: true, Handle: func(r *hh.Request) bool {
		if r.Method != http.MethodGet {
			return false
		}
		r.SSE() // open at once: the session is ready once it is
		stream <- r
		<-r.Gone
		return true
	}}, mcplive.HTTPTransport{}, &mcplive.Options{Logger: logs.logger(), OnNotification: onNote})
	g := recv(t, stream, "the GET stream")
	for _, bad := range []string{"not json", `[{"jsonrpc":"2.0","method":"notifications/x"}]`, `{"jsonrpc":"1.0","method":"notifications/x"}`, "\xEF\xBB\xBF{}"} {
		g.Event("", bad)
	}
	g.Event("", `{"jsonrpc":"2.0","method":"notifications/after"}`)
	notes.expect(t, "notifications/after")
	if n := strings.Count(logs.String(), "skipped a message"); n != 4 {
		t.Errorf("%d skipped messages logged, want 4:\n%s", n, logs.String())
	}
	hPing(t, s, h)
}

// A POST's JSON answer that is not the response to it fails the request at
// once, naming the id it got; an event stream that ends without it too.
func TestHTTPWrongIDFailsAtOnce(t *testing.T) {
	t.Parallel()
	s, h := hSession(t, hh.Options{}, mcplive.HTTPTransport{}, nil)
	done := async(func() error { return s.Ping(testCtx(t)) })
	h.Expect(http.MethodPost, "ping").JSON(200, `{"jsonrpc":"2.0","id":999,"result":{}}`)
	assertErr(t, recv(t, done, "Ping"), errs(mcplive.ErrProtocol), "ping", "the response to id 999")

	done = async(func() error { return s.Ping(testCtx(t)) })
	r := h.Expect(http.MethodPost, "ping")
	r.SSE()
	r.Event("", `{"jsonrpc":"2.0","id":999,"result":{}}`)
	r.Done()
	assertErr(t, recv(t, done, "Ping"), errs(mcplive.ErrProtocol), "ping", "ended without its answer")
	hPing(t, s, h)
}

// Any failure of the optional GET stream (cut without an HTTP answer, a
// redirect loop, a 403 of a proxy) is the stream's alone, as a 405 is: the
// session opens, and the GET is tried again; when it opens, every list is
// re-listed.
func TestHTTPGETStreamFailureIsItsOwn(t *testing.T) {
	t.Parallel()
	for name, fail := range map[string]func(r *hh.Request){
		"cut":  func(r *hh.Request) { r.Cut() },
		"loop": func(r *hh.Request) { r.SetHeader("Location", r.Path); r.Answer(307, "", "") },
		"403":  func(r *hh.Request) { r.Answer(403, "text/plain", "POST only") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			notes, onNote := newHNotes()
			h := hh.New(t, hh.Options{SessionID: "s1", GET: true})
			opened := async(func() error {
				s, err := mcplive.NewSession(testCtx(t), &mcplive.HTTPTransport{URL: h.URL}, eraOptions(&mcplive.Options{OnNotification: onNote}))
				if err == nil {
					t.Cleanup(func() { s.Close() })
				}
				return err
			})
			g := h.Expect(http.MethodGet, "")
			fail(g)
			assertNoErr(t, recv(t, opened, "NewSession"), "NewSession with a failing GET stream")
			g = h.Expect(http.MethodGet, "") // tried again
			g.SSE()
			g.Event("", `{"jsonrpc":"2.0","method":"notifications/hello"}`)
			notes.expect(t, "notifications/tools/list_changed") // the gap: re-list everything
		})
	}
}

// A Client over a server whose GET stream is cut: connect succeeds, the
// lists are listed and not live.
func TestHTTPGETStreamCutClientConnects(t *testing.T) {
	t.Parallel()
	h := hh.New(t, hh.Options{SessionID: "s1", GET: true, Caps: `{"tools":{"listChanged":true}}`, Handle: func(r *hh.Request) bool {
		switch {
		case r.Method == http.MethodGet:
			panic(http.ErrAbortHandler) // cut without an answer
		case r.RPC.Method == "tools/list":
			r.Result(`{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`)
			return true
		case r.RPC.Method == "server/discover":
			r.JSON(200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, r.RPC.ID))
			return true
		}
		return false
	}})
	o := liveOptions()
	o.Transport = &mcplive.HTTPTransport{URL: h.URL}
	c, err := mcplive.Connect(testCtx(t), h.URL, eraOptions(o))
	assertNoErr(t, err, "Connect with the GET stream cut")
	t.Cleanup(func() { c.Close() })
	snap := c.Tools().Snapshot()
	if snap.Status != mcplive.StatusReady || len(snap.Items) != 1 || snap.Live {
		t.Errorf("tools: %s, live %v; want ready with one tool, not live", liveDescribe(snap), snap.Live)
	}
}

// 2026-07-28 has no sessions, no GET stream, no resumption: a session id
// the server mints is not sent back, Close sends no DELETE, and a stream
// that ends without its answer (with an event id) fails the request with
// words that say so instead of a GET with Last-Event-ID.
func TestHTTPModernHasNoSessionMechanics(t *testing.T) {
	t.Parallel()
	discover := func(r *hh.Request) {
		r.SetHeader("Mcp-Session-Id", "minted")
		r.Result(`{"supportedVersions":["2026-07-28"],"capabilities":{},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"m","version":"1"}}}`)
	}
	h := hh.New(t, hh.Options{Modern: true})
	var s *mcplive.Session
	opened := async(func() error {
		var err error
		s, err = mcplive.NewSession(testCtx(t), &mcplive.HTTPTransport{URL: h.URL}, &mcplive.Options{ProtocolVersion: mcplive.ModernVersion})
		return err
	})
	discover(h.Expect(http.MethodPost, "server/discover"))
	assertNoErr(t, recv(t, opened, "NewSession"), "NewSession")
	if !s.Modern() {
		t.Fatal("not modern")
	}
	for i := 0; i < 2; i++ {
		done := async(func() error { return s.Ping(testCtx(t)) })
		r := h.Expect(http.MethodPost, "server/discover")
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
			t.Errorf("request %d sent Mcp-Session-Id %q", i, sid)
		}
		if i == 0 {
			discover(r)
			assertNoErr(t, recv(t, done, "Ping"), "Ping")
			continue
		}
		// A stream with an event id that ends without the answer.
		r.SSE()
		r.Event("e1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
		r.Done()
		// server/discover is safe to send again: it is, and fails alike.
		for j := 0; j < 2; j++ {
			r = h.Expect(http.MethodPost, "server/discover")
			if r.Header.Get("Last-Event-Id") != "" {
				t.Errorf("a re-send carried Last-Event-ID")
			}
			r.SSE()
			r.Event("e1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
			r.Done()
		}
		assertErr(t, recv(t, done, "Ping"), errs(mcplive.ErrProtocol), "event stream", "ended without its answer", "not resumed")
	}
	s.Close()
	for _, rec := range h.Log() {
		if rec.Method == http.MethodGet || rec.Method == http.MethodDelete {
			t.Errorf("the client sent %s in 2026-07-28", rec.Method)
		}
	}
}

// Redirects to another origin are not followed (nothing reaches it: not
// the app's headers, the session id or the token); a loop is named as one.
func TestHTTPRedirectOriginAndLoop(t *testing.T) {
	t.Parallel()
	other := hh.New(t, hh.Options{})
	s, h := hSession(t, hh.Options{SessionID: "s1"}, mcplive.HTTPTransport{Header: mcplive.Header{"X-Api-Key": {"secret"}}}, nil)
	done := async(func() error { return s.Ping(testCtx(t)) })
	r := h.Expect(http.MethodPost, "ping")
	r.SetHeader("Location", other.URL)
	r.Answer(307, "", "")
	assertErr(t, recv(t, done, "Ping"), errs(mcplive.ErrProtocol), "another origin", other.URL, "does not follow")
	if n := len(other.Log()); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}

	done = async(func() error { return s.Ping(testCtx(t)) })
	r = h.Expect(http.MethodPost, "ping")
	r.SetHeader("Location", "/a")
	r.Answer(308, "", "")
	r = h.Expect(http.MethodPost, "ping")
	r.SetHeader("Location", "/mcp")
	r.Answer(308, "", "")
	assertErr(t, recv(t, done, "Ping"), errs(mcplive.ErrProtocol), "redirect loop", "/mcp → ", "/a → ")
	hPing(t, s, h)
}

// Retry-After of a 503 to a list page is honoured: the page is asked for
// again, and the walk succeeds.
func TestHTTPRetryAfterOnAListPage(t *testing.T) {
	t.Parallel()
	s, h := hSession(t, hh.Options{Caps: `{"tools":{}}`}, mcplive.HTTPTransport{}, nil)
	list := async(func() error { _, err := s.ListTools(testCtx(t)); return err })
	r := h.Expect(http.MethodPost, "tools/list")
	r.SetHeader("Retry-After", "1")
	r.Answer(503, "text/plain", "busy")
	h.Expect(http.MethodPost, "tools/list").Result(`{"tools":[]}`)
	assertNoErr(t, recv(t, list, "ListTools"), "ListTools after a 503 with Retry-After")

	// A call that is not safe to send again fails with the 503.
	call := async(func() error { _, err := s.CallTool(testCtx(t), "x", nil, nil); return err })
	r = h.Expect(http.MethodPost, "tools/call")
	r.SetHeader("Retry-After", "1")
	r.Answer(503, "text/plain", "busy")
	var herr *mcplive.HTTPError
	if err := recv(t, call, "CallTool"); !errors.As(err, &herr) || herr.StatusCode != 503 || herr.RetryAfter.Seconds() != 1 {
		t.Fatalf("CallTool: %v, want the 503 with RetryAfter 1 s", err)
	}
}

// server/discover answers that are neither a DiscoverResult nor a
// recognized modern error all fall back to initialize (the spec: "anything
// else identifies a legacy server"), whatever their shape.
func TestHTTPDiscoverAnswersFallBackAlike(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	for name, body := range map[string]string{
		"null":          `{"jsonrpc":"2.0","id":%s,"result":null}`,
		"invalid-json":  `{"jsonrpc":"2.0","id":%s,"result":{nope}}`,
		"string":        `{"jsonrpc":"2.0","id":%s,"result":"2026-07-28"}`,
		"wrong-types":   `{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":"2026-07-28","capabilities":[]}}`,
		"empty-object":  `{"jsonrpc":"2.0","id":%s,"result":{}}`,
		"not-json-body": `<html>hello</html>%.0s`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := hh.New(t, hh.Options{Modern: true})
			opened := async(func() error {
				s, err := mcplive.NewSession(testCtx(t), &mcplive.HTTPTransport{URL: h.URL}, nil)
				if err == nil {
					defer s.Close()
					if s.Modern() {
						return errors.New("the session is modern")
					}
				}
				return err
			})
			r := h.Expect(http.MethodPost, "server/discover")
			r.JSON(200, fmt.Sprintf(body, r.RPC.ID))
			assertNoErr(t, recv(t, opened, "NewSession"), "NewSession after a "+name+" discover answer")
			h.WaitLog("initialize", func(rec hh.Record) bool { return rec.RPC.Method == "initialize" })
		})
	}
}

// While only the 2026-07-28 listen stream is re-opened (a server slow to
// acknowledge the new one), calls go out at once.
func TestModernCallsDuringListenReopen(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	release := make(chan struct{})
	srv := liveScripted(t, "", 0)
	srv.Set(scripted.Tools, scripted.Tool("a"))
	var listens atomic.Int32
	srv.Hook = func(r *scripted.Request) error {
		if r.Method == "subscriptions/listen" {
			if listens.Add(1) == 2 {
				select {
				case <-release:
				case <-r.Done:
				}
			}
		}
		return nil
	}
	c := liveConnect(t, srv.URL, modernOptions())
	states := liveWatchStates(t, c)
	srv.EndListens(true)
	states.await(t, mcplive.StateReconnecting)
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	_, err := c.CallTool(ctx, "a", nil, nil)
	assertNoErr(t, err, "a call while the listen stream is re-opened")
	close(release)
	states.await(t, mcplive.StateReconnecting, mcplive.StateReady)
}

// In 2026-07-28 a subscriptions/listen stream cut mid-way fails the listen
// alone: a call in flight on its own POST gets its answer, and the stream is
// opened again (issue 31).
func TestHTTPModernListenDropKeepsCalls(t *testing.T) {
	t.Parallel()
	listens := make(chan *hh.Request, 4)
	calls := make(chan *hh.Request, 4)
	cut, answer := make(chan struct{}), make(chan struct{})
	var n atomic.Int32
	h := hh.New(t, hh.Options{Modern: true, Handle: func(r *hh.Request) bool {
		switch r.RPC.Method {
		case "server/discover":
			r.Result(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"m","version":"1"}}}`)
		case "tools/list":
			r.Result(`{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`)
		case "subscriptions/listen":
			r.SSE()
			r.Event("", fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, r.RPC.ID))
			listens <- r
			if n.Add(1) == 1 {
				select {
				case <-cut:
					r.Raw("data: {\"jsonrpc\":") // a broken event, then the cut
					panic(http.ErrAbortHandler)
				case <-r.Gone:
				}
			}
			<-r.Gone
		case "tools/call":
			calls <- r
			select {
			case <-answer:
				r.Result(`{"content":[]}`)
			case <-r.Gone:
			}
		default:
			return false
		}
		return true
	}})
	o := modernOptions()
	o.Transport = &mcplive.HTTPTransport{URL: h.URL}
	c, err := mcplive.Connect(testCtx(t), h.URL, eraOptions(o))
	assertNoErr(t, err, "Connect")
	t.Cleanup(func() { c.Close() })
	recv(t, listens, "the listen stream")
	call := async(func() error { _, err := c.CallTool(testCtx(t), "t", nil, nil); return err })
	recv(t, calls, "the call")
	close(cut)
	recv(t, listens, "the listen stream opened again")
	close(answer)
	assertNoErr(t, recv(t, call, "CallTool"), "a call in flight while the listen stream dropped")
}

// A reconnect refused with 503 and Retry-After waits that long before the
// next attempt (the client's own backoff is shorter here).
func TestHTTPRetryAfterOnAReconnect(t *testing.T) {
	t.Parallel()
	var inits atomic.Int32
	var refusedAt, nextAt atomic.Int64
	h := hh.New(t, hh.Options{SessionID: "s1", Handle: func(r *hh.Request) bool {
		switch {
		case r.RPC.Method == "server/discover":
			r.JSON(200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, r.RPC.ID))
			return true
		case r.RPC.Method == "initialize":
			switch inits.Add(1) {
			case 2:
				r.SetHeader("Retry-After", "1")
				r.Answer(503, "text/plain", "busy")
				refusedAt.Store(time.Now().UnixNano())
				return true
			case 3:
				nextAt.Store(time.Now().UnixNano())
			}
		case r.RPC.Method == "ping":
			r.Answer(404, "text/plain", "no such session") // the session is gone: reconnect
			return true
		}
		return false
	}})
	o := liveOptions()
	o.Transport = &mcplive.HTTPTransport{URL: h.URL}
	o.Reconnect.InitialDelay = time.Millisecond
	o.Reconnect.MaxDelay = 10 * time.Millisecond
	c, err := mcplive.Connect(testCtx(t), h.URL, eraOptions(o))
	assertNoErr(t, err, "Connect")
	t.Cleanup(func() { c.Close() })
	_ = c.Ping(testCtx(t))
	h.WaitLog("the third initialize", func(rec hh.Record) bool { return rec.RPC.Method == "initialize" && nextAt.Load() != 0 })
	// A lower bound on a wait the server asked for, not a speed budget.
	if waited := time.Duration(nextAt.Load() - refusedAt.Load()); waited < 900*time.Millisecond {
		t.Errorf("the attempt after a 503 with Retry-After: 1 came %v after it", waited)
	}
}
