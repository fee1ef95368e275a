// Package mcptest starts real MCP servers for tests: the official go-sdk
// server behind a WebSocket (through package mcpws) on 127.0.0.1, with
// helpers to change its lists at run time and to restart it on the same
// address.
package mcptest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplive/mcplive/mcpws"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is a go-sdk MCP server on 127.0.0.1, served on /mcp over both
// transports: a WebSocket upgrade goes to package mcpws, any other request
// to go-sdk's Streamable HTTP handler. URL names the transport the tests
// of this run use (Transport). Every connection shares one *mcp.Server
// (S), so a change made through S reaches every client with the matching
// list_changed.
type Server struct {
	S   *mcp.Server
	URL string // ws://127.0.0.1:port/mcp, or http:// when Transport() is "http"

	t       testing.TB
	addr    string
	mu      sync.Mutex
	httpSrv *http.Server
	handler *mcpws.Handler
	ln      net.Listener
	setup   func(*mcp.Server)
	newSrv  func(setup func(*mcp.Server)) *mcp.Server
}

// Options configure New.
type Options struct {
	PageSize int // default 1000 (go-sdk's default)
	// Setup adds the initial tools, prompts and resources. Nil adds none.
	Setup func(*mcp.Server)
	// ServerOptions, when set, are used as is (PageSize then ignored).
	ServerOptions *mcp.ServerOptions
}

// New starts a server and stops it when the test ends. It speaks this
// run's transport (Transport).
func New(t testing.TB, o *Options) *Server {
	t.Helper()
	return start(t, o, Transport())
}

// NewWebSocket is New over WebSocket, whatever the run's transport.
func NewWebSocket(t testing.TB, o *Options) *Server {
	t.Helper()
	return start(t, o, "ws")
}

func start(t testing.TB, o *Options, transport string) *Server {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	s := &Server{t: t, setup: o.Setup}
	s.newSrv = serverFactory(o)
	s.S = s.newSrv(o.Setup)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	s.URL = "ws://" + s.addr + "/mcp"
	if transport == "http" {
		s.URL = "http://" + s.addr + "/mcp"
	}
	s.serve(ln)
	t.Cleanup(s.Stop)
	return s
}

// Transport is the transport the tests of this run speak to a Server:
// "ws" (the default) or "http", from MCPLIVE_TEST_TRANSPORT.
func Transport() string {
	if os.Getenv("MCPLIVE_TEST_TRANSPORT") == "http" {
		return "http"
	}
	return "ws"
}

// DefaultCapabilities declares every list with listChanged, resources with
// subscribe, and logging.
func DefaultCapabilities() *mcp.ServerCapabilities {
	return &mcp.ServerCapabilities{
		Tools:     &mcp.ToolCapabilities{ListChanged: true},
		Prompts:   &mcp.PromptCapabilities{ListChanged: true},
		Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
		Logging:   &mcp.LoggingCapabilities{},
	}
}

func (s *Server) serve(ln net.Listener) {
	srv := s.S
	h := mcpws.NewHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	// go-sdk serves 2026-07-28 over HTTP only statelessly (its stateful
	// handler answers server/discover with the 2025 revisions alone), and
	// 2025-11-25 clients hear list changes only from a stateful one (the GET
	// stream of their session): the tests' era chooses.
	sh := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{
			Stateless: os.Getenv("MCPLIVE_TEST_ERA") == "modern",
			// 2026-07-28 cancels a request by closing its stream; go-sdk
			// ends the handler's context then only when asked to.
			PropagateRequestCancellation: true,
		})
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			h.ServeHTTP(w, r)
			return
		}
		sh.ServeHTTP(w, r)
	}))
	hs := &http.Server{Handler: mux}
	s.mu.Lock()
	s.ln, s.handler, s.httpSrv = ln, h, hs
	s.mu.Unlock()
	go hs.Serve(ln)
}

// Stop closes every connection (code 1000) and stops listening.
func (s *Server) Stop() {
	s.mu.Lock()
	hs, h := s.httpSrv, s.handler
	s.httpSrv, s.handler = nil, nil
	s.mu.Unlock()
	if hs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h.Shutdown(ctx)
	// Close, not Shutdown: HTTP event streams never end by themselves;
	// the go-sdk sessions of Streamable HTTP outlive their connections.
	hs.Close()
	for ss := range s.S.Sessions() {
		// A session waits for its handlers to return before it closes;
		// a test's blocked handler is released only by the test's own
		// cleanup, after Stop.
		go ss.Close()
	}
}

// Restart stops the server and starts a fresh *mcp.Server on the same
// address, set up by setup (nil: the Options' Setup). Clients see a drop.
func (s *Server) Restart(setup func(*mcp.Server)) {
	s.t.Helper()
	s.Stop()
	if setup == nil {
		setup = s.setup
	}
	srv := s.newSrv(setup)
	ln := relisten(s.t, s.addr)
	s.S = srv
	s.serve(ln)
}

// waitLimit bounds the wait for one event that must happen (a request, a
// port set free): a hang detector, not a speed budget, long enough for a
// machine loaded far beyond its cores.
const waitLimit = time.Minute

// relisten listens on addr again after a Stop. The port may linger for a
// moment, as long as the machine's load makes it: up to waitLimit.
func relisten(t testing.TB, addr string) net.Listener {
	t.Helper()
	for deadline := time.Now().Add(waitLimit); ; time.Sleep(20 * time.Millisecond) {
		ln, err := net.Listen("tcp", addr)
		if err == nil {
			return ln
		}
		if time.Now().After(deadline) {
			t.Fatalf("restart on %s: %v", addr, err)
		}
	}
}

// Tool returns a minimal tool named name.
func Tool(name string) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: "tool " + name, InputSchema: map[string]any{"type": "object"}}
}

// EchoHandler answers any tool call with the tool's name.
func EchoHandler(name string) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
	}
}

// AddTools adds tools named prefix0 … prefix(n-1).
func AddTools(s *mcp.Server, prefix string, n int) {
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s%d", prefix, i)
		s.AddTool(Tool(name), EchoHandler(name))
	}
}

// Prompt returns a prompt named name with one required argument "text".
func Prompt(name string) (*mcp.Prompt, mcp.PromptHandler) {
	return &mcp.Prompt{Name: name, Description: "prompt " + name, Arguments: []*mcp.PromptArgument{{Name: "text", Required: true}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: name + ": " + r.Params.Arguments["text"]}}}}, nil
		}
}

// Resource returns a text resource at uri whose content is text().
func Resource(uri string, text func() string) (*mcp.Resource, mcp.ResourceHandler) {
	return &mcp.Resource{URI: uri, Name: uri, MIMEType: "text/plain"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: text()}}}, nil
		}
}

// Template returns a resource template with the given URI template.
func Template(uriTemplate string) (*mcp.ResourceTemplate, mcp.ResourceHandler) {
	return &mcp.ResourceTemplate{URITemplate: uriTemplate, Name: uriTemplate},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "template " + r.Params.URI}}}, nil
		}
}

// serverFactory makes the *mcp.Server of New and NewHTTP, set up by setup:
// o.ServerOptions, or DefaultServerOptions(o.PageSize).
func serverFactory(o *Options) func(setup func(*mcp.Server)) *mcp.Server {
	return func(setup func(*mcp.Server)) *mcp.Server {
		so := o.ServerOptions
		if so == nil {
			so = DefaultServerOptions(o.PageSize)
		}
		srv := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1.0.0"}, so)
		if setup != nil {
			setup(srv)
		}
		return srv
	}
}
