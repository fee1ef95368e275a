package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/leakcheck"
)

func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(m)
}

// waitLimit bounds the wait for one event that must happen (an update, a
// connection, a shutdown): a hang detector, never a speed budget, long
// enough for a machine loaded far beyond its cores.
const waitLimit = 60 * time.Second

const testToken = "test-admin-token"

// env is a demo server running in-process on 127.0.0.1.
type env struct {
	t    *testing.T
	d    *demo
	base string  // http://127.0.0.1:port
	mcp  string  // ws://127.0.0.1:port/mcp
	v    variant // how connect connects
}

// variant is a transport and a pinned protocol revision; the zero variant
// is a WebSocket and the client's own choice of revision.
type variant struct {
	transport string // transportWebSocket or transportHTTP
	version   string // "" or a revision the client pins
}

func (v variant) String() string { return v.transport + "/" + v.version }

// variants are every transport with every revision.
var variants = []variant{
	{transportWebSocket, mcplive.ModernVersion},
	{transportWebSocket, mcplive.ProtocolVersion},
	{transportHTTP, mcplive.ModernVersion},
	{transportHTTP, mcplive.ProtocolVersion},
}

// eachVariant runs fn once per variant, in parallel subtests, each against
// its own demo server (edit may change its config).
func eachVariant(t *testing.T, edit func(*config), fn func(t *testing.T, e *env)) {
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			t.Parallel()
			e := start(t, edit)
			e.v = v
			fn(t, e)
		})
	}
}

// start runs a demo server; edit may change its config. Cleanup shuts it down.
func start(t *testing.T, edit func(*config)) *env {
	t.Helper()
	cfg := config{AdminToken: testToken, JSDir: t.TempDir()}
	if os.Getenv("DEMO_TEST_LOG") != "" {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if edit != nil {
		edit(&cfg)
	}
	d, err := newDemo(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d.handler)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		if err := d.shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		srv.Close()
	})
	return &env{t: t, d: d, base: srv.URL, mcp: "ws" + strings.TrimPrefix(srv.URL, "http") + "/mcp"}
}

// connect connects the mcplive client as e.v says; query ("?token=…" or
// "") is appended to the URL. Over Streamable HTTP the URL gets a fresh
// ?conn= key too, as the page gives it (2026-07-28 needs it for a
// connection of its own). Cleanup closes it.
func (e *env) connect(query string) *mcplive.Client {
	e.t.Helper()
	u := e.url(query)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := mcplive.Connect(ctx, u, &mcplive.Options{
		ClientInfo:        mcplive.Implementation{Name: "demo-test", Version: "1.0.0"},
		ProtocolVersion:   e.v.version,
		HeartbeatInterval: -1,
		Reconnect:         mcplive.ReconnectOptions{Disabled: true},
	})
	if err != nil {
		e.t.Fatalf("connect %s: %v", u, err)
	}
	e.t.Cleanup(func() { _ = c.Close() })
	if e.v.version != "" && c.ProtocolVersion() != e.v.version {
		e.t.Fatalf("connect %s: protocol version %q, want %q", u, c.ProtocolVersion(), e.v.version)
	}
	return c
}

// url is the MCP endpoint for e.v with query appended.
func (e *env) url(query string) string {
	if e.v.transport != transportHTTP {
		return e.mcp + query
	}
	key := "conn=" + rand.Text()
	if query == "" {
		query = "?" + key
	} else {
		query += "&" + key
	}
	return e.base + "/mcp" + query
}

// control calls the control API with the admin token and returns the
// status and body.
func (e *env) control(method, path string, body any) (int, []byte) {
	e.t.Helper()
	return e.request(method, path, body, "Bearer "+testToken)
}

// controlOK calls the control API and fails unless the status is 2xx.
func (e *env) controlOK(method, path string, body any) []byte {
	e.t.Helper()
	status, out := e.control(method, path, body)
	if status/100 != 2 {
		e.t.Fatalf("%s %s = %d %s", method, path, status, out)
	}
	return out
}

func (e *env) request(method, path string, body any, auth string) (int, []byte) {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.base+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, out
}

// watch collects the updates of a live list from now on.
type watch[T mcplive.Item] struct {
	t      *testing.T
	ch     chan mcplive.Update[T]
	cancel func()
}

func watchList[T mcplive.Item](t *testing.T, l *mcplive.List[T]) *watch[T] {
	w := &watch[T]{t: t, ch: make(chan mcplive.Update[T], 100)}
	w.cancel = l.Subscribe(func(u mcplive.Update[T]) { w.ch <- u })
	t.Cleanup(w.cancel)
	return w
}

// until waits for an update whose items have exactly the keys want
// (in any order) and returns it. Several updates may come first (one per
// change of a batch): each may take up to waitLimit, the batch has no
// budget.
func (w *watch[T]) until(want ...string) mcplive.Update[T] {
	w.t.Helper()
	return w.await(want, func(mcplive.Update[T]) {})
}

// untilNet is until for a change that the server makes in steps (a login
// adds its tools one at a time): the client sees it in one update when the
// steps fall within go-sdk's notification debounce, in several when a
// loaded machine spreads them out. It returns the keys added and removed
// over all the updates up to the one with want (sorted).
func (w *watch[T]) untilNet(want ...string) (added, removed []string) {
	w.t.Helper()
	net := map[string]int{}
	w.await(want, func(u mcplive.Update[T]) {
		for _, it := range u.Added {
			net[it.Key()]++
		}
		for _, it := range u.Removed {
			net[it.Key()]--
		}
	})
	for k, n := range net {
		switch {
		case n > 0:
			added = append(added, k)
		case n < 0:
			removed = append(removed, k)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

// await returns the first update with exactly the keys want, passing every
// update on the way, that one included, to each.
func (w *watch[T]) await(want []string, each func(mcplive.Update[T])) mcplive.Update[T] {
	w.t.Helper()
	slices.Sort(want)
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	var last []string
	for {
		select {
		case u := <-w.ch:
			each(u)
			last = keys(u.Items)
			if slices.Equal(last, want) {
				return u
			}
			timer.Reset(waitLimit)
		case <-timer.C:
			w.t.Fatalf("waiting for the list %v: no update for %v; the last one had %v", want, waitLimit, last)
		}
	}
}

// keys returns the sorted keys of items.
func keys[T mcplive.Item](items []T) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Key())
	}
	slices.Sort(out)
	return out
}

func assertKeys[T mcplive.Item](t *testing.T, what string, items []T, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := keys(items); !slices.Equal(got, want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func assertEqual[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func assertNoError(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// callText calls a tool and returns its first text block; a tool error fails.
func callText(t *testing.T, c *mcplive.Client, name string, args any) string {
	t.Helper()
	res, err := c.CallTool(context.Background(), name, args, nil)
	assertNoError(t, err)
	if res.IsError {
		t.Fatalf("%s: tool error %s", name, res.Raw)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s: no content in %s", name, res.Raw)
	}
	return res.Content[0].Text
}

// whoami returns the connection's whoami answer.
func whoami(t *testing.T, c *mcplive.Client) whoamiOut {
	t.Helper()
	res, err := c.CallTool(context.Background(), "whoami", map[string]any{}, nil)
	assertNoError(t, err)
	var out whoamiOut
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		t.Fatalf("whoami: %v in %s", err, res.Raw)
	}
	return out
}

// The catalog as each kind of connection sees it.
var (
	anonymousTools = []string{"add", "echo", "login", "now", "whoami"}
	loggedInTools  = []string{"add", "echo", "logout", "now", "random_number", "search", "uppercase", "whoami", "word_count"}
	editorTools    = []string{"add", "echo", "login", "now", "whoami", "write_note"}
	adminTools     = []string{"add", "echo", "list_connections", "login", "now", "server_stats", "whoami", "write_note"}

	anonymousPrompts = []string{"summarize", "translate"}
	loggedInPrompts  = []string{"explain_code", "summarize", "translate"}
	editorPrompts    = []string{"review_note", "summarize", "translate"}
	adminPrompts     = []string{"incident_report", "review_note", "summarize", "translate"}

	onlineResources = []string{"demo://docs/mcp", "demo://docs/readme", "demo://docs/websocket", "demo://notes/scratch", "demo://status/clock"}
	onlineTemplates = []string{"demo://greetings/{name}", "demo://math/square/{n}"}
)

func TestPageURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ addr, token, want string }{
		{"127.0.0.1:8080", "secret", "http://127.0.0.1:8080/?admin=secret"},
		{"0.0.0.0:8080", "a b&c", "http://127.0.0.1:8080/?admin=a+b%26c"},
		{"[::]:9000", "t", "http://127.0.0.1:9000/?admin=t"},
		{"[::1]:9000", "t", "http://[::1]:9000/?admin=t"},
	} {
		addr, err := net.ResolveTCPAddr("tcp", tc.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := pageURL(addr, tc.token); got != tc.want {
			t.Errorf("pageURL(%s, %q) = %s, want %s", tc.addr, tc.token, got, tc.want)
		}
	}
}
