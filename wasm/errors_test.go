//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/wire"
)

// TestDescribe checks that errors reach JS with the right name and a
// message without Go's wording.
func TestDescribe(t *testing.T) {
	netClosed := errors.New("use of closed network connection")
	cases := []struct {
		err        error
		name, want string
	}{
		{fmt.Errorf("tools/call: no answer within %v: %w", 30*time.Second, mcplive.ErrTimeout),
			"TimeoutError", "tools/call: no answer within 30 s"},
		{timeoutError("tools/call", 100*time.Millisecond), "TimeoutError", "tools/call: no answer within 100 ms"},
		{fmt.Errorf("mcplive: refresh: %w", context.DeadlineExceeded), "TimeoutError", "refresh: timed out"},
		{fmt.Errorf("mcplive: dial ws://h/mcp: no answer within %v: %w", 1500*time.Millisecond, mcplive.ErrTimeout),
			"TimeoutError", "dial ws://h/mcp: no answer within 1.5 s"},
		{fmt.Errorf("tools/call: %w", &mcplive.RPCError{Code: -32001, Message: "this tool always fails"}),
			"RPCError", "tools/call: this tool always fails"},
		{fmt.Errorf("tools/call: %w", &mcplive.RPCError{Code: 0}),
			"RPCError", "tools/call: the server answered with error 0 and no message"},
		{fmt.Errorf("tools/call: %w: failed to read: %w", mcplive.ErrClosed, netClosed),
			"ClosedError", "tools/call: connection closed"},
		{fmt.Errorf("%w: no answer to ping within %v", mcplive.ErrClosed, 10*time.Second),
			"ClosedError", "connection closed: no answer to ping within 10 s"},
		{fmt.Errorf("%w: server sent a binary frame", mcplive.ErrProtocol), "ProtocolError", "protocol violation: server sent a binary frame"},
		{fmt.Errorf("mcplive: refresh tools: %w (the server did not declare the tools capability)", mcplive.ErrUnsupported),
			"UnsupportedError", "refresh tools: not supported by the server (the server did not declare the tools capability)"},
		{fmt.Errorf("callTool: %w: the tool name is empty", errArgs), "TypeError", "callTool: bad arguments: the tool name is empty"},
		{fmt.Errorf("mcplive: connect ws://h/mcp: %w", context.Canceled), "AbortError", "connect ws://h/mcp"},
		{errors.New("version 2025-11-25 of 10 items"), "Error", "version 2025-11-25 of 10 items"},
		{fmt.Errorf("%s: %w: the server asks for %s (input %q), and %s", "tools/call", mcplive.ErrIncompleteResult, "elicitation/create", "who", "Options.OnElicit is not set"),
			"ProtocolError", `tools/call: incomplete result: the server asks for elicitation/create (input "who"), and connect was given no onElicit`},
		{fmt.Errorf("mcplive: initialize: initialize: %w: POST http://h/mcp: boom", mcplive.ErrProtocol), "ProtocolError", "initialize: protocol violation: POST http://h/mcp: boom"},
	}
	for _, c := range cases {
		got := describe(c.err)
		if got.Name != c.name || got.Message != c.want {
			t.Errorf("describe(%q) = %s: %q, want %s: %q", c.err, got.Name, got.Message, c.name, c.want)
		}
	}
}

// TestDialError: a failed dial is a DialError whose message names the
// likely causes and says why the browser cannot tell which.
func TestDialError(t *testing.T) {
	defer asBrowser(true)()
	root := fmt.Errorf("mcplive: dial ws://h/mcp: %w (failed to WebSocket dial: %w)", mcplive.ErrDial, errors.New("use of closed network connection"))
	got := describe(dialError("ws://h/mcp", true, 0, root))
	if got.Name != "DialError" {
		t.Errorf("name %q, want DialError", got.Name)
	}
	for _, want := range []string{"could not connect to ws://h/mcp", "server is down", "path", "Origin", "token", "HTTP status"} {
		if !strings.Contains(got.Message, want) {
			t.Errorf("message %q does not mention %q", got.Message, want)
		}
	}
	for _, leak := range []string{"mcplive:", "closed network", "failed to"} {
		if strings.Contains(got.Message, leak) {
			t.Errorf("message %q leaks %q", got.Message, leak)
		}
	}
}

func TestHumanDurations(t *testing.T) {
	for in, want := range map[string]string{
		"no answer within 30s":      "no answer within 30 s",
		"within 1m0s: x":            "within 60 s: x",
		"(250ms)":                   "(250 ms)",
		"1h0m0s":                    "3600 s",
		"1.5s and 2.25s":            "1.5 s and 2.25 s",
		"1.0005s":                   "1 s",
		"500µs":                     "0.5 ms",
		"version 2025-11-25, 10 ms": "version 2025-11-25, 10 ms",
		"v10s 10sec 3m4 x1s":        "v10s 10sec 3m4 x1s",
		"127.0.0.1:8080/mcp":        "127.0.0.1:8080/mcp",
	} {
		if got := humanDurations(in); got != want {
			t.Errorf("humanDurations(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHTTPErrors: a refused token is an AuthError carrying the status and
// the challenge; at connect, a Streamable HTTP request that failed without
// an answer names CORS and what the server must send, while an answer the
// client could read says why itself.
func TestHTTPErrors(t *testing.T) {
	defer asBrowser(true)()
	auth := &mcplive.AuthError{StatusCode: 401, URL: "https://h/mcp", ResourceMetadata: "https://h/.well-known/oauth-protected-resource",
		Scope: "read", WWWAuthenticate: `Bearer resource_metadata="https://h/.well-known/oauth-protected-resource", scope="read"`, DPoPNonce: "n1"}
	got := describe(dialError("https://h/mcp", false, 0, fmt.Errorf("mcplive: initialize: %w (OnUnauthorized: %w)", auth, errNoToken)))
	if got.Name != "AuthError" || got.Status != 401 || got.ResourceMetadata != auth.ResourceMetadata || got.Scope != "read" || got.WWWAuthenticate != auth.WWWAuthenticate || got.DPoPNonce != "n1" {
		t.Errorf("AuthError described as %+v", got)
	}
	if b, err := wire.Marshal(got); err != nil || !strings.Contains(string(b), `"dpopNonce":"n1"`) {
		t.Errorf("AuthError's JSON for JS: %s (%v), want its dpopNonce", b, err)
	}
	for _, want := range []string{"could not connect to https://h/mcp: ", "refused the credentials (HTTP 401)", auth.ResourceMetadata, "(the token callback gave no new token)"} {
		if !strings.Contains(got.Message, want) {
			t.Errorf("message %q does not mention %q", got.Message, want)
		}
	}

	fetchFailed := fmt.Errorf("mcplive: POST https://h/mcp: %w (fetch: TypeError: Failed to fetch); is the server up?", mcplive.ErrDial)
	got = describe(dialError("https://h/mcp", false, 0, fetchFailed))
	if got.Name != "DialError" {
		t.Errorf("name %q, want DialError", got.Name)
	}
	for _, want := range []string{"could not connect to https://h/mcp: ", "CORS", "Access-Control-Allow-Origin", "Content-Type", "Authorization",
		"Mcp-Session-Id", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-ID", "expose Mcp-Session-Id"} {
		if !strings.Contains(got.Message, want) {
			t.Errorf("message %q does not mention %q", got.Message, want)
		}
	}

	status := fmt.Errorf("mcplive: initialize: %w", &mcplive.HTTPError{Method: "POST", URL: "https://h/mcp", StatusCode: 404, Status: "404 Not Found"})
	got = describe(dialError("https://h/mcp", false, 0, status))
	if !strings.HasPrefix(got.Message, "could not connect to https://h/mcp: ") || !strings.Contains(got.Message, "404 Not Found") || strings.Contains(got.Message, "CORS") {
		t.Errorf("an HTTP status described as %q", got.Message)
	}
}

// TestWireMarshal checks what the binding writes without encoding/json's
// encoder (wire.Marshal, errorInfo.MarshalJSON) against encoding/json, and
// that a type the writer has no case for is refused in the browser build
// rather than written wrong.
func TestWireMarshal(t *testing.T) {
	code := int64(-32002)
	values := []any{
		describe(fmt.Errorf("x: %w", &mcplive.RPCError{Code: -32002, Message: "<gone> & \u2028", Data: mcplive.RawMessage(` {"uri" : "file:///a"} `)})),
		&errorInfo{Name: "AuthError", Message: "m", Status: 401, ResourceMetadata: "https://a/.well-known", Scope: "read write", WWWAuthenticate: `Bearer realm="x"`, Error: "insufficient_scope", ErrorDescription: "needs \"write\""},
		&errorInfo{Name: "Error", Message: "bad \xff byte", Code: &code},
		(*errorInfo)(nil),
		mcplive.LogMessage{Level: "info", Logger: "l<", Data: mcplive.RawMessage(`[1, "x"]`)},
		mcplive.Progress{Progress: 1e-7, Total: 1e21, Message: "half"},
		map[string]any{"msg": "connect", "attempt": 2, "ok": true, "n": int64(-3), "u": uint64(7), "f": 0.25},
	}
	// errorInfoRef has errorInfo's fields and tags but not its MarshalJSON:
	// encoding/json's reflection on it is the reference.
	type errorInfoRef errorInfo
	for _, v := range values {
		ref := v
		if e, ok := v.(*errorInfo); ok {
			ref = (*errorInfoRef)(e)
		}
		want, err := json.Marshal(ref)
		if err != nil {
			t.Fatal(err)
		}
		got, err := wire.Marshal(v)
		if err != nil || string(got) != string(want) {
			t.Errorf("wire.Marshal(%#v) = %s, %v; encoding/json: %s", v, got, err, want)
		}
	}
	type unknown struct{ A int }
	if b, err := wire.Marshal(map[string]any{"x": unknown{1}}); err == nil || !strings.Contains(err.Error(), "cannot encode a main.unknown") {
		t.Fatalf("an unknown type: %s, %v", b, err)
	}
}

// asBrowser makes dialError word errors as in a browser (or not) until
// the returned function is called.
func asBrowser(b bool) func() {
	old := inBrowser
	inBrowser = func() bool { return b }
	return func() { inBrowser = old }
}

// TestDialErrorOutsideBrowsers: in Node a refused connection says what the
// system said (ECONNREFUSED, also as the cause), not the browser's CORS
// paragraph or "this page's Origin"; a ws:// URL whose server answered a
// Streamable HTTP POST says to try http(s)://.
func TestDialErrorOutsideBrowsers(t *testing.T) {
	defer asBrowser(false)()
	refused := &fakeSystemErr{code: "ECONNREFUSED", msg: "connect ECONNREFUSED 127.0.0.1:1"}
	err := fmt.Errorf("mcplive: POST http://127.0.0.1:1/mcp: %w (fetch: %w); is the server up and the URL right?", mcplive.ErrDial, refused)
	got := describe(dialError("http://127.0.0.1:1/mcp", false, 0, err))
	if got.Name != "DialError" || got.Cause == nil || got.Cause.Code != "ECONNREFUSED" || got.Cause.Message != refused.msg {
		t.Errorf("described as %+v", got)
	}
	if want := "could not connect to http://127.0.0.1:1/mcp: connect ECONNREFUSED 127.0.0.1:1 (ECONNREFUSED): is the server up and the URL right?"; got.Message != want {
		t.Errorf("message %q, want %q", got.Message, want)
	}
	wsErr := fmt.Errorf("mcplive: dial ws://h/mcp: %w (failed to WebSocket dial: x)", mcplive.ErrDial)
	got = describe(dialError("ws://h/mcp", true, 0, wsErr))
	for _, leak := range []string{"CORS", "Origin", "page"} {
		if strings.Contains(got.Message, leak) {
			t.Errorf("message %q has the browser's %q", got.Message, leak)
		}
	}
	got = describe(dialError("ws://h/mcp", true, 0, altErr{wsErr}))
	if want := "could not connect to ws://h/mcp: the server answered a Streamable HTTP POST to http://h/mcp as an MCP endpoint does: it may speak Streamable HTTP and not WebSocket; try http://h/mcp"; got.Message != want {
		t.Errorf("message %q, want %q", got.Message, want)
	}
	b, err := wire.Marshal(describe(dialError("http://127.0.0.1:1/mcp", false, 0, fmt.Errorf("x: %w: %w", mcplive.ErrDial, refused))))
	if err != nil || !strings.Contains(string(b), `"cause":{"message":"connect ECONNREFUSED 127.0.0.1:1","code":"ECONNREFUSED"}`) {
		t.Errorf("marshalled as %s (%v)", b, err)
	}
}

type fakeSystemErr struct{ code, msg string }

func (e *fakeSystemErr) Error() string        { return "TypeError: fetch failed: Error: " + e.msg }
func (e *fakeSystemErr) SystemCode() string   { return e.code }
func (e *fakeSystemErr) CauseMessage() string { return e.msg }

type altErr struct{ error }

func (e altErr) Unwrap() error           { return e.error }
func (altErr) StreamableHTTPURL() string { return "http://h/mcp" }

// TestShownURL: the URL a failed connect names has no userinfo and no query (a token may be in either).
func TestShownURL(t *testing.T) {
	for in, want := range map[string]string{
		"ws://h:1/mcp?access_token=SECRET": "ws://h:1/mcp?…",
		"https://u:SECRET@h/mcp":           "https://h/mcp",
		"https://h/mcp":                    "https://h/mcp",
	} {
		if got := shownURL(in); got != want {
			t.Errorf("shownURL(%q) = %q, want %q", in, got, want)
		}
	}
}
