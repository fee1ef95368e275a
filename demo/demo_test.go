package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/mcpws"
)

func TestInitialCatalog(t *testing.T) {
	t.Parallel()
	eachVariant(t, nil, func(t *testing.T, e *env) {
		c := e.connect("")
		assertKeys(t, "tools", c.Tools().Snapshot().Items, anonymousTools...)
		assertKeys(t, "prompts", c.Prompts().Snapshot().Items, anonymousPrompts...)
		assertKeys(t, "resources", c.Resources().Snapshot().Items, onlineResources...)
		assertKeys(t, "templates", c.ResourceTemplates().Snapshot().Items, onlineTemplates...)

		var caps struct {
			Tools     struct{ ListChanged bool }
			Prompts   struct{ ListChanged bool }
			Resources struct{ ListChanged, Subscribe bool }
		}
		assertNoError(t, json.Unmarshal(c.Capabilities(), &caps))
		if !caps.Tools.ListChanged || !caps.Prompts.ListChanged || !caps.Resources.ListChanged || !caps.Resources.Subscribe {
			t.Fatalf("capabilities = %s, want listChanged everywhere and resources.subscribe", c.Capabilities())
		}
		var conn connection
		assertNoError(t, json.Unmarshal(e.controlOK("GET", "/control/connections/"+whoami(t, c).Connection, nil), &conn))
		assertEqual(t, "transport", conn.Transport, e.v.transport)
	})
}

// Situation 1: authentication with the login and logout tools.
func TestLoginLogout(t *testing.T) {
	t.Parallel()
	eachVariant(t, nil, func(t *testing.T, e *env) {
		c := e.connect("")
		tools, prompts := watchList(t, c.Tools()), watchList(t, c.Prompts())

		res, err := c.CallTool(context.Background(), "login", map[string]any{"user": "alice", "password": "wrong"}, nil)
		assertNoError(t, err)
		assertEqual(t, "wrong password isError", res.IsError, true)

		callText(t, c, "login", map[string]any{"user": "alice", "password": "wonderland"})
		added, removed := tools.untilNet(loggedInTools...)
		assertEqual(t, "added", strings.Join(added, " "), "logout random_number search uppercase word_count")
		assertEqual(t, "removed", strings.Join(removed, " "), "login")
		prompts.until(loggedInPrompts...)
		who := whoami(t, c)
		assertEqual(t, "user", who.User, "alice")
		assertEqual(t, "loggedIn", who.LoggedIn, true)
		if got := callText(t, c, "uppercase", map[string]any{"text": "live"}); got != "LIVE" {
			t.Fatalf("uppercase = %q", got)
		}

		callText(t, c, "logout", map[string]any{})
		tools.until(anonymousTools...)
		prompts.until(anonymousPrompts...)
		assertEqual(t, "user after logout", whoami(t, c).User, "")
		// A tool that went away cannot be called any more.
		res, err = c.CallTool(context.Background(), "uppercase", map[string]any{"text": "x"}, nil)
		if err == nil && !res.IsError {
			t.Fatal("uppercase still callable after logout")
		}
	})
}

// Situation 1: the login of one connection unlocks nothing for another.
func TestLoginIsolation(t *testing.T) {
	t.Parallel()
	eachVariant(t, nil, func(t *testing.T, e *env) {
		a, b := e.connect(""), e.connect("")
		aTools, bTools := watchList(t, a.Tools()), watchList(t, b.Tools())
		bVersion := b.Tools().Snapshot().Version

		callText(t, a, "login", map[string]any{"user": "bob", "password": "builder"})
		aTools.until(loggedInTools...)

		// A change for everyone is the marker: b sees it, and nothing before it.
		e.controlOK("POST", "/control/tools", map[string]string{"name": "marker"})
		u := bTools.until(append(slices.Clone(anonymousTools), "marker")...)
		assertKeys(t, "b added", u.Added, "marker")
		assertEqual(t, "b version", u.Version, bVersion+1)
		assertEqual(t, "b user", whoami(t, b).User, "")
		assertEqual(t, "a user", whoami(t, a).User, "bob")
	})
}

// Situation 1: a token in the URL logs the connection in from the start.
func TestURLToken(t *testing.T) {
	t.Parallel()
	eachVariant(t, nil, func(t *testing.T, e *env) {
		c := e.connect("?token=alice-token")
		assertKeys(t, "tools", c.Tools().Snapshot().Items, loggedInTools...)
		assertEqual(t, "user", whoami(t, c).User, "alice")

		tools := watchList(t, c.Tools())
		callText(t, c, "logout", map[string]any{})
		tools.until(anonymousTools...)

		// An unknown token is refused at the handshake (WebSocket: 403),
		// or with a challenge (Streamable HTTP: 401); the client says so.
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		if e.v.transport == transportWebSocket {
			_, resp, err := websocket.Dial(ctx, e.mcp+"?token=nope", &websocket.DialOptions{Subprotocols: []string{"mcp"}})
			if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
				t.Fatalf("dial with an unknown token: %v, %v; want 403", resp, err)
			}
		} else {
			resp := post(t, e.base+"/mcp?token=nope", nil, initializeBody)
			if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "invalid_token") {
				t.Fatalf("POST with an unknown token: %d %q; want 401 with a challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
			// The same token as a bearer token.
			resp = post(t, e.base+"/mcp", http.Header{"Authorization": {"Bearer nope"}}, initializeBody)
			assertEqual(t, "status with Authorization: Bearer nope", resp.StatusCode, http.StatusUnauthorized)
		}
		_, err := mcplive.Connect(ctx, e.url("?token=nope"), &mcplive.Options{ProtocolVersion: e.v.version, Reconnect: mcplive.ReconnectOptions{Disabled: true}})
		if err == nil {
			t.Fatal("connect with an unknown token succeeded")
		}
	})
}

// A bearer token logs a Streamable HTTP connection in, as ?token= does.
func TestBearerToken(t *testing.T) {
	t.Parallel()
	for _, version := range []string{mcplive.ModernVersion, mcplive.ProtocolVersion} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			e := start(t, nil)
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			e.v = variant{transportHTTP, version}
			c, err := mcplive.Connect(ctx, "", &mcplive.Options{
				ProtocolVersion:   version,
				HeartbeatInterval: -1,
				Reconnect:         mcplive.ReconnectOptions{Disabled: true},
				Transport:         &mcplive.HTTPTransport{URL: e.url(""), Header: http.Header{"Authorization": {"Bearer bob-token"}}},
			})
			assertNoError(t, err)
			defer c.Close()
			assertEqual(t, "user", whoami(t, c).User, "bob")
			assertKeys(t, "tools", c.Tools().Snapshot().Items, loggedInTools...)
		})
	}
}

// initializeBody is a 2025-11-25 initialize request.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends a JSON-RPC body to url as a Streamable HTTP client does.
func post(t *testing.T, url string, h http.Header, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	assertNoError(t, err)
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	assertNoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// The Origin check and CORS of Streamable HTTP: a page of an allowed origin
// may send the MCP headers and read Mcp-Session-Id; any other gets 403.
func TestHTTPOriginAndCORS(t *testing.T) {
	t.Parallel()
	e := start(t, func(c *config) { c.AllowOrigins = []string{"*.example.org"} })
	host := strings.TrimPrefix(e.base, "http://")
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"", http.StatusOK},
		{"http://" + host, http.StatusOK},
		{"http://localhost:5173", http.StatusOK},
		{"http://[::1]:3000", http.StatusOK},
		{"https://app.example.org", http.StatusOK},
		{"https://evil.example", http.StatusForbidden},
		{"http://localhost.evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
	} {
		h := http.Header{}
		if tc.origin != "" {
			h.Set("Origin", tc.origin)
		}
		resp := post(t, e.base+"/mcp", h, initializeBody)
		if resp.StatusCode != tc.want {
			t.Errorf("POST initialize from origin %q: status %d, want %d", tc.origin, resp.StatusCode, tc.want)
		}
		if tc.want != http.StatusOK {
			continue
		}
		if resp.Header.Get("Mcp-Session-Id") == "" {
			t.Errorf("origin %q: no Mcp-Session-Id", tc.origin)
		}
		if tc.origin == "" {
			continue
		}
		assertEqual(t, tc.origin+": Access-Control-Allow-Origin", resp.Header.Get("Access-Control-Allow-Origin"), tc.origin)
		if expose := resp.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(expose, "Mcp-Session-Id") || !strings.Contains(expose, "WWW-Authenticate") {
			t.Errorf("origin %q: Access-Control-Expose-Headers %q", tc.origin, expose)
		}

		// The preflight a browser sends before a POST with the MCP headers.
		req, err := http.NewRequest(http.MethodOptions, e.base+"/mcp", nil)
		assertNoError(t, err)
		req.Header.Set("Origin", tc.origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type,mcp-protocol-version,mcp-session-id,mcp-method,mcp-name,last-event-id,authorization")
		pre, err := http.DefaultClient.Do(req)
		assertNoError(t, err)
		pre.Body.Close()
		assertEqual(t, tc.origin+": preflight status", pre.StatusCode, http.StatusNoContent)
		assertEqual(t, tc.origin+": preflight Allow-Origin", pre.Header.Get("Access-Control-Allow-Origin"), tc.origin)
		allowed := strings.ToLower(pre.Header.Get("Access-Control-Allow-Headers"))
		for _, name := range []string{"mcp-session-id", "mcp-protocol-version", "last-event-id", "mcp-method", "mcp-name", "authorization", "content-type"} {
			if !strings.Contains(allowed, name) {
				t.Errorf("origin %q: preflight allows %q, not %s", tc.origin, allowed, name)
			}
		}
		for _, m := range []string{"GET", "POST", "DELETE"} {
			if !strings.Contains(pre.Header.Get("Access-Control-Allow-Methods"), m) {
				t.Errorf("origin %q: preflight allows methods %q, not %s", tc.origin, pre.Header.Get("Access-Control-Allow-Methods"), m)
			}
		}
	}
	// A refused origin gets no preflight either.
	req, _ := http.NewRequest(http.MethodOptions, e.base+"/mcp", nil)
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	pre, err := http.DefaultClient.Do(req)
	assertNoError(t, err)
	pre.Body.Close()
	assertEqual(t, "preflight of a foreign origin", pre.StatusCode, http.StatusForbidden)
	if pre.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a foreign origin got Access-Control-Allow-Origin %q", pre.Header.Get("Access-Control-Allow-Origin"))
	}
}

// Over Streamable HTTP with 2026-07-28 a client without ?conn= shares one
// connection per token; its login tool explains why it cannot log in.
func TestHTTPSharedConnection(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	connect := func(url string) *mcplive.Client {
		c, err := mcplive.Connect(ctx, url, &mcplive.Options{ProtocolVersion: mcplive.ModernVersion, HeartbeatInterval: -1,
			Reconnect: mcplive.ReconnectOptions{Disabled: true}})
		assertNoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	a, b := connect(e.base+"/mcp"), connect(e.base+"/mcp")
	assertEqual(t, "shared connection", whoami(t, a).Connection, whoami(t, b).Connection)
	res, err := a.CallTool(ctx, "login", map[string]any{"user": "alice", "password": "wonderland"}, nil)
	assertNoError(t, err)
	if !res.IsError || !strings.Contains(res.Content[0].Text, "conn=") {
		t.Fatalf("login on the shared connection: %+v, want an error that names ?conn=", res)
	}
	// The shared connection still follows the catalog.
	tools := watchList(t, b.Tools())
	e.controlOK("POST", "/control/tools/echo/disable", nil)
	tools.until("add", "login", "now", "whoami")
	// A token gives another shared connection.
	assertEqual(t, "token user", whoami(t, connect(e.base+"/mcp?token=alice-token")).User, "alice")
}

// Situation 2: the admin enables and disables tools and prompts for everyone.
func TestConfiguration(t *testing.T) {
	t.Parallel()
	eachVariant(t, nil, func(t *testing.T, e *env) {
		a, b := e.connect(""), e.connect("?token=bob-token")
		aTools, bTools := watchList(t, a.Tools()), watchList(t, b.Tools())
		aPrompts, bPrompts := watchList(t, a.Prompts()), watchList(t, b.Prompts())
		without := func(list []string, name string) []string {
			return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == name })
		}

		e.controlOK("POST", "/control/tools/echo/disable", nil)
		u := aTools.until(without(anonymousTools, "echo")...)
		assertKeys(t, "removed", u.Removed, "echo")
		bTools.until(without(loggedInTools, "echo")...)

		e.controlOK("POST", "/control/tools/echo/enable", nil)
		u = aTools.until(anonymousTools...)
		assertKeys(t, "added", u.Added, "echo")
		bTools.until(loggedInTools...)

		e.controlOK("POST", "/control/prompts/translate/disable", nil)
		aPrompts.until(without(anonymousPrompts, "translate")...)
		bPrompts.until(without(loggedInPrompts, "translate")...)
		e.controlOK("POST", "/control/prompts/translate/enable", nil)
		aPrompts.until(anonymousPrompts...)
		bPrompts.until(loggedInPrompts...)

		// A disabled tool that a connection cannot see anyway changes nothing
		// for it (its next update is the marker), but the state says so.
		aVersion := a.Tools().Snapshot().Version
		e.controlOK("POST", "/control/tools/search/disable", nil)
		bTools.until(without(loggedInTools, "search")...)
		e.controlOK("POST", "/control/tools", map[string]string{"name": "marker"})
		u = aTools.until(append(slices.Clone(anonymousTools), "marker")...)
		assertEqual(t, "a version", u.Version, aVersion+1)
		var st stateOut
		assertNoError(t, json.Unmarshal(e.controlOK("GET", "/control/state", nil), &st))
		for _, tv := range st.Tools {
			assertEqual(t, tv.Name+" enabled", tv.Enabled, tv.Name != "search")
		}
	})
}

// Situation 3: resources and templates go online and offline; a subscribed
// resource whose content changes gets notifications/resources/updated.
func TestResourceAvailability(t *testing.T) {
	t.Parallel()
	eachVariant(t, nil, func(t *testing.T, e *env) {
		c := e.connect("")
		resources, templates := watchList(t, c.Resources()), watchList(t, c.ResourceTemplates())

		e.controlOK("POST", "/control/resources/changelog/online", nil)
		u := resources.until(append(slices.Clone(onlineResources), "demo://docs/changelog")...)
		assertKeys(t, "added", u.Added, "demo://docs/changelog")
		rr, err := c.ReadResource(context.Background(), "demo://docs/changelog")
		assertNoError(t, err)
		if !strings.Contains(*rr.Contents[0].Text, "Changelog") {
			t.Fatalf("changelog = %q", *rr.Contents[0].Text)
		}

		e.controlOK("POST", "/control/resources/readme/offline", nil)
		resources.until("demo://docs/changelog", "demo://docs/mcp", "demo://docs/websocket", "demo://notes/scratch", "demo://status/clock")
		if _, err := c.ReadResource(context.Background(), "demo://docs/readme"); err == nil {
			t.Fatal("read of an offline resource succeeded")
		}

		e.controlOK("POST", "/control/templates/greeting/offline", nil)
		templates.until("demo://math/square/{n}")
		e.controlOK("POST", "/control/templates/greeting/online", nil)
		templates.until(onlineTemplates...)
		rr, err = c.ReadResource(context.Background(), "demo://greetings/world")
		assertNoError(t, err)
		assertEqual(t, "greeting", *rr.Contents[0].Text, "Hello, world!")

		// Subscribe, then change the content: through the control API and
		// through an editor's write_note tool.
		updated := make(chan string, 10)
		unsubscribe, err := c.SubscribeResource(context.Background(), "demo://notes/scratch", func(uri string) { updated <- uri })
		assertNoError(t, err)
		e.controlOK("PUT", "/control/resources/note/content", map[string]string{"text": "first"})
		recv(t, updated, "resources/updated after PUT content")
		// Lists stay live once a subscription changed the listen stream's
		// filter (2026-07-28 over a WebSocket: see listen.go).
		e.controlOK("POST", "/control/resources/changelog/offline", nil)
		resources.until("demo://docs/mcp", "demo://docs/websocket", "demo://notes/scratch", "demo://status/clock")
		rr, err = c.ReadResource(context.Background(), "demo://notes/scratch")
		assertNoError(t, err)
		assertEqual(t, "note", *rr.Contents[0].Text, "first")

		editor := e.connect("")
		e.controlOK("POST", "/control/connections/"+whoami(t, editor).Connection+"/role", map[string]string{"role": "editor"})
		waitTool(t, editor, "write_note")
		callText(t, editor, "write_note", map[string]any{"text": " second", "append": true})
		recv(t, updated, "resources/updated after write_note")
		rr, err = c.ReadResource(context.Background(), "demo://notes/scratch")
		assertNoError(t, err)
		assertEqual(t, "note", *rr.Contents[0].Text, "first second")

		// The clock is computed: the control API refuses to write it.
		if status, _ := e.control("PUT", "/control/resources/clock/content", map[string]string{"text": "x"}); status != http.StatusConflict {
			t.Fatalf("PUT clock content = %d, want 409", status)
		}
		assertNoError(t, unsubscribe(context.Background()))
	})
}

// waitTool waits until c's tool list has name, woken by each update.
func waitTool(t *testing.T, c *mcplive.Client, name string) {
	t.Helper()
	updated := make(chan struct{}, 1)
	stop := c.Tools().Subscribe(func(mcplive.Update[mcplive.Tool]) {
		select {
		case updated <- struct{}{}:
		default:
		}
	})
	defer stop()
	for !slices.Contains(keys(c.Tools().Snapshot().Items), name) {
		recv(t, updated, "an update with the tool "+name)
	}
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// Situation 4: a connection's role decides which tools and prompts it sees;
// a role change affects only that connection.
func TestRoles(t *testing.T) {
	t.Parallel()
	eachVariant(t, nil, func(t *testing.T, e *env) {
		a, b := e.connect(""), e.connect("")
		aTools, bTools := watchList(t, a.Tools()), watchList(t, b.Tools())
		aPrompts := watchList(t, a.Prompts())
		id := whoami(t, a).Connection

		// The control API lists the connection.
		var list connectionsOut
		assertNoError(t, json.Unmarshal(e.controlOK("GET", "/control/connections", nil), &list))
		if !slices.ContainsFunc(list.Connections, func(c connection) bool { return c.ID == id && c.Role == "viewer" }) {
			t.Fatalf("GET /control/connections = %+v, want %s as a viewer", list, id)
		}
		// opened counts the connections ever opened: a and b at least.
		if list.Opened < 2 {
			t.Fatalf("GET /control/connections: opened = %d, want ≥ 2", list.Opened)
		}

		var conn connection
		assertNoError(t, json.Unmarshal(e.controlOK("POST", "/control/connections/"+id+"/role", map[string]string{"role": "editor"}), &conn))
		assertEqual(t, "role", conn.Role, "editor")
		aTools.until(editorTools...)
		aPrompts.until(editorPrompts...)

		e.controlOK("POST", "/control/connections/"+id+"/role", map[string]string{"role": "admin"})
		aTools.until(adminTools...)
		aPrompts.until(adminPrompts...)
		assertEqual(t, "role", whoami(t, a).Role, "admin")
		var stats statsOut
		res, err := a.CallTool(context.Background(), "server_stats", map[string]any{}, nil)
		assertNoError(t, err)
		assertNoError(t, json.Unmarshal(res.StructuredContent, &stats))
		assertEqual(t, "connections", stats.Connections, 2)

		// Login and role combine.
		callText(t, a, "login", map[string]any{"user": "alice", "password": "wonderland"})
		aTools.until("add", "echo", "list_connections", "logout", "now", "random_number", "search", "server_stats",
			"uppercase", "whoami", "word_count", "write_note")

		e.controlOK("POST", "/control/connections/"+id+"/role", map[string]string{"role": "viewer"})
		aTools.until(loggedInTools...)
		aPrompts.until(loggedInPrompts...)

		// b saw none of it: its first update is the marker.
		e.controlOK("POST", "/control/tools", map[string]string{"name": "marker"})
		u := bTools.until(append(slices.Clone(anonymousTools), "marker")...)
		assertEqual(t, "b version", u.Version, uint64(2))
		assertEqual(t, "b role", whoami(t, b).Role, "viewer")
	})
}

// The default page size is 5: every list of more than 5 items is walked.
func TestPagination(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	c := e.connect("?token=alice-token")
	assertKeys(t, "tools", c.Tools().Snapshot().Items, loggedInTools...) // 9 tools: 2 pages

	// The server really pages: the first page has 5 tools and a cursor.
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	gc := mcp.NewClient(&mcp.Implementation{Name: "pager", Version: "1"}, nil)
	cs, err := gc.Connect(ctx, &mcpws.ClientTransport{URL: e.mcp + "?token=alice-token"}, &mcp.ClientSessionOptions{ProtocolVersion: mcplive.ProtocolVersion})
	assertNoError(t, err)
	defer cs.Close()
	page, err := cs.ListTools(ctx, nil)
	assertNoError(t, err)
	assertEqual(t, "first page", len(page.Tools), 5)
	if page.NextCursor == "" {
		t.Fatal("no nextCursor after the first page")
	}

	// 23 extra tools for everyone: 32 tools, 7 pages.
	tools := watchList(t, c.Tools())
	want := slices.Clone(loggedInTools)
	for i := range 23 {
		name := fmt.Sprintf("extra_%02d", i)
		want = append(want, name)
		e.controlOK("POST", "/control/tools", map[string]string{"name": name, "description": "extra " + name})
	}
	u := tools.until(want...)
	assertEqual(t, "tools", len(u.Items), 32)
	if got := callText(t, c, "extra_07", map[string]any{"x": 1}); got != `extra_07 called with {"x":1}` {
		t.Fatalf("extra_07 = %q", got)
	}

	e.controlOK("DELETE", "/control/tools/extra_07", nil)
	want = slices.DeleteFunc(want, func(s string) bool { return s == "extra_07" })
	u = tools.until(want...)
	assertKeys(t, "removed", u.Removed, "extra_07")
}

func TestExtraToolErrors(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	for _, tc := range []struct {
		method, path string
		body         any
		want         int
	}{
		{"POST", "/control/tools", map[string]string{"name": "echo"}, http.StatusConflict},
		{"POST", "/control/tools", map[string]string{"name": "bad name"}, http.StatusBadRequest},
		{"POST", "/control/tools", map[string]string{"name": ""}, http.StatusBadRequest},
		{"DELETE", "/control/tools/echo", nil, http.StatusConflict},
		{"DELETE", "/control/tools/nope", nil, http.StatusNotFound},
		{"POST", "/control/tools/nope/enable", nil, http.StatusNotFound},
		{"POST", "/control/tools/echo/toggle", nil, http.StatusNotFound},
		{"POST", "/control/prompts/nope/disable", nil, http.StatusNotFound},
		{"POST", "/control/resources/nope/online", nil, http.StatusNotFound},
		{"POST", "/control/templates/nope/online", nil, http.StatusNotFound},
		{"PUT", "/control/resources/nope/content", map[string]string{"text": "x"}, http.StatusNotFound},
		{"PUT", "/control/resources/note/content", map[string]string{}, http.StatusBadRequest},
		{"POST", "/control/connections/c999/role", map[string]string{"role": "admin"}, http.StatusNotFound},
		{"GET", "/control/connections/c999", nil, http.StatusNotFound},
		{"POST", "/control/churn", map[string]string{"interval": "soon"}, http.StatusBadRequest},
		{"GET", "/control/nope", nil, http.StatusNotFound},
	} {
		status, body := e.control(tc.method, tc.path, tc.body)
		if status != tc.want {
			t.Errorf("%s %s = %d %s, want %d", tc.method, tc.path, status, body, tc.want)
		}
		var out struct{ Error string }
		if err := json.Unmarshal(body, &out); err != nil || out.Error == "" {
			t.Errorf("%s %s: body %s, want a JSON error", tc.method, tc.path, body)
		}
	}
	c := e.connect("")
	status, body := e.control("POST", "/control/connections/"+whoami(t, c).Connection+"/role", map[string]string{"role": "root"})
	if status != http.StatusBadRequest {
		t.Errorf("bad role = %d %s, want 400", status, body)
	}
}

func TestControlAuth(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	for _, auth := range []string{"", "Bearer wrong", "Bearer " + testToken + "x", testToken, "Basic " + testToken} {
		for _, ep := range [][2]string{{"GET", "/control/state"}, {"POST", "/control/tools/echo/disable"}, {"GET", "/control/nope"}} {
			status, body := e.request(ep[0], ep[1], nil, auth)
			if status != http.StatusUnauthorized {
				t.Errorf("%s %s with Authorization %q = %d %s, want 401", ep[0], ep[1], auth, status, body)
			}
		}
	}
	// Nothing changed.
	var st stateOut
	assertNoError(t, json.Unmarshal(e.controlOK("GET", "/control/state", nil), &st))
	assertEqual(t, "echo enabled", st.Tools[0].Enabled, true)
	assertEqual(t, "page size", st.PageSize, 5)
}

func TestOrigin(t *testing.T) {
	t.Parallel()
	e := start(t, func(c *config) { c.AllowOrigins = []string{"*.example.org"} })
	host := strings.TrimPrefix(e.base, "http://")
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"", http.StatusSwitchingProtocols},
		{"http://" + host, http.StatusSwitchingProtocols},
		{"http://localhost:5173", http.StatusSwitchingProtocols},
		{"http://localhost", http.StatusSwitchingProtocols},
		{"http://127.0.0.1:9999", http.StatusSwitchingProtocols},
		{"http://[::1]:3000", http.StatusSwitchingProtocols},
		{"https://app.example.org", http.StatusSwitchingProtocols},
		{"https://evil.example", http.StatusForbidden},
		{"http://localhost.evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		h := http.Header{}
		if tc.origin != "" {
			h.Set("Origin", tc.origin)
		}
		ws, resp, err := websocket.Dial(ctx, e.mcp, &websocket.DialOptions{HTTPHeader: h, Subprotocols: []string{"mcp"}})
		cancel()
		if resp == nil {
			t.Fatalf("origin %q: no response: %v", tc.origin, err)
		}
		if resp.StatusCode != tc.want {
			t.Errorf("origin %q: status %d, want %d", tc.origin, resp.StatusCode, tc.want)
		}
		if ws != nil {
			ws.Close(websocket.StatusNormalClosure, "")
		}
	}
}

func TestToolsAndPrompts(t *testing.T) {
	t.Parallel()
	eachVariant(t, nil, func(t *testing.T, e *env) {
		c := e.connect("?token=alice-token")
		ctx := context.Background()

		assertEqual(t, "echo", callText(t, c, "echo", map[string]any{"text": "hi there"}), "hi there")
		assertEqual(t, "add", callText(t, c, "add", map[string]any{"a": 2, "b": 0.5}), "2.5")
		if _, err := time.Parse(time.RFC3339, callText(t, c, "now", map[string]any{})); err != nil {
			t.Errorf("now: %v", err)
		}
		res, err := c.CallTool(ctx, "word_count", map[string]any{"text": "one two\nthree"}, nil)
		assertNoError(t, err)
		var wc countOut
		assertNoError(t, json.Unmarshal(res.StructuredContent, &wc))
		assertEqual(t, "word_count", wc, countOut{Words: 3, Characters: 13, Lines: 2})
		if got := callText(t, c, "search", map[string]any{"query": "subprotocol MCP"}); !strings.Contains(got, "demo://docs/websocket") {
			t.Errorf("search = %q, want a hit in demo://docs/websocket", got)
		}
		res, err = c.CallTool(ctx, "random_number", map[string]any{"min": 5, "max": 1}, nil)
		assertNoError(t, err)
		assertEqual(t, "random_number with max < min isError", res.IsError, true)

		pr, err := c.GetPrompt(ctx, "translate", map[string]string{"text": "hello", "language": "French"})
		assertNoError(t, err)
		if msg := pr.Messages[0].Content.Text; !strings.Contains(msg, "French") || !strings.Contains(msg, "hello") {
			t.Errorf("translate prompt = %q", msg)
		}
		if _, err := c.GetPrompt(ctx, "translate", map[string]string{"text": "hello"}); err == nil {
			t.Error("translate without language succeeded")
		} else if !strings.Contains(err.Error(), "language") {
			t.Errorf("error %v does not name the missing argument", err)
		}
		rr, err := c.ReadResource(ctx, "demo://math/square/12")
		assertNoError(t, err)
		assertEqual(t, "square", *rr.Contents[0].Text, "144")
	})
}

func TestStaticAndJS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{"mcplive.wasm": "\x00asm", "index.js": "export {};", "index.d.ts": "export {};"} {
		assertNoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	e := start(t, func(c *config) { c.JSDir = dir })
	for _, tc := range []struct {
		path, ctype string
		status      int
	}{
		{"/", "text/html; charset=utf-8", 200},
		{"/js/mcplive.wasm", "application/wasm", 200},
		{"/js/index.js", "text/javascript; charset=utf-8", 200},
		{"/js/index.d.ts", "text/plain; charset=utf-8", 200},
		{"/js/", "", 404},
		{"/js/missing.js", "", 404},
	} {
		resp, err := http.Get(e.base + tc.path)
		assertNoError(t, err)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("GET %s = %d, want %d", tc.path, resp.StatusCode, tc.status)
		}
		if tc.ctype != "" && resp.Header.Get("Content-Type") != tc.ctype {
			t.Errorf("GET %s: Content-Type %q, want %q", tc.path, resp.Header.Get("Content-Type"), tc.ctype)
		}
	}
}

func TestShutdown(t *testing.T) {
	t.Parallel()
	e := start(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, e.mcp, &websocket.DialOptions{Subprotocols: []string{"mcp"}})
	assertNoError(t, err)
	defer ws.CloseNow()
	done := make(chan error, 1)
	go func() {
		_, _, err := ws.Read(ctx)
		done <- err
	}()
	assertNoError(t, e.d.shutdown(ctx))
	err = recv(t, done, "close")
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusNormalClosure || ce.Reason != "server shutting down" {
		t.Fatalf("read after shutdown: %v, want close 1000 \"server shutting down\"", err)
	}
}

func TestChurn(t *testing.T) {
	t.Parallel()
	eachVariant(t, func(c *config) { c.Churn = 20 * time.Millisecond }, func(t *testing.T, e *env) {
		c := e.connect("")
		resources := watchList(t, c.Resources())
		templates := watchList(t, c.ResourceTemplates())
		updated := make(chan string, 100)
		_, err := c.SubscribeResource(context.Background(), "demo://status/clock", func(uri string) {
			select {
			case updated <- uri:
			default:
			}
		})
		assertNoError(t, err)
		recv(t, updated, "clock update")
		select {
		case <-resources.ch:
		case <-templates.ch:
		case <-time.After(waitLimit):
			t.Fatal("no list change from churn")
		}

		// The control API stops it.
		e.controlOK("POST", "/control/churn", map[string]string{"interval": "0s"})
		var st stateOut
		assertNoError(t, json.Unmarshal(e.controlOK("GET", "/control/state", nil), &st))
		assertEqual(t, "churn", st.Churn, "0s")
	})
}

func TestParseFlags(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "MCPLIVE_ADMIN_TOKEN" {
				return v
			}
			return ""
		}
	}
	cfg, err := parseFlags(nil, env(""), &strings.Builder{})
	assertNoError(t, err)
	assertEqual(t, "addr", cfg.Addr, "127.0.0.1:8080")
	assertEqual(t, "page size", cfg.PageSize, 5)
	assertEqual(t, "js", cfg.JSDir, "js")
	assertEqual(t, "token", cfg.AdminToken, "")

	cfg, err = parseFlags([]string{"-allow-origin", "a.example, b.example", "-allow-origin=c.example", "-page-size", "2", "-churn", "3s", "-revisions", "2025-11-25"}, env("from-env"), &strings.Builder{})
	assertNoError(t, err)
	assertEqual(t, "origins", strings.Join(cfg.AllowOrigins, " "), "a.example b.example c.example")
	assertEqual(t, "token", cfg.AdminToken, "from-env")
	assertEqual(t, "churn", cfg.Churn, 3*time.Second)
	assertEqual(t, "revisions", strings.Join(cfg.Revisions, " "), "2025-11-25")

	cfg, err = parseFlags([]string{"-admin-token", "flag"}, env("from-env"), &strings.Builder{})
	assertNoError(t, err)
	assertEqual(t, "token", cfg.AdminToken, "flag")

	for _, args := range [][]string{{"-page-size", "0"}, {"-churn", "-1s"}, {"extra"}, {"-nope"}} {
		if _, err := parseFlags(args, env(""), &strings.Builder{}); err == nil {
			t.Errorf("parseFlags(%q) succeeded", args)
		}
	}
}

// closedLog is a slog handler that reports each "connection closed" line:
// the connection id and why.
type closedLog struct{ ch chan [2]string }

func (h closedLog) Enabled(context.Context, slog.Level) bool { return true }
func (h closedLog) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h closedLog) WithGroup(string) slog.Handler            { return h }
func (h closedLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "connection closed" {
		return nil
	}
	var id, why string
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "conn":
			id = a.Value.String()
		case "why":
			why = a.Value.String()
		}
		return true
	})
	h.ch <- [2]string{id, why}
	return nil
}

// A Streamable HTTP connection ends when its client leaves: a 2025-11-25
// session with the client's DELETE, a 2026-07-28 ?conn= connection once no
// request of it has been in flight for the idle timeout. Until then, every
// request of a key reaches the one connection.
func TestHTTPConnectionEnds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ version, why string }{
		{mcplive.ProtocolVersion, "session ended"},
		{mcplive.ModernVersion, "idle"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			closed := make(chan [2]string, 10)
			e := start(t, func(c *config) {
				c.Logger = slog.New(closedLog{closed})
				c.IdleTimeout = 50 * time.Millisecond
			})
			e.v = variant{transportHTTP, tc.version}
			c := e.connect("")
			id := whoami(t, c).Connection
			for range 3 {
				assertEqual(t, "connection of every request", whoami(t, c).Connection, id)
			}
			var list connectionsOut
			assertNoError(t, json.Unmarshal(e.controlOK("GET", "/control/connections", nil), &list))
			assertEqual(t, "connections", len(list.Connections), 1)
			assertEqual(t, "connection", list.Connections[0].ID, id)
			assertEqual(t, "transport", list.Connections[0].Transport, transportHTTP)

			assertNoError(t, c.Close())
			// (A connection opened by the probe and forgotten before the
			// listen stream held it, on a slow machine, may end first.)
			got := recv(t, closed, "connection closed")
			for got[0] != id {
				got = recv(t, closed, "connection closed")
			}
			assertEqual(t, "closed", got, [2]string{id, tc.why})
			assertNoError(t, json.Unmarshal(e.controlOK("GET", "/control/connections", nil), &list))
			assertEqual(t, "connections after close", len(list.Connections), 0)
		})
	}
}

// A server narrowed to 2025-11-25 (-revisions): the client tries 2026-07-28,
// falls back, and its lists are live; the refused probe leaves no connection.
func TestFallback(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{transportWebSocket, transportHTTP} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			e := start(t, func(c *config) { c.Revisions = []string{mcplive.ProtocolVersion} })
			e.v = variant{transport: transport}
			c := e.connect("")
			assertEqual(t, "protocol version", c.ProtocolVersion(), mcplive.ProtocolVersion)
			tools := watchList(t, c.Tools())
			e.controlOK("POST", "/control/tools/echo/disable", nil)
			tools.until("add", "login", "now", "whoami")
			var list connectionsOut
			assertNoError(t, json.Unmarshal(e.controlOK("GET", "/control/connections", nil), &list))
			assertEqual(t, "connections", len(list.Connections), 1)
		})
	}
	if _, err := newDemo(config{Revisions: []string{"2020-01-01"}}); err == nil {
		t.Error("an unknown revision was accepted")
	}
}

// Shutdown ends every Streamable HTTP event stream (the 2025-11-25 GET
// stream, the 2026-07-28 listen stream): the client notices at once, and
// the server's own shutdown does not wait for them.
func TestHTTPShutdown(t *testing.T) {
	t.Parallel()
	for _, version := range []string{mcplive.ModernVersion, mcplive.ProtocolVersion} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			e := start(t, nil)
			e.v = variant{transportHTTP, version}
			c := e.connect("")
			states := make(chan mcplive.State, 10)
			stop := c.WatchState(func(s mcplive.State) { states <- s })
			defer stop()
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			assertNoError(t, e.d.shutdown(ctx))
			for {
				s := recv(t, states, "the client's state after the shutdown")
				if s != mcplive.StateReady {
					break
				}
			}
		})
	}
}
