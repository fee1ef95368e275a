// Command mcplive-testserver is the MCP server that the JS package's tests
// (js/test) run against: an official go-sdk server on /mcp over both
// transports — a WebSocket upgrade goes to the mcpws handler, any other
// request to go-sdk's Streamable HTTP handler (stateless for 2026-07-28
// requests, which carry MCP-Protocol-Version 2026-07-28: go-sdk serves that
// revision over HTTP only so; stateful, with sessions and the GET event
// stream, for 2025-11-25) — with an HTTP control API that changes its lists
// at run time and drops its connections, so that tests can drive
// list_changed, resources/updated and reconnects.
//
// It listens on -addr (default 127.0.0.1:0) and prints one JSON line on
// stdout once it serves: {"http":"http://host:port","ws":"ws://host:port/mcp"}.
// It exits when its standard input closes (so a test runner that dies takes
// it along) or on SIGINT/SIGTERM.
//
// Control API (POST, JSON body, answers {"ok":true,...}):
//
//	/control/add-tool         {"name","title"?,"description"?,"inputSchema"?,"ask"?}
//	                                           ask: the tool asks the user for a form (elicitation, see
//	                                           ask) and answers with the user's answer as JSON
//	/control/remove-tool      {"name"}
//	/control/add-tools        {"name","count"}  count tools named name0…name<count-1>
//	/control/add-prompt       {"name","description"?,"arguments"?:[{"name","required"?}]}
//	/control/remove-prompt    {"name"}
//	/control/add-resource     {"uri","name","text"?,"mimeType"?}
//	/control/remove-resource  {"uri"}
//	/control/update-resource  {"uri","text"}   new content + resources/updated
//	/control/add-template     {"uriTemplate","name"}
//	/control/remove-template  {"uriTemplate"}
//	/control/log              {"level","data"}  notifications/message to every session (2025-11-25;
//	                                           in 2026-07-28 call echo with "log" instead)
//	/control/drop             {}               closes every connection (clients reconnect); over
//	                                           Streamable HTTP 2025-11-25 the server forgets the
//	                                           sessions: their next request gets 404
//	/control/sessions         {}               {"ok":true,"sessions":N}
//	/control/cache            {"ttlMs","scope"} the ttlMs and cacheScope of every list and read result
//	                                           from now on ({} gives go-sdk's own: 0, "public")
//	/control/hold             {"on","method"?} on: every MCP request (of method, when given) waits, its
//	                                           answer held back, until {"on":false}
//	/control/legacy           {"on"}           on: server/discover is refused (-32601), as a 2025-11-25
//	                                           server does
//	/control/require          {"token"?,"header"?,"value"?}  from now on a Streamable HTTP request
//	                                           needs "Authorization: Bearer <token>" (else 401 with a
//	                                           WWW-Authenticate challenge naming resource_metadata)
//	                                           and header: value (else 403); {} lifts both
//	/control/requests         {}               {"ok":true,"requests":[{"method","rpc","authorization","header"}]}
//	                                           the Streamable HTTP requests so far (rpc: Mcp-Method)
//	/control/oauth            {"resource","issuer","introspection","clientId","clientSecret","origins"?}
//	                                           from now on Streamable HTTP on /mcp is a protected resource
//	                                           (internal/protect): tokens of issuer, checked by introspection,
//	                                           audience resource, scope tools:read; a tool named admin_*
//	                                           needs tools:admin (else 403 insufficient_scope); its
//	                                           metadata at /.well-known/oauth-protected-resource/mcp;
//	                                           CORS for origins. {"off":true} lifts it
//
// A WebSocket handshake on /mcp?greet=1 gets a server that speaks first: it
// sends a ping (id "greet-1") as soon as the socket is open, before the
// client says anything, logs "greet: answered" when the answer comes, and
// then serves MCP as /mcp does (the client's early dial must not lose what
// comes before it listens; js/src/dial.js).
//
// With -static DIR it also serves DIR's files under /js/ (the Chromium
// test loads the npm package and its test page from there, same origin as the
// WebSocket).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/mcplive/mcplive/internal/childserver"
	"github.com/mcplive/mcplive/internal/protect"
	"github.com/mcplive/mcplive/mcpws"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	pageSize := flag.Int("page-size", 2, "items per list page (small, so tests walk pages)")
	static := flag.String("static", "", "serve this directory under /js/ (the npm package, for browser tests)")
	bareListen := flag.Bool("bare-listen", false, "serve subscriptions/listen as go-sdk v1.8 does, without mcpws.ListenOverlap (the client copes on its own)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("mcplive-testserver: ")

	s := newTestServer(*pageSize, !*bareListen)
	mux := http.NewServeMux()
	ws := mcpws.NewHandler(func(*http.Request) *mcp.Server { return s.srv }, nil)
	getServer := func(*http.Request) *mcp.Server { return s.srv }
	legacyHTTP := mcp.NewStreamableHTTPHandler(getServer, nil)
	modernHTTP := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			if r.URL.Query().Get("greet") != "" {
				s.greet(w, r)
				return
			}
			ws.ServeHTTP(w, r)
			return
		}
		if !s.admit(w, r) {
			return
		}
		serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
				modernHTTP.ServeHTTP(w, r)
				return
			}
			legacyHTTP.ServeHTTP(w, r)
		})
		if p := s.protected(); p != nil {
			p.Wrap(serve).ServeHTTP(w, r)
			return
		}
		serve(w, r)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		if p := s.protected(); p != nil {
			p.Metadata().ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	})
	mux.HandleFunc("POST /control/{op}", s.control)
	if *static != "" {
		mux.Handle("/js/", http.StripPrefix("/js/", noCache(http.FileServer(http.Dir(*static)))))
	}

	childserver.Serve(*addr, mux, func() { s.dropAll() })
}

// greet serves /mcp?greet=1 over WebSocket (see the package doc).
func (s *testServer) greet(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"mcp"}, InsecureSkipVerify: true})
	if err != nil {
		return
	}
	ctx := r.Context()
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":"greet-1","method":"ping"}`)); err != nil {
		c.CloseNow()
		return
	}
	ss, err := s.srv.Connect(ctx, greetTransport{&mcpws.Transport{Conn: c}}, nil)
	if err != nil {
		c.CloseNow()
		return
	}
	ss.Wait()
}

// greetTransport's connection takes the answer to the greeting ping out of
// what the go-sdk server reads.
type greetTransport struct{ t *mcpws.Transport }

func (g greetTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := g.t.Connect(ctx)
	return greetConn{c}, err
}

type greetConn struct{ mcp.Connection }

func (g greetConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		m, err := g.Connection.Read(ctx)
		if r, ok := m.(*jsonrpc.Response); ok && err == nil && r.ID.Raw() == "greet-1" {
			log.Printf("greet: answered")
			continue
		}
		return m, err
	}
}

func noCache(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if strings.HasSuffix(r.URL.Path, ".wasm") && r.URL.Query().Get("mime") == "wrong" {
			// Lets a test check the loader's fallback for servers that send
			// the wrong MIME type (streaming instantiation refuses it).
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		h.ServeHTTP(w, r)
	})
}

type testServer struct {
	srv *mcp.Server

	mu        sync.Mutex
	resources map[string]string // uri → text
	token     string            // required bearer token ("": none)
	header    string            // required header ("": none) and its value
	value     string
	requests  []httpRequest
	protector *protect.Protector // nil: /mcp is not a protected resource
	ttlMs     int                // /control/cache: the ttlMs and cacheScope of every cacheable result
	scope     string
	held      chan struct{} // /control/hold: closed when held requests may go on (nil: none held)
	heldRPC   string        // /control/hold's method: only its requests are held ("": all)
	legacy    bool          // /control/legacy: server/discover is refused, as by a 2025-11-25 server
}

func (s *testServer) protected() *protect.Protector {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.protector
}

// httpRequest is one Streamable HTTP request as /control/requests reports it.
type httpRequest struct {
	Method        string `json:"method"`
	RPC           string `json:"rpc"`
	Authorization string `json:"authorization"`
	Header        string `json:"header"` // the value of the required header, if one is set
}

// admit records a Streamable HTTP request and checks the credentials that
// /control/require asked for; it answers a refused request itself.
func (s *testServer) admit(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	token, header, value := s.token, s.header, s.value
	req := httpRequest{Method: r.Method, RPC: r.Header.Get("Mcp-Method"), Authorization: r.Header.Get("Authorization")}
	if header != "" {
		req.Header = r.Header.Get(header)
	}
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
		// Another scheme first, with a param of the same name: the client
		// must read the Bearer challenge's.
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Basic realm="mcp", error="not_bearer", Bearer error="invalid_token", error_description="the token is unknown", resource_metadata="http://%s/.well-known/oauth-protected-resource/mcp", scope="mcp"`, r.Host))
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return false
	}
	if header != "" && r.Header.Get(header) != value {
		http.Error(w, "Forbidden: "+header+" is missing or wrong", http.StatusForbidden)
		return false
	}
	return true
}

func newTestServer(pageSize int, overlap bool) *testServer {
	s := &testServer{resources: map[string]string{}}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "mcplive-testserver", Title: "mcplive test server", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: "A server for the mcplive JS tests.",
		PageSize:     pageSize,
		Capabilities: &mcp.ServerCapabilities{
			Logging:   &mcp.LoggingCapabilities{},
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
		},
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.scope != "" {
				c.TTLMs, c.CacheScope = s.ttlMs, s.scope
			}
		},
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			var vals []string
			for _, v := range []string{"alpha", "beta", "gamma", "alps"} {
				if strings.HasPrefix(v, req.Params.Argument.Value) {
					vals = append(vals, v)
				}
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: vals, Total: len(vals)}}, nil
		},
	})

	if overlap {
		s.srv.AddReceivingMiddleware(mcpws.ListenOverlap(), s.hold)
	} else {
		s.srv.AddReceivingMiddleware(s.hold)
	}
	s.srv.AddTool(&mcp.Tool{Name: "echo", Description: "Echoes its text.", InputSchema: objectSchema(`{"text":{"type":"string"}}`, "text")}, echo)
	s.srv.AddTool(&mcp.Tool{Name: "add", Description: "Adds two numbers.", InputSchema: objectSchema(`{"a":{"type":"number"},"b":{"type":"number"}}`, "a", "b")}, add)
	s.srv.AddTool(&mcp.Tool{Name: "fail", Description: "Always fails with JSON-RPC error -32001 and data.", InputSchema: objectSchema(`{}`)}, fail)
	s.srv.AddTool(&mcp.Tool{Name: "slow", Description: "Reports progress every 20 ms for steps steps, or until cancelled.", InputSchema: objectSchema(`{"steps":{"type":"integer"}}`)}, slow)
	s.srv.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}}, greet)
	s.addResource("test://readme", "readme", "hello", "text/plain")
	s.addResource("test://notes", "notes", "some notes", "text/plain")
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"}, s.readTemplate)
	return s
}

func objectSchema(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":%s,"required":%s}`, props, req))
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// echo answers with its text. With "log": {"level", "data"} it first sends
// that notifications/message in the call's context: in 2026-07-28 a server
// logs only while it serves a request (the control API's "log" reaches
// 2025-11-25 sessions only).
func echo(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Text string
		Log  *struct {
			Level string
			Data  any
		}
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if in.Log != nil {
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(in.Log.Level), Logger: "testserver", Data: in.Log.Data})
	}
	return textResult(in.Text), nil
}

func add(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct{ A, B float64 }
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	r := textResult(fmt.Sprint(in.A + in.B))
	r.StructuredContent = map[string]float64{"sum": in.A + in.B}
	return r, nil
}

func fail(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, &jsonrpc.Error{Code: -32001, Message: "this tool always fails", Data: json.RawMessage(`{"reason":"test"}`)}
}

func slow(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct{ Steps int }
	json.Unmarshal(req.Params.Arguments, &in)
	if in.Steps <= 0 {
		in.Steps = 1 << 30
	}
	token := req.Params.GetProgressToken()
	for i := 1; i <= in.Steps; i++ {
		select {
		case <-ctx.Done():
			log.Printf("slow: cancelled at step %d", i)
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if token != nil {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i)})
		}
	}
	return textResult("done"), nil
}

// ask asks the user for a form with a name and an age (default 30) and
// answers with the user's answer (ElicitResult) as JSON. It returns its
// input request (multi round-trip requests): in 2026-07-28 go-sdk sends it
// as an input_required result; in 2025-11-25 go-sdk turns it into the
// server request elicitation/create, and a failed one fails the call.
func ask(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if in, ok := req.Params.InputResponses["who"]; ok {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		return textResult(string(b)), nil
	}
	form := &mcp.ElicitParams{
		Message:         "Who are you?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","default":30}}}`),
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"who": form}}, nil
}

func greet(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{
		Description: "A greeting",
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["name"] + "!"}}},
	}, nil
}

func (s *testServer) addResource(uri, name, text, mime string) {
	s.mu.Lock()
	s.resources[uri] = text
	s.mu.Unlock()
	s.srv.AddResource(&mcp.Resource{URI: uri, Name: name, MIMEType: mime}, s.readResource)
}

func (s *testServer) readResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	s.mu.Lock()
	text, ok := s.resources[req.Params.URI]
	s.mu.Unlock()
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: text}}}, nil
}

func (s *testServer) readTemplate(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "item " + strings.TrimPrefix(req.Params.URI, "test://items/")}}}, nil
}

// dropAll closes every session's connection; it returns how many there were.
func (s *testServer) dropAll() int {
	var ss []*mcp.ServerSession
	for x := range s.srv.Sessions() {
		ss = append(ss, x)
	}
	for _, x := range ss {
		// Not waited for: a session's Close waits for its handlers, and
		// go-sdk's stateless Streamable HTTP handler (2026-07-28) does not
		// end a tool's context when the client closes the request's
		// stream, so a cancelled slow call would hold it for good.
		go x.Close()
	}
	return len(ss)
}

type controlReq struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Arguments   []struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	} `json:"arguments"`
	URI         string          `json:"uri"`
	URITemplate string          `json:"uriTemplate"`
	Text        string          `json:"text"`
	MIMEType    string          `json:"mimeType"`
	Count       int             `json:"count"`
	Ask         bool            `json:"ask"`
	Level       string          `json:"level"`
	Data        json.RawMessage `json:"data"`
	TTLMs       int             `json:"ttlMs"`
	Scope       string          `json:"scope"`
	On          bool            `json:"on"`
	Method      string          `json:"method"`
}

// hold is the middleware of /control/hold: while on, every request waits
// (its answer is held back) until hold is turned off.
func (s *testServer) hold(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		s.mu.Lock()
		ch := s.held
		if s.heldRPC != "" && s.heldRPC != method {
			ch = nil
		}
		legacy := s.legacy
		s.mu.Unlock()
		if legacy && method == "server/discover" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found (a 2025-11-25 server)"}
		}
		if ch != nil {
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return next(ctx, method, req)
	}
}

func (s *testServer) control(w http.ResponseWriter, r *http.Request) {
	var req controlReq
	body, _ := io.ReadAll(r.Body)
	if len(body) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	res := map[string]any{"ok": true}
	switch op := r.PathValue("op"); op {
	case "cache":
		s.mu.Lock()
		s.ttlMs, s.scope = req.TTLMs, req.Scope
		s.mu.Unlock()
	case "legacy":
		s.mu.Lock()
		s.legacy = req.On
		s.mu.Unlock()
	case "hold":
		s.mu.Lock()
		switch {
		case req.On && s.held == nil:
			s.held = make(chan struct{})
			s.heldRPC = req.Method
		case !req.On && s.held != nil:
			close(s.held)
			s.held = nil
		}
		s.mu.Unlock()
	case "add-tool":
		schema := req.InputSchema
		if schema == nil {
			schema = objectSchema(`{}`)
		}
		handler := echo
		if req.Ask {
			handler = ask
		}
		s.srv.AddTool(&mcp.Tool{Name: req.Name, Title: req.Title, Description: req.Description, InputSchema: schema}, handler)
	case "remove-tool":
		s.srv.RemoveTools(req.Name)
	case "add-tools":
		for i := range req.Count {
			s.srv.AddTool(&mcp.Tool{Name: fmt.Sprint(req.Name, i), Description: req.Description, InputSchema: objectSchema(`{"text":{"type":"string"}}`)}, echo)
		}
	case "add-prompt":
		p := &mcp.Prompt{Name: req.Name, Description: req.Description}
		for _, a := range req.Arguments {
			p.Arguments = append(p.Arguments, &mcp.PromptArgument{Name: a.Name, Required: a.Required})
		}
		s.srv.AddPrompt(p, greet)
	case "remove-prompt":
		s.srv.RemovePrompts(req.Name)
	case "add-resource":
		s.addResource(req.URI, req.Name, req.Text, req.MIMEType)
	case "remove-resource":
		s.mu.Lock()
		delete(s.resources, req.URI)
		s.mu.Unlock()
		s.srv.RemoveResources(req.URI)
	case "update-resource":
		s.mu.Lock()
		s.resources[req.URI] = req.Text
		s.mu.Unlock()
		s.srv.ResourceUpdated(r.Context(), &mcp.ResourceUpdatedNotificationParams{URI: req.URI})
	case "add-template":
		s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: req.URITemplate, Name: req.Name}, s.readTemplate)
	case "remove-template":
		s.srv.RemoveResourceTemplates(req.URITemplate)
	case "log":
		var data any = string(req.Data)
		if req.Data != nil {
			json.Unmarshal(req.Data, &data)
		}
		for ss := range s.srv.Sessions() {
			ss.Log(r.Context(), &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(req.Level), Logger: "testserver", Data: data})
		}
	case "drop":
		res["dropped"] = s.dropAll()
	case "require":
		var q struct{ Token, Header, Value string }
		json.Unmarshal(body, &q)
		s.mu.Lock()
		s.token, s.header, s.value = q.Token, q.Header, q.Value
		s.mu.Unlock()
	case "oauth":
		var q struct {
			Off                                                     bool
			Resource, Issuer, Introspection, ClientID, ClientSecret string
			Origins                                                 []string
		}
		json.Unmarshal(body, &q)
		var p *protect.Protector
		if !q.Off {
			var err error
			p, err = protect.New(protect.Config{
				Resource: q.Resource, Issuer: q.Issuer, IntrospectionURL: q.Introspection, ClientID: q.ClientID, ClientSecret: q.ClientSecret,
				Scope: "tools:read", AdminScope: "tools:admin",
				AdminTool:   func(name string) bool { return strings.HasPrefix(name, "admin_") },
				AllowOrigin: func(o string) bool { return slices.Contains(q.Origins, o) },
			})
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		}
		s.mu.Lock()
		s.protector = p
		s.mu.Unlock()
	case "requests":
		s.mu.Lock()
		res["requests"] = append([]httpRequest{}, s.requests...)
		s.mu.Unlock()
	case "sessions":
		n := 0
		for range s.srv.Sessions() {
			n++
		}
		res["sessions"] = n
	default:
		http.Error(w, "unknown control operation "+op, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(res)
}
