package mcplive_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
)

const (
	benchTools    = 10_000
	benchPageSize = 100
)

// BenchmarkListTools10k lists 10,000 tools in pages of 100 from the go-sdk
// server over a real WebSocket: time and allocations per full ListTools.
// Client and server share the process, so the numbers include go-sdk's
// work; BenchmarkListTools10kClientOnly isolates the client's.
func BenchmarkListTools10k(b *testing.B) {
	srv := mcptest.New(b, &mcptest.Options{PageSize: benchPageSize, Setup: func(s *mcp.Server) {
		mcptest.AddTools(s, "tool", benchTools)
	}})
	benchListTools(b, srv.URL)
}

// BenchmarkListTools10kClientOnly lists the same 10,000 tools from a
// server that answers with pages encoded in advance, so that nearly all
// time and allocations are the client's.
func BenchmarkListTools10kClientOnly(b *testing.B) {
	benchListTools(b, cannedToolServer(b))
}

func benchListTools(b *testing.B, url string) {
	ctx := context.Background()
	s, err := mcplive.NewSession(ctx, testTransport(b, url), eraOptions(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		tools, err := s.ListTools(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(tools) != benchTools {
			b.Fatalf("%d tools, want %d", len(tools), benchTools)
		}
	}
}

// cannedToolServer serves initialize and tools/list from pages encoded
// once, as go-sdk would send them.
func cannedToolServer(b *testing.B) string {
	type tool struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"inputSchema"`
	}
	var pages []string
	for p := 0; p < benchTools/benchPageSize; p++ {
		var page struct {
			Tools      []tool `json:"tools"`
			NextCursor string `json:"nextCursor,omitempty"`
		}
		for i := p * benchPageSize; i < (p+1)*benchPageSize; i++ {
			name := fmt.Sprintf("tool%d", i)
			page.Tools = append(page.Tools, tool{name, "tool " + name, map[string]any{"type": "object"}})
		}
		if p+1 < benchTools/benchPageSize {
			page.NextCursor = strconv.Itoa(p + 1)
		}
		raw, _ := json.Marshal(page)
		pages = append(pages, string(raw))
	}
	initResult := `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"canned","version":"1"}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"mcp"}})
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ws.SetReadLimit(-1)
		ctx := r.Context()
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				return
			}
			var m struct {
				ID     json.RawMessage
				Method string
				Params struct{ Cursor string }
			}
			if json.Unmarshal(data, &m) != nil || len(m.ID) == 0 {
				continue // notifications
			}
			result := "{}"
			switch m.Method {
			case "initialize":
				result = initResult
			case "tools/list":
				p, _ := strconv.Atoi(m.Params.Cursor)
				result = pages[p]
			}
			var sb strings.Builder
			sb.WriteString(`{"jsonrpc":"2.0","id":`)
			sb.Write(m.ID)
			sb.WriteString(`,"result":`)
			sb.WriteString(result)
			sb.WriteString("}")
			if ws.Write(ctx, websocket.MessageText, []byte(sb.String())) != nil {
				return
			}
		}
	}))
	b.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}
