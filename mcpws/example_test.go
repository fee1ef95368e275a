package mcpws_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplive/mcplive/mcpws"
)

// This example serves a go-sdk server at /mcp, then calls its tool through a
// go-sdk client over WebSocket.
func ExampleNewHandler() {
	type args struct {
		Name string `json:"name"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "says hello"},
		func(ctx context.Context, req *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
		})

	handler := mcpws.NewHandler(func(r *http.Request) *mcp.Server { return server }, &mcpws.HandlerOptions{
		OriginPatterns: []string{"localhost:*", "127.0.0.1:*"}, // pages served by a dev server
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	httpServer := httptest.NewServer(mux) // or http.ListenAndServe("127.0.0.1:8080", mux)
	defer httpServer.Close()
	defer handler.Shutdown(context.Background())

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	url := "ws" + strings.TrimPrefix(httpServer.URL, "http") + "/mcp"
	session, err := client.Connect(ctx, &mcpws.ClientTransport{URL: url}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: args{Name: "WebSocket"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: Hello, WebSocket!
}
