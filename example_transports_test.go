package mcplive_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/mcpws"
)

// addTool adds a tool that says its own name.
func addTool(s *mcp.Server, name string) {
	s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
	})
}

// follow prints the tool names now, adds a tool on the server, and prints
// them again once the client has applied the server's list_changed.
func follow(c *mcplive.Client, server *mcp.Server) {
	names := func(ts []mcplive.Tool) string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name)
		}
		return strings.Join(out, " ")
	}
	changed := make(chan []mcplive.Tool, 1)
	stop := c.Tools().Subscribe(func(u mcplive.Update[mcplive.Tool]) {
		if u.Cause == mcplive.CauseNotification {
			changed <- u.Items
		}
	})
	defer stop()
	fmt.Println(names(c.Tools().Snapshot().Items))
	addTool(server, "wave") // go-sdk sends notifications/tools/list_changed
	fmt.Println(names(<-changed))
}

// Streamable HTTP, the specification's transport for remote servers: an
// http:// or https:// URL. Here a go-sdk server behind its own handler;
// the tools list follows the server's change.
func ExampleConnect_streamableHTTP() {
	server := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	addTool(server, "greet")
	httpServer := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer httpServer.Close()

	c, err := mcplive.Connect(context.Background(), httpServer.URL, &mcplive.Options{
		ClientInfo: mcplive.Implementation{Name: "my-app", Version: "1.0.0"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	follow(c, server)
	// Output:
	// greet
	// greet wave
}

// WebSocket: a ws:// or wss:// URL (subprotocol "mcp", one JSON-RPC
// message per text frame). Here a go-sdk server served over WebSocket by
// package mcpws.
func ExampleConnect_webSocket() {
	server := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	addTool(server, "greet")
	handler := mcpws.NewHandler(func(*http.Request) *mcp.Server { return server }, nil)
	httpServer := httptest.NewServer(handler)
	defer httpServer.Close()
	defer handler.Shutdown(context.Background())

	url := "ws" + strings.TrimPrefix(httpServer.URL, "http")
	c, err := mcplive.Connect(context.Background(), url, &mcplive.Options{
		ClientInfo: mcplive.Implementation{Name: "my-app", Version: "1.0.0"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	follow(c, server)
	// Output:
	// greet
	// greet wave
}
