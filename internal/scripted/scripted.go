// Package scripted is a small MCP server over WebSocket whose every move a
// test controls: it answers initialize and the four list methods from
// mutable lists (paginated), sends exactly the notifications a test asks
// for (a burst goes out back-to-back, nothing interleaved), counts the
// requests it gets, and lets a hook hold, fail or drop any request (a ping
// included). The go-sdk server (internal/mcptest) is the realistic peer;
// this one is for what go-sdk cannot do on purpose: precise bursts, failing
// list calls, silence, list_changed without the listChanged flag.
package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// List kinds, named as the field of their list result.
const (
	Tools             = "tools"
	Prompts           = "prompts"
	Resources         = "resources"
	ResourceTemplates = "resourceTemplates"
)

// listMethods maps each list method to its kind.
var listMethods = map[string]string{
	"tools/list":               Tools,
	"prompts/list":             Prompts,
	"resources/list":           Resources,
	"resources/templates/list": ResourceTemplates,
}

// DefaultCaps offers every list with listChanged, and resources/subscribe.
const DefaultCaps = `{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true}}`

// ErrDrop, returned by a Hook, leaves the request unanswered for good.
var ErrDrop = errors.New("scripted: drop the request")

// ErrAnswerThenClose, returned by a Hook, sends the answer and then closes
// the connection at once (a server that crashes right after answering).
var ErrAnswerThenClose = errors.New("scripted: answer, then close the connection")

// Request is one client request as the server received it.
type Request struct {
	Conn   int // the connection's number, from 1
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	// Done is closed when the connection ends: a Hook that blocks must
	// return by then.
	Done <-chan struct{}
}

// Cursor returns the request's pagination cursor, "" on a first page.
func (r *Request) Cursor() string {
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(r.Params, &p)
	return p.Cursor
}

// Server is the scripted server. Its methods are safe for concurrent use.
type Server struct {
	URL string // ws://127.0.0.1:port/mcp

	// Hook, when set, sees every request after the server has computed its
	// answer (a list page reflects the list at arrival) and before it is
	// sent, on the request's own goroutine. nil sends the answer; ErrDrop
	// sends nothing; any other error is sent as a JSON-RPC error -32603.
	// Set it before clients connect.
	Hook func(*Request) error

	hs *http.Server
	ln net.Listener
	wg sync.WaitGroup

	mu       sync.Mutex
	caps     json.RawMessage
	version  string // the serverInfo's version ("" is "1.0.0")
	pageSize int
	lists    map[string][]json.RawMessage
	counts   map[string]int
	inFlight map[string]int
	maxIn    map[string]int
	conns    map[int]*conn
	nconns   int
	closed   bool
	modern   *ModernOptions // nil: the legacy era (modern.go)
	listens  []*listen
	// the fewest listens open since the first (MinListens)
	minListens int
	anyListen  bool
	listenWake chan struct{} // closed at each change of listens
}

type conn struct {
	n    int
	ws   *websocket.Conn
	wmu  sync.Mutex // one writer at a time; a burst holds it throughout
	done chan struct{}
	once sync.Once
}

func (c *conn) close() {
	c.once.Do(func() {
		close(c.done)
		c.ws.CloseNow()
	})
}

// New starts a server on 127.0.0.1 offering caps (DefaultCaps when empty),
// answering lists in pages of pageSize items (everything in one page when
// pageSize <= 0).
func New(caps string, pageSize int) (*Server, error) {
	if caps == "" {
		caps = DefaultCaps
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{
		URL:      "ws://" + ln.Addr().String() + "/mcp",
		ln:       ln,
		caps:     json.RawMessage(caps),
		pageSize: pageSize,
		lists:    make(map[string][]json.RawMessage),
		counts:   make(map[string]int),
		inFlight: make(map[string]int),
		maxIn:    make(map[string]int),
		conns:    make(map[int]*conn),
	}
	s.hs = &http.Server{Handler: http.HandlerFunc(s.serveWS)}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.hs.Serve(ln)
	}()
	return s, nil
}

// Close drops every connection, stops listening and waits for every
// goroutine of the server.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.hs.Shutdown(ctx)
	s.DropConns()
	s.wg.Wait()
}

// DropConns closes every open connection at once; clients see a drop and
// reconnect to the same server.
func (s *Server) DropConns() {
	s.mu.Lock()
	cs := make([]*conn, 0, len(s.conns))
	for _, c := range s.conns {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
}

// Conns returns how many connections the server has accepted so far.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nconns
}

// SetCaps changes the capabilities sent to connections from now on.
func (s *Server) SetCaps(caps string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.caps = json.RawMessage(caps)
}

// SetVersion changes the version in the serverInfo sent from now on.
func (s *Server) SetVersion(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version = v
}

// serverVersion is the serverInfo's version. Called with s.mu held.
func (s *Server) serverVersion() string {
	if s.version == "" {
		return "1.0.0"
	}
	return s.version
}

// Set replaces the list of kind. It sends no notification.
func (s *Server) Set(kind string, items ...json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists[kind] = append([]json.RawMessage(nil), items...)
}

// Update changes the list of kind through fn, atomically. It sends no
// notification.
func (s *Server) Update(kind string, fn func([]json.RawMessage) []json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists[kind] = fn(append([]json.RawMessage(nil), s.lists[kind]...))
}

// List returns a copy of the list of kind.
func (s *Server) List(kind string) []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.lists[kind]...)
}

// Count returns how many requests of method the server has received.
func (s *Server) Count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[method]
}

// MaxInFlight returns the most requests of method that were ever
// unanswered at the same time.
func (s *Server) MaxInFlight(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxIn[method]
}

// Notify sends one notification to every open connection.
func (s *Server) Notify(method string, params any) { s.Burst(method, params, 1) }

// Burst sends n copies of a notification to every open connection,
// back-to-back: nothing else is written to a connection in between.
func (s *Server) Burst(method string, params any, n int) {
	if targets, modern := s.modernTargets(method, params); modern {
		for c, b := range targets {
			c.wmu.Lock()
			for i := 0; i < n; i++ {
				if c.write(b) != nil {
					break
				}
			}
			c.wmu.Unlock()
		}
		return
	}
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	s.mu.Lock()
	cs := make([]*conn, 0, len(s.conns))
	for _, c := range s.conns {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.wmu.Lock()
		for i := 0; i < n; i++ {
			if c.write(b) != nil {
				break
			}
		}
		c.wmu.Unlock()
	}
}

// write sends one text frame; the caller holds c.wmu.
func (c *conn) write(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, b)
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"mcp"}})
	if err != nil {
		return
	}
	ws.SetReadLimit(16 << 20)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ws.CloseNow()
		return
	}
	s.nconns++
	c := &conn{n: s.nconns, ws: ws, done: make(chan struct{})}
	s.conns[c.n] = c
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c.n)
		s.mu.Unlock()
		s.dropListens(c)
		c.close()
	}()
	for {
		_, data, err := ws.Read(context.Background())
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(data, &m) != nil || m.Method == "" {
			continue // a response, or junk: a client does not send those
		}
		s.mu.Lock()
		s.counts[m.Method]++
		s.mu.Unlock()
		if len(m.ID) == 0 {
			if m.Method == "notifications/cancelled" {
				s.cancelled(c, m.Params)
			}
			continue // a notification: counted, nothing to answer
		}
		req := &Request{Conn: c.n, ID: m.ID, Method: m.Method, Params: m.Params, Done: c.done}
		result, rerr := s.answer(req)
		s.mu.Lock()
		s.inFlight[m.Method]++
		s.maxIn[m.Method] = max(s.maxIn[m.Method], s.inFlight[m.Method])
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			var hookErr error
			if s.Hook != nil {
				hookErr = s.Hook(req)
			}
			// Out of flight before the answer leaves: the client may send
			// its next request (a next page) as soon as it has it.
			s.mu.Lock()
			s.inFlight[req.Method]--
			s.mu.Unlock()
			switch {
			case errors.Is(hookErr, ErrDrop):
				return
			case hookErr == nil && s.startListen(c, req):
				return // open until it ends (modern.go)
			case errors.Is(hookErr, ErrAnswerThenClose):
				defer c.close()
			case isRawError(hookErr):
				var e rpcError
				_ = json.Unmarshal([]byte(hookErr.(rawError)), &e)
				result, rerr = nil, &e
			case hookErr != nil:
				result, rerr = nil, &rpcError{Code: -32603, Message: hookErr.Error()}
			}
			resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
			if rerr != nil {
				resp["error"] = rerr
			} else {
				resp["result"] = result
			}
			b, _ := json.Marshal(resp)
			c.wmu.Lock()
			_ = c.write(b)
			c.wmu.Unlock()
		}()
	}
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// answer computes the built-in answer to a request.
func (s *Server) answer(r *Request) (any, *rpcError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if res, rerr, ok := s.modernAnswer(r); ok {
		return res, rerr
	}
	switch r.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(r.Params, &p)
		return map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    s.caps,
			"serverInfo":      map[string]any{"name": "scripted", "version": s.serverVersion()},
		}, nil
	case "ping", "resources/subscribe", "resources/unsubscribe", "logging/setLevel":
		return map[string]any{}, nil
	case "tools/call":
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}}, nil
	}
	kind, ok := listMethods[r.Method]
	if !ok {
		return nil, &rpcError{Code: -32601, Message: "method not found: " + r.Method}
	}
	items := s.lists[kind]
	start := 0
	if n, has, err := s.decodeCursor(r.Params); has {
		if err != nil || n < 0 || n > len(items) {
			return nil, &rpcError{Code: -32602, Message: "bad cursor " + strconv.Quote(r.Cursor())}
		}
		start = n
	}
	end := len(items)
	if s.pageSize > 0 && start+s.pageSize < end {
		end = start + s.pageSize
	}
	page := append([]json.RawMessage{}, items[start:end]...)
	res := map[string]any{kind: page}
	if end < len(items) {
		res["nextCursor"] = strconv.Itoa(end)
	}
	if s.modern != nil {
		s.modernPage(res, end, len(items))
	}
	return res, nil
}

// Tool returns a tool item named name; desc, when given, is its description
// (a different description makes a changed tool).
func Tool(name string, desc ...string) json.RawMessage {
	return item(map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}}, desc)
}

// Prompt returns a prompt item named name.
func Prompt(name string, desc ...string) json.RawMessage {
	return item(map[string]any{"name": name}, desc)
}

// Resource returns a resource item at uri.
func Resource(uri string, desc ...string) json.RawMessage {
	return item(map[string]any{"uri": uri, "name": uri}, desc)
}

// Template returns a resource template item with the given URI template.
func Template(uriTemplate string, desc ...string) json.RawMessage {
	return item(map[string]any{"uriTemplate": uriTemplate, "name": uriTemplate}, desc)
}

func item(m map[string]any, desc []string) json.RawMessage {
	if len(desc) > 0 {
		m["description"] = desc[0]
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprint("scripted: ", err))
	}
	return b
}

// Key returns an item's key: its uriTemplate, uri or name.
func Key(item json.RawMessage) string {
	var k struct {
		Name        string `json:"name"`
		URI         string `json:"uri"`
		URITemplate string `json:"uriTemplate"`
	}
	_ = json.Unmarshal(item, &k)
	switch {
	case k.URITemplate != "":
		return k.URITemplate
	case k.URI != "":
		return k.URI
	}
	return k.Name
}
