package mcpws_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplive/mcplive/internal/leakcheck"
	"github.com/mcplive/mcplive/mcpws"
)

func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(m)
}

// waitLimit bounds the wait for one event that must happen (a connection,
// a close, a shutdown, a message): a hang detector, never a speed budget,
// long enough for a machine loaded far beyond its cores.
const waitLimit = 60 * time.Second

// protocolVersion is the revision the mcplive client speaks; go-sdk clients
// default to a newer one.
const protocolVersion = "2025-11-25"

// serve starts h on 127.0.0.1 and returns the ws:// URL of /mcp.
// Cleanup shuts the handler down, then the HTTP server.
func serve(t *testing.T, h *mcpws.Handler) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		srv.Close()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/mcp"
}

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

// newServer returns a server with the tool "add".
func newServer(opts *mcp.ServerOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "1.0.0"}, opts)
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "adds two integers"},
		func(ctx context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	return s
}

// connect connects a go-sdk client to url; Cleanup closes it.
func connect(t *testing.T, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0.0"}, opts)
	cs, err := c.Connect(ctx, &mcpws.ClientTransport{URL: url}, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// dialRaw opens a plain WebSocket to url, offering subprotocols.
func dialRaw(t *testing.T, url string, header http.Header, subprotocols ...string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: header, Subprotocols: subprotocols})
	if err == nil {
		t.Cleanup(func() { _ = ws.CloseNow() })
	}
	return ws, resp, err
}

// expectClose reads from ws until the server closes it and checks the code
// and that the reason contains want.
func expectClose(t *testing.T, ws *websocket.Conn, code websocket.StatusCode, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for {
		_, _, err := ws.Read(ctx)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) {
			t.Fatalf("read: %v, want a close frame with code %d", err, code)
		}
		if ce.Code != code || !strings.Contains(ce.Reason, want) {
			t.Fatalf("closed with %d %q, want %d and a reason containing %q", ce.Code, ce.Reason, code, want)
		}
		return
	}
}

func assertEqual[T comparable](t *testing.T, name string, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %v, want %v", name, got, want)
	}
}

func assertNoError(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// waitFor receives from ch or fails after a timeout.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}
