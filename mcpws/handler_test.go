package mcpws_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplive/mcplive/mcpws"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	var onConnect atomic.Bool
	connCtx := make(chan context.Context, 1)
	initialized := make(chan bool, 1)
	sessionID := make(chan string, 1)
	factoryID := make(chan string, 1)
	h := mcpws.NewHandler(func(r *http.Request) *mcp.Server {
		factoryID <- mcpws.ConnectionID(r.Context())
		return newServer(&mcp.ServerOptions{
			InitializedHandler: func(context.Context, *mcp.InitializedRequest) {
				initialized <- onConnect.Load()
			},
		})
	}, &mcpws.HandlerOptions{
		OnConnect: func(r *http.Request, ss *mcp.ServerSession) {
			time.Sleep(20 * time.Millisecond) // the session must wait for OnConnect
			onConnect.Store(true)
			connCtx <- r.Context()
			sessionID <- ss.ID()
		},
	})
	cs := connect(t, serve(t, h), nil)

	if !waitFor(t, initialized, "initialized") {
		t.Error("the session handled a message before OnConnect returned")
	}
	id := waitFor(t, sessionID, "session id")
	if id == "" {
		t.Error("ServerSession.ID() is empty")
	}
	assertEqual(t, "ConnectionID in the factory", waitFor(t, factoryID, "factory"), id)
	assertEqual(t, "ConnectionID of another context", mcpws.ConnectionID(context.Background()), "")
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	assertNoError(t, err)
	assertEqual(t, "len(tools)", len(tools.Tools), 1)
	assertEqual(t, "tool name", tools.Tools[0].Name, "add")

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 40}})
	assertNoError(t, err)
	assertEqual(t, "isError", res.IsError, false)
	assertEqual(t, "text", res.Content[0].(*mcp.TextContent).Text, `{"sum":42}`)
	assertEqual(t, "protocol version", cs.InitializeResult().ProtocolVersion, protocolVersion)

	// The request context passed to the factory ends with the connection.
	rctx := waitFor(t, connCtx, "connection context")
	if rctx.Err() != nil {
		t.Fatal("connection context ended early")
	}
	assertNoError(t, cs.Close())
	select {
	case <-rctx.Done():
	case <-time.After(waitLimit):
		t.Fatal("connection context not cancelled after the client closed")
	}
}

func TestListChanged(t *testing.T) {
	t.Parallel()
	srv := newServer(nil)
	h := mcpws.NewHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	changed := make(chan struct{}, 10)
	cs := connect(t, serve(t, h), &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx := context.Background()
	caps := cs.InitializeResult().Capabilities
	if caps.Tools == nil || !caps.Tools.ListChanged {
		t.Fatalf("tools capability = %+v, want listChanged", caps.Tools)
	}

	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo"}}}, nil
		})
	waitFor(t, changed, "tools/list_changed after AddTool")
	tools, err := cs.ListTools(ctx, nil)
	assertNoError(t, err)
	assertEqual(t, "len(tools)", len(tools.Tools), 2)

	srv.RemoveTools("add")
	waitFor(t, changed, "tools/list_changed after RemoveTools")
	tools, err = cs.ListTools(ctx, nil)
	assertNoError(t, err)
	assertEqual(t, "len(tools)", len(tools.Tools), 1)
	assertEqual(t, "tool name", tools.Tools[0].Name, "echo")
}

func TestOrigin(t *testing.T) {
	t.Parallel()
	h := mcpws.NewHandler(func(*http.Request) *mcp.Server { return newServer(nil) },
		&mcpws.HandlerOptions{OriginPatterns: []string{"localhost:*", "https://app.example.com"}})
	url := serve(t, h)
	host := strings.TrimPrefix(strings.TrimSuffix(url, "/mcp"), "ws://")

	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"", http.StatusSwitchingProtocols}, // not a browser
		{"http://" + host, http.StatusSwitchingProtocols},
		{"http://localhost:5173", http.StatusSwitchingProtocols},
		{"https://app.example.com", http.StatusSwitchingProtocols},
		{"http://app.example.com", http.StatusForbidden}, // scheme-qualified pattern
		{"http://evil.example", http.StatusForbidden},
		{"http://localhost.evil.example:80", http.StatusForbidden},
		{"null", http.StatusForbidden},
	} {
		t.Run(tc.origin, func(t *testing.T) {
			t.Parallel()
			header := http.Header{}
			if tc.origin != "" {
				header.Set("Origin", tc.origin)
			}
			_, resp, err := dialRaw(t, url, header, mcpws.Subprotocol)
			if resp == nil {
				t.Fatalf("no response: %v", err)
			}
			assertEqual(t, "status", resp.StatusCode, tc.want)
		})
	}
}

func TestNotWebSocket(t *testing.T) {
	t.Parallel()
	var called atomic.Bool
	h := mcpws.NewHandler(func(*http.Request) *mcp.Server { called.Store(true); return newServer(nil) }, nil)
	url := "http" + strings.TrimPrefix(serve(t, h), "ws")
	resp, err := http.Get(url)
	assertNoError(t, err)
	resp.Body.Close()
	assertEqual(t, "status", resp.StatusCode, http.StatusUpgradeRequired)
	assertEqual(t, "factory called", called.Load(), false)
}

func TestFactoryRefuses(t *testing.T) {
	t.Parallel()
	h := mcpws.NewHandler(func(r *http.Request) *mcp.Server {
		if r.URL.Query().Get("token") != "secret" {
			return nil
		}
		return newServer(nil)
	}, nil)
	url := serve(t, h)
	_, resp, err := dialRaw(t, url, nil, mcpws.Subprotocol)
	if err == nil || resp == nil {
		t.Fatalf("dial without token: err = %v, want 403", err)
	}
	assertEqual(t, "status", resp.StatusCode, http.StatusForbidden)
	connect(t, url+"?token=secret", nil)
}

func TestSubprotocol(t *testing.T) {
	t.Parallel()
	h := mcpws.NewHandler(func(*http.Request) *mcp.Server { return newServer(nil) }, nil)
	url := serve(t, h)
	ctx := context.Background()

	ws, _, err := dialRaw(t, url, nil, "other", mcpws.Subprotocol)
	assertNoError(t, err)
	assertEqual(t, "subprotocol", ws.Subprotocol(), mcpws.Subprotocol)
	ws.Close(websocket.StatusNormalClosure, "")

	// Lenient: a client that offers no subprotocol is served all the same.
	ws, _, err = dialRaw(t, url, nil)
	assertNoError(t, err)
	assertEqual(t, "subprotocol", ws.Subprotocol(), "")
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	assertNoError(t, ws.Write(ctx, websocket.MessageText, []byte(init)))
	typ, data, err := ws.Read(ctx)
	assertNoError(t, err)
	assertEqual(t, "message type", typ, websocket.MessageText)
	if !strings.Contains(string(data), `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize result = %s", data)
	}
	ws.Close(websocket.StatusNormalClosure, "")
}

func TestProtocolViolations(t *testing.T) {
	t.Parallel()
	h := mcpws.NewHandler(func(*http.Request) *mcp.Server { return newServer(nil) },
		&mcpws.HandlerOptions{ReadLimit: 1024})
	url := serve(t, h)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	big := `{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`
	for _, tc := range []struct {
		name   string
		typ    websocket.MessageType
		msg    string
		code   websocket.StatusCode
		reason string
	}{
		{"binary", websocket.MessageBinary, ping, mcpws.StatusUnsupportedData, "binary"},
		{"batch", websocket.MessageText, "[" + ping + "]", mcpws.StatusProtocolError, "batch"},
		{"batch-space", websocket.MessageText, "  \n[" + ping + "]", mcpws.StatusProtocolError, "batch"},
		{"not-json", websocket.MessageText, "hello", mcpws.StatusProtocolError, "invalid JSON-RPC"},
		{"too-big", websocket.MessageText, big, mcpws.StatusMessageTooBig, "read limit of 1024 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws, _, err := dialRaw(t, url, nil, mcpws.Subprotocol)
			assertNoError(t, err)
			assertNoError(t, ws.Write(context.Background(), tc.typ, []byte(tc.msg)))
			expectClose(t, ws, tc.code, tc.reason)
		})
	}

	// A message at the limit is fine.
	t.Run("at-limit", func(t *testing.T) {
		t.Parallel()
		ws, _, err := dialRaw(t, url, nil, mcpws.Subprotocol)
		assertNoError(t, err)
		msg := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"`
		msg += strings.Repeat("x", 1024-len(msg)-4) + `"}}}`
		assertEqual(t, "len(msg)", len(msg), 1024)
		ctx := context.Background()
		assertNoError(t, ws.Write(ctx, websocket.MessageText, []byte(msg)))
		_, data, err := ws.Read(ctx)
		assertNoError(t, err)
		if !strings.Contains(string(data), `"id":1`) {
			t.Fatalf("response = %s", data)
		}
		ws.Close(websocket.StatusNormalClosure, "")
	})
}

func TestClientReadLimit(t *testing.T) {
	t.Parallel()
	srv := newServer(nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "big"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("y", 4096)}}}, nil, nil
	})
	url := serve(t, mcpws.NewHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "small", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcpws.ClientTransport{URL: url, ReadLimit: 2048}, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	assertNoError(t, err)
	defer cs.Close()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "big", Arguments: map[string]any{}})
	if err == nil {
		t.Fatal("CallTool with a result over the client's read limit succeeded")
	}
}

func TestShutdown(t *testing.T) {
	t.Parallel()
	srv := newServer(nil)
	h := mcpws.NewHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	url := serve(t, h)

	var sessions []*mcp.ClientSession
	for range 3 {
		sessions = append(sessions, connect(t, url, nil))
	}
	raw, _, err := dialRaw(t, url, nil, mcpws.Subprotocol)
	assertNoError(t, err)
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		expectClose(t, raw, websocket.StatusNormalClosure, "server shutting down")
	}()

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	assertNoError(t, h.Shutdown(ctx))
	waitFor(t, closed, "raw client closed")
	for _, cs := range sessions {
		done := make(chan error, 1)
		go func() { done <- cs.Wait() }()
		waitFor(t, done, "client session ended")
	}

	_, resp, err := dialRaw(t, url, nil, mcpws.Subprotocol)
	if err == nil || resp == nil {
		t.Fatalf("dial after Shutdown: err = %v, want 503", err)
	}
	assertEqual(t, "status", resp.StatusCode, http.StatusServiceUnavailable)
}

func TestShutdownDeadline(t *testing.T) {
	t.Parallel()
	srv := newServer(nil)
	started := make(chan struct{})
	// A tool that runs until its context ends: a graceful close waits for it.
	mcp.AddTool(srv, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		close(started)
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	h := mcpws.NewHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	cs := connect(t, serve(t, h), nil)
	callErr := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
		callErr <- err
	}()
	waitFor(t, started, "tool started")

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := h.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v, want context.DeadlineExceeded", err)
	}
	if err := waitFor(t, callErr, "call ended"); err == nil {
		t.Fatal("the blocked call succeeded")
	}
}

func TestConcurrency(t *testing.T) {
	t.Parallel()
	srv := newServer(nil)
	h := mcpws.NewHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	url := serve(t, h)
	const clients, calls = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, clients*calls)
	for i := range clients {
		cs := connect(t, url, nil)
		for j := range calls {
			wg.Go(func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": i, "b": j}})
				if err != nil {
					errs <- err
					return
				}
				if got, want := res.Content[0].(*mcp.TextContent).Text, fmt.Sprintf(`{"sum":%d}`, i+j); got != want {
					errs <- fmt.Errorf("add(%d, %d) = %s, want %s", i, j, got, want)
				}
			})
		}
		// Lists and tool changes interleave with the calls.
		wg.Go(func() {
			for range 5 {
				if _, err := cs.ListTools(context.Background(), nil); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range 5 {
		name := fmt.Sprintf("extra%d", i)
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
