package mcplive_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcplive/mcplive"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A ws:// URL that reaches a Streamable HTTP server: the error says that
// the server may speak Streamable HTTP, and which URL to try.
func TestWebSocketURLOfAStreamableHTTPServer(t *testing.T) {
	t.Parallel()
	server := mcp.NewServer(&mcp.Implementation{Name: "http-only", Version: "1.0.0"}, nil)
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer srv.Close()
	httpURL := srv.URL + "/mcp"
	wsURL := "ws" + strings.TrimPrefix(httpURL, "http")
	o := &mcplive.Options{}
	o.Reconnect.Disabled = true
	c, err := mcplive.Connect(testCtx(t), wsURL, eraOptions(o))
	if err == nil {
		c.Close()
		t.Fatal("connected over WebSocket to an HTTP-only server")
	}
	if !errors.Is(err, mcplive.ErrDial) {
		t.Errorf("error %q: want ErrDial", err)
	}
	if want := "may speak Streamable HTTP and not WebSocket; try " + httpURL; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}

	// An HTTP server that is not MCP: no such hint.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"hello":"world"}`)
	}))
	defer plain.Close()
	_, err = mcplive.Connect(testCtx(t), "ws"+strings.TrimPrefix(plain.URL, "http")+"/mcp", eraOptions(o))
	if err == nil || strings.Contains(err.Error(), "Streamable HTTP") {
		t.Errorf("a server that is not MCP: %v", err)
	}
}
