package mcplive_test

// The Streamable HTTP transport against a hostile server
// (internal/hostilehttp) whose every answer the test writes: each kind of
// bad input gets a clear error and loses nothing, and the connection
// carries on where it can.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	hh "github.com/mcplive/mcplive/internal/hostilehttp"
)

// hSession opens a Session over Streamable HTTP on a new hostile server.
func hSession(t testing.TB, ho hh.Options, tr mcplive.HTTPTransport, o *mcplive.Options) (*mcplive.Session, *hh.Server) {
	t.Helper()
	h := hh.New(t, ho)
	tr.URL = h.URL
	s, err := mcplive.NewSession(testCtx(t), &tr, eraOptions(o))
	assertNoErr(t, err, "NewSession")
	t.Cleanup(func() { s.Close() })
	return s, h
}

// hPing checks that the session still carries requests.
func hPing(t testing.TB, s *mcplive.Session, h *hh.Server) {
	t.Helper()
	done := async(func() error { return s.Ping(testCtx(t)) })
	h.Expect(http.MethodPost, "ping").Result("{}")
	assertNoErr(t, recv(t, done, "Ping"), "Ping on the surviving session")
}

// hNotes collects the notifications a session hears.
type hNotes struct{ ch chan string }

func newHNotes() (*hNotes, func(string, json.RawMessage)) {
	n := &hNotes{ch: make(chan string, 64)}
	return n, func(method string, _ json.RawMessage) { n.ch <- method }
}

func (n *hNotes) expect(t testing.TB, method string) {
	t.Helper()
	if got := recv(t, n.ch, method); got != method {
		t.Fatalf("notification %q, want %q", got, method)
	}
}

// A request answered with a content type that is neither JSON nor an
// event stream fails with ErrProtocol naming it; the session carries on.
// The same answer to initialize means the URL is no MCP endpoint: ErrDial.
func TestHTTPHostileContentType(t *testing.T) {
	t.Parallel()
	s, h := hSession(t, hh.Options{}, mcplive.HTTPTransport{}, nil)
	done := async(func() error { return s.Ping(testCtx(t)) })
	h.Expect(http.MethodPost, "ping").Answer(200, "text/html", "<html>hello</html>")
	assertErr(t, recv(t, done, "Ping"), errs(mcplive.ErrProtocol), "ping", "text/html")
	hPing(t, s, h)

	h2 := hh.New(t, hh.Options{InitStatus: 200, InitType: "text/html; charset=utf-8", InitBody: "<html>login</html>"})
	_, err := mcplive.NewSession(testCtx(t), &mcplive.HTTPTransport{URL: h2.URL}, eraOptions(nil))
	assertErr(t, err, errs(mcplive.ErrDial, mcplive.ErrProtocol), "text/html", "MCP endpoint")
}

// An event over the read limit (in one line or in many, or a line that
// never ends) fails its request with ErrProtocol saying so; the session
// carries on (issue 31: one bad answer costs one request), and the client
// leaves the stream. A JSON answer over the limit: the same.
func TestHTTPHostileEventTooLarge(t *testing.T) {
	t.Parallel()
	for name, stream := range map[string]string{
		"one-line":     "data: " + strings.Repeat("x", 4096) + "\n\n",
		"many-lines":   strings.Repeat("data: "+strings.Repeat("x", 100)+"\n", 40) + "\n",
		"never-ending": "data: {\"jsonrpc\":\"2.0\"" + strings.Repeat(" ", 4096),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, h := hSession(t, hh.Options{}, mcplive.HTTPTransport{ReadLimit: 1024}, nil)
			hPing(t, s, h) // a small message passes
			done := async(func() error { return s.Ping(testCtx(t)) })
			r := h.Expect(http.MethodPost, "ping")
			r.SSE()
			r.Raw(stream) // and the stream stays open
			err := recv(t, done, "Ping to fail")
			assertErr(t, err, errs(mcplive.ErrProtocol), "read limit", "1024")
			if errors.Is(err, mcplive.ErrClosed) {
				t.Errorf("Ping: %v: the session must carry on", err)
			}
			r.WaitGone("the oversized stream")
			hPing(t, s, h)
		})
	}
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		s, h := hSession(t, hh.Options{}, mcplive.HTTPTransport{}, &mcplive.Options{ReadLimit: 1024})
		done := async(func() error { return s.Ping(testCtx(t)) })
		r := h.Expect(http.MethodPost, "ping")
		r.JSON(200, r.ResultMsg(fmt.Sprintf(`{"pad":%q}`, strings.Repeat("x", 4096))))
		assertErr(t, recv(t, done, "Ping to fail"), errs(mcplive.ErrProtocol), "read limit", "1024")
		hPing(t, s, h)
	})
}

// A stream that ends inside an event (no empty line after it), or ends
// without the response and without an event id to resume from, fails its
// request with an error that says so; the session carries on.
func TestHTTPHostileStreamEndsWithoutAnswer(t *testing.T) {
	t.Parallel()
	for name, stream := range map[string]string{
		"unterminated": `data: {"jsonrpc":"2.0","id":%s,"result":{}}`,
		"no-newline":   `data: {"jsonrpc":"2.0","id":%s,"resu`,
		"empty":        ``,
		"only-comment": ": nothing to see\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, h := hSession(t, hh.Options{}, mcplive.HTTPTransport{}, nil)
			done := async(func() error { return s.Ping(testCtx(t)) })
			r := h.Expect(http.MethodPost, "ping")
			r.SSE()
			if strings.Contains(stream, "%s") {
				stream = fmt.Sprintf(stream, r.RPC.ID)
			}
			r.Raw(stream)
			r.Done()
			err := recv(t, done, "Ping to fail")
			assertErr(t, err, errs(mcplive.ErrProtocol), "ping", "event stream", "ended without its answer")
			hPing(t, s, h)
		})
	}
}

// A connection that breaks in the middle of an answer fails that request
// alone (ErrClosed: "the connection broke"), at once; a call in flight on
// its own POST gets its answer, and the session carries on (issue 31). A
// list page whose answer broke is asked for again, and the walk succeeds.
func TestHTTPHostileBrokenAnswer(t *testing.T) {
	t.Parallel()
	for name, answer := range map[string]func(r *hh.Request){
		"sse": func(r *hh.Request) {
			r.SSE()
			r.Event("", `{"jsonrpc":"2.0","method":"notifications/before"}`)
			r.Raw("data: {\"jsonrpc\":")
		},
		"json": func(r *hh.Request) {
			r.SetHeader("Content-Length", "1000")
			r.SetHeader("Content-Type", "application/json")
			r.Raw(`{"jsonrpc":"2.0","id":`)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, h := hSession(t, hh.Options{Caps: `{"tools":{}}`}, mcplive.HTTPTransport{}, nil)
			healthy := async(func() error { _, err := s.CallTool(testCtx(t), "slow", nil, nil); return err })
			slow := h.Expect(http.MethodPost, "tools/call")
			done := async(func() error { return s.Ping(testCtx(t)) })
			r := h.Expect(http.MethodPost, "ping")
			answer(r)
			r.Abort()
			err := recv(t, done, "Ping")
			assertErr(t, err, errs(mcplive.ErrClosed), "connection broke", "answer to ping")
			slow.Result(`{"content":[]}`)
			assertNoErr(t, recv(t, healthy, "the healthy call"), "a call on its own POST")
			select {
			case <-s.Done():
				t.Fatalf("the session ended: %v", s.Err())
			default:
			}
			hPing(t, s, h)

			// A list page is safe to ask for again.
			list := async(func() error { _, err := s.ListTools(testCtx(t)); return err })
			r = h.Expect(http.MethodPost, "tools/list")
			answer(r)
			r.Abort()
			h.Expect(http.MethodPost, "tools/list").Result(`{"tools":[]}`)
			assertNoErr(t, recv(t, list, "ListTools"), "ListTools after a broken answer")
		})
	}
}

// 5xx then recovery: a request answered 503 fails with an *HTTPError (the
// session carries on), and the GET stream, refused with 503 while it
// re-opens, comes back and delivers.
func TestHTTPHostile5xxThenRecovery(t *testing.T) {
	t.Parallel()
	notes, onNote := newHNotes()
	s, h := hSession(t, hh.Options{SessionID: "s1", GET: true}, mcplive.HTTPTransport{}, &mcplive.Options{OnNotification: onNote})
	g := h.Expect(http.MethodGet, "")
	done := async(func() error { return s.Ping(testCtx(t)) })
	h.Expect(http.MethodPost, "ping").Answer(503, "text/plain", "try later")
	err := recv(t, done, "Ping")
	var herr *mcplive.HTTPError
	if !errors.As(err, &herr) || herr.StatusCode != 503 || errors.Is(err, mcplive.ErrClosed) || !strings.Contains(err.Error(), "try later") {
		t.Fatalf("Ping answered 503: %v, want an *HTTPError 503 that keeps the session", err)
	}
	hPing(t, s, h)

	g.SSE()
	g.Raw("retry: 10\n\n")
	g.Event("", `{"jsonrpc":"2.0","method":"notifications/one"}`)
	notes.expect(t, "notifications/one")
	g.Done() // the stream drops
	h.Expect(http.MethodGet, "").Answer(503, "text/plain", "busy")
	h.Expect(http.MethodGet, "").Answer(502, "text/plain", "bad gateway")
	g = h.Expect(http.MethodGet, "")
	g.SSE()
	g.Event("", `{"jsonrpc":"2.0","method":"notifications/two"}`)
	// Nothing could be resumed (no event id): every list is re-listed.
	for _, m := range []string{"notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/two"} {
		notes.expect(t, m)
	}
	hPing(t, s, h)
}

// Redirects: 307 and 308 keep the method and are followed (to the new
// location); 301, 302 and 303 would turn the POST into a GET and fail
// with an error that says so.
func TestHTTPHostileRedirect(t *testing.T) {
	t.Parallel()
	for _, code := range []int{307, 308} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			t.Parallel()
			s, h := hSession(t, hh.Options{}, mcplive.HTTPTransport{}, nil)
			done := async(func() error { return s.Ping(testCtx(t)) })
			r := h.Expect(http.MethodPost, "ping")
			r.SetHeader("Location", "/moved")
			r.Answer(code, "", "")
			r = h.Expect(http.MethodPost, "ping")
			assertEqual(t, r.Path, "/moved", "path after the redirect")
			r.Result("{}")
			assertNoErr(t, recv(t, done, "Ping"), "Ping through a redirect")
		})
	}
	for _, code := range []int{301, 302, 303} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			t.Parallel()
			s, h := hSession(t, hh.Options{}, mcplive.HTTPTransport{}, nil)
			done := async(func() error { return s.Ping(testCtx(t)) })
			r := h.Expect(http.MethodPost, "ping")
			r.SetHeader("Location", "/moved")
			r.Answer(code, "", "")
			assertErr(t, recv(t, done, "Ping"), errs(mcplive.ErrProtocol), "redirected a POST", "/moved", "GET")
			hPing(t, s, h)
		})
	}
}

// A server that never closes a POST stream: the client stops reading at
// the response and leaves the stream. One that never answers: the request
// times out, the client leaves the stream and sends notifications/cancelled.
func TestHTTPHostileEndlessPOSTStream(t *testing.T) {
	t.Parallel()
	t.Run("answered", func(t *testing.T) {
		t.Parallel()
		s, h := hSession(t, hh.Options{}, mcplive.HTTPTransport{}, nil)
		done := async(func() error { return s.Ping(testCtx(t)) })
		r := h.Expect(http.MethodPost, "ping")
		r.SSE()
		r.Event("1", r.ResultMsg("{}"))
		assertNoErr(t, recv(t, done, "Ping"), "Ping")
		r.WaitGone("the answered stream")
		hPing(t, s, h)
	})
	t.Run("never-answered", func(t *testing.T) {
		t.Parallel()
		s, h := hSession(t, hh.Options{}, mcplive.HTTPTransport{}, &mcplive.Options{RequestTimeout: 200 * time.Millisecond})
		done := async(func() error { return s.Ping(context.Background()) })
		r := h.Expect(http.MethodPost, "ping")
		r.SSE()
		r.Raw(": working on it\n\n")
		assertErr(t, recv(t, done, "Ping"), errs(mcplive.ErrTimeout), "ping")
		r.WaitGone("the stream of a timed-out request")
		c := h.WaitLog("notifications/cancelled", func(r hh.Record) bool { return r.RPC.Method == "notifications/cancelled" })
		if !strings.Contains(string(c.RPC.Params), string(r.RPC.ID)) {
			t.Errorf("cancelled %s, want request %s", c.RPC.Params, r.RPC.ID)
		}
	})
	t.Run("never-started", func(t *testing.T) {
		// No status line either: the POST itself is what the request
		// timeout must end.
		t.Parallel()
		s, h := hSession(t, hh.Options{}, mcplive.HTTPTransport{}, &mcplive.Options{RequestTimeout: 200 * time.Millisecond})
		done := async(func() error { return s.Ping(context.Background()) })
		r := h.Expect(http.MethodPost, "ping")
		assertErr(t, recv(t, done, "Ping"), errs(mcplive.ErrTimeout), "ping")
		r.WaitGone("the POST of a timed-out request")
		hPing(t, s, h)
	})
}

// Streams that drip one byte at a time: a POST stream with a notification
// and a server request before its response, and the GET stream.
func TestHTTPHostileDrip(t *testing.T) {
	t.Parallel()
	notes, onNote := newHNotes()
	s, h := hSession(t, hh.Options{SessionID: "s1", GET: true}, mcplive.HTTPTransport{}, &mcplive.Options{OnNotification: onNote})
	drip := func(r *hh.Request, s string) {
		for i := range len(s) {
			if !r.Raw(s[i : i+1]) {
				t.Fatal("the client left a dripping stream")
			}
		}
	}
	g := h.Expect(http.MethodGet, "")
	done := async(func() error { return s.Ping(testCtx(t)) })
	r := h.Expect(http.MethodPost, "ping")
	r.SSE()
	drip(r, "id: a1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/drip\"}\r\n\r\n")
	drip(r, "id: a2\rdata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\r\r")
	// The client answers the server's ping with a POST of its own.
	answer := h.WaitLog("the answer to the server's ping", func(r hh.Record) bool { return string(r.RPC.ID) == `"srv-1"` })
	assertEqual(t, string(answer.RPC.Result), "{}", "answer to the server's ping")
	drip(r, "id: a3\ndata: "+r.ResultMsg("{}")+"\n\n")
	assertNoErr(t, recv(t, done, "Ping"), "Ping over a dripping stream")
	notes.expect(t, "notifications/drip")

	g.SSE()
	drip(g, ": hello\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\n")
	drip(g, "data: \"method\":\"notifications/tools/list_changed\"}\n\n")
	notes.expect(t, "notifications/tools/list_changed")
}

// A 404 to a request that carries the session id: the server ended the
// session. The connection ends with an error that says so (ErrClosed), the
// client's cue to start a new session; no DELETE is sent for it.
func TestHTTPHostileSessionExpired(t *testing.T) {
	t.Parallel()
	s, h := hSession(t, hh.Options{SessionID: "s-42"}, mcplive.HTTPTransport{}, nil)
	hPing(t, s, h)
	done := async(func() error { return s.Ping(testCtx(t)) })
	h.Expect(http.MethodPost, "ping").Answer(404, "text/plain", "session not found")
	assertErr(t, recv(t, done, "Ping"), errs(mcplive.ErrClosed), "s-42", "404", "new session")
	recv(t, s.Done(), "Done")
	assertErr(t, s.Err(), errs(mcplive.ErrClosed), "ended session")
	s.Close()
	for _, r := range h.Log() {
		if r.Method == http.MethodDelete {
			t.Error("DELETE sent for a session the server had ended")
		}
	}
	// Without a session id a 404 is an error of the request alone.
	s2, h2 := hSession(t, hh.Options{}, mcplive.HTTPTransport{}, nil)
	done = async(func() error { return s2.Ping(testCtx(t)) })
	h2.Expect(http.MethodPost, "ping").Answer(404, "text/plain", "no such thing")
	var herr *mcplive.HTTPError
	if err := recv(t, done, "Ping"); !errors.As(err, &herr) || errors.Is(err, mcplive.ErrClosed) {
		t.Fatalf("404 without a session: %v, want an *HTTPError only", err)
	}
	hPing(t, s2, h2)
}

// Close sends DELETE with the session id; a server that never answers it
// holds Close for the dial timeout at most (which also bounds the
// initialize: one second leaves a loaded machine room for it).
func TestHTTPHostileCloseDeletes(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	var deletes atomic.Int32
	h := hh.New(t, hh.Options{SessionID: "s-7", Handle: func(r *hh.Request) bool {
		if r.Method != http.MethodDelete {
			return false
		}
		deletes.Add(1)
		<-r.Gone // never answers
		<-hold
		return true
	}})
	t.Cleanup(func() { close(hold) })
	s, err := mcplive.NewSession(testCtx(t), &mcplive.HTTPTransport{URL: h.URL, DialTimeout: time.Second}, eraOptions(nil))
	assertNoErr(t, err, "NewSession")
	assertNoErr(t, recv(t, async(s.Close), "Close"), "Close")
	d := h.WaitLog("DELETE", func(r hh.Record) bool { return r.Method == http.MethodDelete })
	assertEqual(t, d.Header.Get("Mcp-Session-Id"), "s-7", "DELETE's session id")
	assertEqual(t, deletes.Load(), int32(1), "DELETEs")
}

// Close with a request in flight (2025-11-25): a dropped POST does not
// cancel a request on the server, so Close sends notifications/cancelled
// for it before the DELETE (go-sdk holds a DELETE until the session's
// requests end).
func TestHTTPHostileCloseCancelsInFlight(t *testing.T) {
	t.Parallel()
	s, h := hSession(t, hh.Options{SessionID: "s-9"}, mcplive.HTTPTransport{}, nil)
	done := async(func() error { return s.Ping(context.Background()) })
	r := h.Expect(http.MethodPost, "ping") // never answered
	assertNoErr(t, recv(t, async(s.Close), "Close"), "Close")
	assertErr(t, recv(t, done, "Ping"), errs(mcplive.ErrClosed))
	var cancelled, deleted int
	for i, rec := range h.Log() {
		switch {
		case rec.RPC.Method == "notifications/cancelled":
			cancelled = i
			var p struct{ RequestID json.RawMessage }
			_ = json.Unmarshal(rec.RPC.Params, &p)
			assertEqual(t, string(p.RequestID), string(r.RPC.ID), "cancelled request id")
			assertEqual(t, rec.Header.Get("Mcp-Session-Id"), "s-9", "session id of the cancellation")
		case rec.Method == http.MethodDelete:
			deleted = i
		}
	}
	if cancelled == 0 || deleted < cancelled {
		t.Fatalf("requests after the ping: cancelled at %d, DELETE at %d; want the cancellation, then the DELETE", cancelled, deleted)
	}
}

// Credentials: Header and Token go with every request; a 401 is an
// *AuthError with the challenge's parameters (and ErrDial on initialize);
// OnUnauthorized may fix the credentials, and the request is sent once
// more.
func TestHTTPHostileAuth(t *testing.T) {
	t.Parallel()
	const challenge = `Bearer error="invalid_token", error_description="expired", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource", scope="tools:read tools:call"`
	t.Run("initialize", func(t *testing.T) {
		t.Parallel()
		h := hh.New(t, hh.Options{Handle: func(r *hh.Request) bool {
			r.SetHeader("WWW-Authenticate", challenge)
			r.Answer(401, "text/plain", "no")
			return true
		}})
		_, err := mcplive.NewSession(testCtx(t), &mcplive.HTTPTransport{URL: h.URL}, eraOptions(nil))
		var aerr *mcplive.AuthError
		if !errors.As(err, &aerr) || !errors.Is(err, mcplive.ErrDial) {
			t.Fatalf("initialize answered 401: %v, want an *AuthError matching ErrDial", err)
		}
		got := mcplive.AuthError{StatusCode: aerr.StatusCode, URL: aerr.URL, WWWAuthenticate: aerr.WWWAuthenticate,
			ResourceMetadata: aerr.ResourceMetadata, Scope: aerr.Scope, Code: aerr.Code, Description: aerr.Description}
		assertEqual(t, got, mcplive.AuthError{StatusCode: 401, URL: h.URL, WWWAuthenticate: challenge,
			ResourceMetadata: "https://mcp.example/.well-known/oauth-protected-resource", Scope: "tools:read tools:call",
			Code: "invalid_token", Description: "expired"}, "AuthError")
		if !strings.Contains(err.Error(), "oauth-protected-resource") {
			t.Errorf("error %q does not name the resource metadata", err)
		}
	})
	t.Run("token", func(t *testing.T) {
		t.Parallel()
		var mu sync.Mutex
		token := "t1"
		var hooked atomic.Int32
		tr := mcplive.HTTPTransport{
			Header: mcplive.Header{"X-App": {"demo"}},
			Token: func(context.Context) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				return token, nil
			},
			OnUnauthorized: func(_ context.Context, e *mcplive.AuthError) error {
				hooked.Add(1)
				if e.ResourceMetadata == "" {
					return errors.New("no metadata")
				}
				mu.Lock()
				token = "t2"
				mu.Unlock()
				return nil
			},
		}
		s, h := hSession(t, hh.Options{SessionID: "s1", GET: true}, tr, nil)
		g := h.Expect(http.MethodGet, "")
		g.SSE()
		done := async(func() error { return s.Ping(testCtx(t)) })
		r := h.Expect(http.MethodPost, "ping")
		r.SetHeader("WWW-Authenticate", challenge)
		r.Answer(401, "", "")
		h.Expect(http.MethodPost, "ping").Result("{}")
		assertNoErr(t, recv(t, done, "Ping"), "Ping after OnUnauthorized")
		assertEqual(t, hooked.Load(), int32(1), "OnUnauthorized calls")
		s.Close()
		h.WaitLog("DELETE", func(r hh.Record) bool { return r.Method == http.MethodDelete })
		var pings []string
		for _, r := range h.Log() {
			got := r.Header.Get("Authorization")
			if got != "Bearer t1" && got != "Bearer t2" || r.Method == http.MethodDelete && got != "Bearer t2" {
				t.Errorf("%s %s: Authorization %q", r.Method, r.RPC.Method, got)
			}
			if r.RPC.Method == "ping" {
				pings = append(pings, got)
			}
			assertEqual(t, r.Header.Get("X-App"), "demo", r.Method+" "+r.RPC.Method+": X-App")
		}
		assertEqual(t, pings, []string{"Bearer t1", "Bearer t2"}, "the pings' tokens")
	})
}

// TestHTTPHostileCredentials: the Credentials hook is called for each
// request with its method and URL, and its headers go with that request
// (a DPoP proof is made per method and URL); a 401 carries the server's
// DPoP-Nonce in the *AuthError, and the retry asks the hook again.
func TestHTTPHostileCredentials(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []string
	nonce := ""
	tr := mcplive.HTTPTransport{
		Credentials: func(_ context.Context, method, url string) (mcplive.Header, error) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, method+" "+url)
			return mcplive.Header{"Authorization": {"DPoP at"}, "DPoP": {"proof-" + strconv.Itoa(len(calls)) + "-" + nonce}}, nil
		},
		OnUnauthorized: func(_ context.Context, e *mcplive.AuthError) error {
			mu.Lock()
			defer mu.Unlock()
			nonce = e.DPoPNonce
			if e.Code != "use_dpop_nonce" || nonce == "" {
				return errors.New("not a nonce challenge")
			}
			return nil
		},
	}
	s, h := hSession(t, hh.Options{SessionID: "s1"}, tr, nil)
	done := async(func() error { return s.Ping(testCtx(t)) })
	r := h.Expect(http.MethodPost, "ping")
	r.SetHeader("WWW-Authenticate", `DPoP error="use_dpop_nonce", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource"`)
	r.SetHeader("DPoP-Nonce", "n1")
	r.Answer(401, "", "")
	h.Expect(http.MethodPost, "ping").Result("{}")
	assertNoErr(t, recv(t, done, "Ping"), "Ping after the nonce")
	var pings []string
	for _, r := range h.Log() {
		assertEqual(t, r.Header.Get("Authorization"), "DPoP at", r.Method+" "+r.RPC.Method+": Authorization")
		if r.RPC.Method == "ping" {
			pings = append(pings, r.Header.Get("DPoP"))
		}
	}
	if len(pings) != 2 || !strings.HasSuffix(pings[0], "-") || !strings.HasSuffix(pings[1], "-n1") || pings[0] == pings[1] {
		t.Errorf("the pings' proofs: %q, want a fresh proof each, the second with the nonce", pings)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, c := range calls {
		if c != "POST "+h.URL && c != "GET "+h.URL && c != "DELETE "+h.URL {
			t.Errorf("Credentials called with %q, want a method and %s", c, h.URL)
		}
	}
}

// Resumption: a POST stream that drops after an event id is resumed with a
// GET carrying Last-Event-ID, after the retry time the server asked for;
// the response arrives on it. The GET stream resumes the same way.
func TestHTTPHostileResume(t *testing.T) {
	t.Parallel()
	notes, onNote := newHNotes()
	s, h := hSession(t, hh.Options{SessionID: "s1", GET: true}, mcplive.HTTPTransport{}, &mcplive.Options{OnNotification: onNote})
	g := h.Expect(http.MethodGet, "")
	g.SSE()
	g.Raw("retry: 5\n\n")
	g.Event("g-1", `{"jsonrpc":"2.0","method":"notifications/g1"}`)
	notes.expect(t, "notifications/g1")

	done := async(func() error { return s.Ping(testCtx(t)) })
	r := h.Expect(http.MethodPost, "ping")
	r.SSE()
	r.Raw("id: p-1\nretry: 5\ndata:\n\n") // the priming event
	r.Event("p-2", `{"jsonrpc":"2.0","method":"notifications/p2"}`)
	notes.expect(t, "notifications/p2")
	r.Done() // the server closes the connection, not the stream

	res := h.Expect(http.MethodGet, "")
	assertEqual(t, res.Header.Get("Last-Event-ID"), "p-2", "Last-Event-ID of the resumed POST stream")
	res.SSE()
	res.Event("p-3", r.ResultMsg("{}"))
	assertNoErr(t, recv(t, done, "Ping"), "Ping answered on the resumed stream")
	res.WaitGone("the resumed stream, once answered")

	g.Done() // the GET stream drops
	g2 := h.Expect(http.MethodGet, "")
	assertEqual(t, g2.Header.Get("Last-Event-ID"), "g-1", "Last-Event-ID of the resumed GET stream")
	g2.SSE()
	g2.Event("g-2", `{"jsonrpc":"2.0","method":"notifications/g2"}`)
	notes.expect(t, "notifications/g2") // and no re-list: the stream was resumed
}

// A JSON-RPC error sent with an HTTP error status is the request's answer:
// an *RPCError, whatever id the server put in it.
func TestHTTPHostileErrorBody(t *testing.T) {
	t.Parallel()
	s, h := hSession(t, hh.Options{}, mcplive.HTTPTransport{}, nil)
	done := async(func() error { return s.Ping(testCtx(t)) })
	h.Expect(http.MethodPost, "ping").JSON(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: missing header"}}`)
	var rpcErr *mcplive.RPCError
	if err := recv(t, done, "Ping"); !errors.As(err, &rpcErr) || rpcErr.Code != -32600 {
		t.Fatalf("Ping: %v, want the server's RPCError -32600", err)
	}
	hPing(t, s, h)
}

// Nothing listens: ErrDial with what to check. A server that never
// answers initialize: ErrTimeout and ErrDial after the dial timeout.
func TestHTTPDialFailures(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	assertNoErr(t, err, "listen")
	url := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	_, err = mcplive.NewSession(testCtx(t), &mcplive.HTTPTransport{URL: url}, eraOptions(nil))
	assertErr(t, err, errs(mcplive.ErrDial), "server up")
	if errors.Is(err, mcplive.ErrClosed) {
		t.Errorf("refused: %v matches ErrClosed", err)
	}

	h := hh.New(t, hh.Options{Handle: func(r *hh.Request) bool {
		<-r.Gone
		return true
	}})
	_, err = mcplive.NewSession(testCtx(t), &mcplive.HTTPTransport{URL: h.URL, DialTimeout: 100 * time.Millisecond}, eraOptions(nil))
	assertErr(t, err, errs(mcplive.ErrTimeout, mcplive.ErrDial), "100ms")

	h404 := hh.New(t, hh.Options{InitStatus: 404, InitType: "text/plain", InitBody: "404 page not found"})
	_, err = mcplive.NewSession(testCtx(t), &mcplive.HTTPTransport{URL: h404.URL}, eraOptions(nil))
	var herr *mcplive.HTTPError
	if !errors.As(err, &herr) || herr.StatusCode != 404 || !errors.Is(err, mcplive.ErrDial) || !strings.Contains(err.Error(), "MCP endpoint") {
		t.Fatalf("initialize answered 404: %v, want an *HTTPError 404 matching ErrDial", err)
	}

	// initialize answered, notifications/initialized refused: the session
	// never opened, so connect fails as a dial does (a DialError in JS),
	// and the status is there to read.
	h400 := hh.New(t, hh.Options{Handle: func(r *hh.Request) bool {
		if r.RPC.Method != "notifications/initialized" {
			return false
		}
		r.Answer(400, "text/plain", "Bad Request: no session")
		return true
	}})
	_, err = mcplive.NewSession(testCtx(t), &mcplive.HTTPTransport{URL: h400.URL}, &mcplive.Options{ProtocolVersion: mcplive.ProtocolVersion})
	if !errors.As(err, &herr) || herr.StatusCode != 400 || !errors.Is(err, mcplive.ErrDial) {
		t.Fatalf("notifications/initialized answered 400: %v, want an *HTTPError 400 matching ErrDial", err)
	}
	if strings.Count(err.Error(), "initialized") != 1 {
		t.Errorf("the method is named more than once: %v", err)
	}
}
