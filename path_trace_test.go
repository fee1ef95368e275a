package mcplive_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/mcpws"
)

// TestPathTrace measures the path of one list_changed through the root
// package (docs/architecture.md): it connects a client as the wasm binding
// does (raw items) to a go-sdk server, over WebSocket in 2025-11-25 or over
// Streamable HTTP in 2026-07-28 (the subtests ws and http), and with
// MCPLIVE_PATH_TRACE=change has the server add one tool and waits for the
// list's update; with MCPLIVE_PATH_TRACE=base it only waits. The blocks
// whose coverage count (-covermode=count) is higher in the change run than
// in the base run are the path: internal/cmd/pathtrace subtracts the
// profiles and writes the files and functions into docs/architecture.md
// (its TestArchitectureDoc runs this test and checks that page). It is
// skipped without MCPLIVE_PATH_TRACE.
func TestPathTrace(t *testing.T) {
	mode := os.Getenv("MCPLIVE_PATH_TRACE")
	if mode != "base" && mode != "change" {
		t.Skip("a measurement, not a check: internal/cmd/pathtrace runs it with MCPLIVE_PATH_TRACE=base and =change and prints the path of one list change")
	}
	for _, tc := range []struct {
		name, version string
		url           func(*mcp.Server) (string, func())
	}{
		{"ws", mcplive.ProtocolVersion, func(s *mcp.Server) (string, func()) {
			h := mcpws.NewHandler(func(*http.Request) *mcp.Server { return s }, nil)
			srv := httptest.NewServer(h)
			return "ws" + strings.TrimPrefix(srv.URL, "http"), func() { h.Shutdown(context.Background()); srv.Close() }
		}},
		{"http", mcplive.ModernVersion, func(s *mcp.Server) (string, func()) {
			srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
			return srv.URL, srv.Close
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "trace", Version: "1.0.0"}, nil)
			addTool(server, "greet")
			url, stop := tc.url(server)
			defer stop()
			c, err := mcplive.Connect(testCtx(t), url, &mcplive.Options{
				ProtocolVersion: tc.version, RawItems: true, HeartbeatInterval: -1,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			changed := make(chan struct{}, 1)
			// Watched as the wasm binding watches a list (wasm/lists.go,
			// watchList): the raw view, nothing decoded.
			defer c.Tools().WatchView(func(u mcplive.ViewUpdate) {
				if u.Cause == mcplive.CauseNotification {
					changed <- struct{}{}
				}
			})()
			time.Sleep(200 * time.Millisecond) // let the opening settle
			if mode == "base" {
				time.Sleep(300 * time.Millisecond)
				return
			}
			addTool(server, "wave")
			select {
			case <-changed:
			case <-time.After(liveDeadline):
				t.Fatal("no update")
			}
			time.Sleep(100 * time.Millisecond)
		})
	}
}
