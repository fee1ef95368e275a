// Command server is the benchmark server of bench/run.mjs: one official go-sdk
// MCP server (github.com/modelcontextprotocol/go-sdk) served over WebSocket
// and Streamable HTTP (go-sdk's own handler) on the same /mcp, the static
// files of the benchmark pages, and an HTTP control API that changes the
// tool list while mcplive and the official TypeScript SDK clients watch it
// in headless Chromium.
//
// It listens on -addr (default 127.0.0.1:0) and prints one JSON line on
// stdout once it serves: {"url":"http://host:port","ws":"ws://host:port/mcp"}.
// It exits when its standard input closes (so a dying runner takes it along)
// or on SIGINT/SIGTERM.
//
// # Routes
//
//	/mcp?label=L&era=E  MCP over WebSocket (subprotocol "mcp") or, without an
//	                    Upgrade header, Streamable HTTP (http.go); L names the
//	                    connection for targeted notifications and counters;
//	                    era=2025-11-25 makes the server answer server/discover
//	                    as a 2025-11-25 server does (method not found), so that
//	                    a client that tries 2026-07-28 first falls back;
//	                    over HTTP era=2026-07-28 selects the go-sdk's
//	                    stateless handler, the one that speaks it (http.go)
//	/mcplive/…          the npm package mcplive (-js, the repo's js/ folder)
//	/mcplive-before/…   another build of it (-js-before, optional: bench/run.mjs
//	                    builds it from an older commit for before/after rows)
//	/pages/…            the benchmark pages (-pages)
//	/dist/…             the bundled TypeScript SDK client (-dist)
//
// Every static answer is "no-store" and cross-origin isolated (COOP + COEP),
// which gives the pages a 5 µs performance.now() instead of 100 µs.
//
// # Control API (POST, JSON body; answers JSON)
//
//	/control/set-tools  {"n"}                        replace the tool list by n tools t00000…
//	/control/add        {"name","remove"?,"target"?} add one tool (and remove another) → one list_changed
//	/control/burst      {"k","m","tag","target"?}    k changes back to back, change i sets the
//	                                                 description of t%05d(i mod m) to "tag-i";
//	                                                 then one list_changed per change, back to back
//	/control/reset      {"target"?}                  zero the tools/list counters
//	/control/counts     {"target"?}                  {"lists":N,"connections":C}
//
// Every answer also holds "tools": the size of the server's tool list.
//
// "target" is a connection label; without it every connection is notified
// (and counted).
//
// # One notification per change
//
// The go-sdk server debounces its own list_changed by 10 ms (changeAndNotify
// in its server.go): k back-to-back AddTool calls give one notification, and
// every single change reaches the clients 10 ms late. A benchmark of
// list_changed handling needs the opposite: exactly one notification per
// change, sent at once. So this server accepts each WebSocket itself
// (coder/websocket, subprotocol "mcp"), hands it to the go-sdk session
// through mcpws.Transport, and keeps the *websocket.Conn to write its own
// notifications/tools/list_changed frames right after each change
// (coder/websocket allows concurrent writes, so these frames interleave
// safely with the session's responses). The go-sdk's own, delayed
// tools/list_changed is dropped by a sending middleware, so each change
// gives exactly one notification.
//
// Over Streamable HTTP the same holds: the go-sdk's delayed notification is
// dropped, and each change is sent at once to every HTTP session (2025-11-25:
// on its GET event stream) and every subscriptions/listen stream
// (2026-07-28, stamped with its subscription id) through the go-sdk's own
// sending path (see http.go).
//
// tools/list requests are counted per connection label by a receiving
// middleware on the go-sdk server.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/mcplive/mcplive/internal/childserver"
	"github.com/mcplive/mcplive/mcpws"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	jsDir := flag.String("js", "js", "the npm package mcplive (served under /mcplive/)")
	jsBeforeDir := flag.String("js-before", "", "another build of the npm package (served under /mcplive-before/)")
	pagesDir := flag.String("pages", "bench/pages", "the benchmark pages (served under /pages/)")
	distDir := flag.String("dist", "bench/dist", "the bundled TypeScript SDK client (served under /dist/)")
	pageSize := flag.Int("page-size", 100, "tools per tools/list page")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("bench server: ")

	b := newBench(*pageSize)
	mux := http.NewServeMux()
	httpMCP := b.httpHandler()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			b.serveMCP(w, r)
			return
		}
		httpMCP.ServeHTTP(w, r)
	})
	mux.HandleFunc("POST /control/{op}", b.control)
	mux.Handle("/mcplive/", static("/mcplive/", *jsDir))
	if *jsBeforeDir != "" {
		mux.Handle("/mcplive-before/", static("/mcplive-before/", *jsBeforeDir))
	}
	mux.Handle("/pages/", static("/pages/", *pagesDir))
	mux.Handle("/dist/", static("/dist/", *distDir))

	childserver.Serve(*addr, mux, b.closeAll)
}

// static serves dir under prefix, uncached and cross-origin isolated.
func static(prefix, dir string) http.Handler {
	fs := http.StripPrefix(prefix, http.FileServer(http.Dir(dir)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Embedder-Policy", "require-corp")
		if strings.HasSuffix(r.URL.Path, ".mjs") {
			h.Set("Content-Type", "text/javascript; charset=utf-8")
		}
		fs.ServeHTTP(w, r)
	})
}

// listChanged is the frame written directly to a client's WebSocket after
// each change (see the package doc).
var listChanged = []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)

// bench is the server state: the go-sdk server, its connections and the
// tools/list counters.
type bench struct {
	srv *mcp.Server
	// send is the go-sdk's own sending handler, under the middleware that
	// drops its delayed list_changed: the direct HTTP notifications go
	// through it.
	send mcp.MethodHandler

	change sync.Mutex      // serializes control operations
	names  map[string]bool // the server's tool names, under change

	mu      sync.Mutex
	conns   map[*wsConn]struct{}
	wsEra   map[string]string             // WebSocket session id → era query parameter
	http    map[*mcp.ServerSession]string // 2025-11-25 HTTP session → label
	listens map[*mcp.ServerSession]*listen
	lists   map[string]int // connection label → tools/list requests
	seq     int
}

// wsConn is one accepted WebSocket, kept for direct notification frames.
type wsConn struct {
	label string
	ws    *websocket.Conn
}

func newBench(pageSize int) *bench {
	b := &bench{
		names:   map[string]bool{},
		conns:   map[*wsConn]struct{}{},
		wsEra:   map[string]string{},
		http:    map[*mcp.ServerSession]string{},
		listens: map[*mcp.ServerSession]*listen{},
		lists:   map[string]int{},
	}
	b.srv = mcp.NewServer(&mcp.Implementation{Name: "mcplive-bench", Version: "1.0.0"}, &mcp.ServerOptions{
		PageSize:     pageSize,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	b.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			label, era := b.labelOf(req)
			switch method {
			case "tools/list":
				b.countList(label)
			case "server/discover":
				if era == legacyEra {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: server/discover"}
				}
			case "initialize":
				b.addHTTPSession(req, label)
			case "subscriptions/listen":
				defer b.addListen(req, label)()
			}
			return next(ctx, method, req)
		}
	})
	b.srv.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		b.send = next
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "notifications/tools/list_changed":
				return nil, nil // sent directly, once per change: see the package doc
			case "notifications/subscriptions/acknowledged":
				b.acknowledged(req)
			}
			return next(ctx, method, req)
		}
	})
	return b
}

// serveMCP accepts the WebSocket itself (instead of mcpws.Handler) to keep
// the *websocket.Conn for direct notification frames.
func (b *bench) serveMCP(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{mcpws.Subprotocol}})
	if err != nil {
		return // Accept has answered the request
	}
	label := queryLabel(r)
	b.mu.Lock()
	b.seq++
	id := fmt.Sprintf("%s#%d", label, b.seq)
	c := &wsConn{label: label, ws: ws}
	b.conns[c] = struct{}{}
	b.wsEra[id] = r.URL.Query().Get("era")
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.conns, c)
		delete(b.wsEra, id)
		b.mu.Unlock()
	}()

	// The session ID carries the label, so the receiving middleware can
	// count per label.
	t := &mcpws.Transport{Conn: ws, SessionID: id}
	ss, err := b.srv.Connect(r.Context(), t, nil)
	if err != nil {
		ws.Close(mcpws.StatusInternalError, "could not start the MCP session")
		return
	}
	ss.Wait()
}

// queryLabel is the connection label of an MCP request (its URL's label).
func queryLabel(r *http.Request) string {
	if l := r.URL.Query().Get("label"); l != "" {
		return l
	}
	return "anon"
}

// legacyEra is the era query parameter that refuses 2026-07-28;
// modernEra selects the go-sdk's stateless HTTP handler (http.go).
const (
	legacyEra = "2025-11-25"
	modernEra = "2026-07-28"
)

// labelOf returns the label and era of the connection a request came on:
// from the headers that httpHandler sets (HTTP), or from the session id
// (WebSocket).
func (b *bench) labelOf(req mcp.Request) (label, era string) {
	if x := req.GetExtra(); x != nil && x.Header != nil && x.Header.Get(labelHeader) != "" {
		return x.Header.Get(labelHeader), x.Header.Get(eraHeader)
	}
	id := req.GetSession().ID()
	label, _, _ = strings.Cut(id, "#")
	b.mu.Lock()
	era = b.wsEra[id]
	b.mu.Unlock()
	return label, era
}

func (b *bench) countList(label string) {
	b.mu.Lock()
	b.lists[label]++
	b.mu.Unlock()
}

// notify sends one tools/list_changed to every connection with the label
// target (every connection when target is empty): a frame written directly
// to each WebSocket, and the go-sdk's own notification to each HTTP session
// and listen stream (http.go).
func (b *bench) notify(ctx context.Context, target string) {
	b.mu.Lock()
	var to []*websocket.Conn
	for c := range b.conns {
		if target == "" || c.label == target {
			to = append(to, c.ws)
		}
	}
	b.mu.Unlock()
	for _, ws := range to {
		_ = ws.Write(ctx, websocket.MessageText, listChanged) // a closed connection just misses it
	}
	b.notifyHTTP(ctx, target)
}

func (b *bench) closeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for c := range b.conns {
		c.ws.Close(websocket.StatusNormalClosure, "bench server shutting down")
	}
}

// toolName is the name of the i-th tool of set-tools; burst changes
// these tools.
func toolName(i int) string { return fmt.Sprintf("t%05d", i) }

// inputSchema is the same small object schema for every tool: a list of
// realistic size per item (~300 bytes of JSON).
var inputSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What to look for"},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query"]}`)

func noop(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
}

// control runs one control operation; see the package doc.
func (b *bench) control(w http.ResponseWriter, r *http.Request) {
	var req struct {
		N      int    `json:"n"`
		Name   string `json:"name"`
		Remove string `json:"remove"`
		K      int    `json:"k"`
		M      int    `json:"m"`
		Tag    string `json:"tag"`
		Target string `json:"target"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil && !errors.Is(err, io.EOF) {
		http.Error(w, "bad JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	b.change.Lock()
	defer b.change.Unlock()
	res := map[string]any{"ok": true}
	switch op := r.PathValue("op"); op {
	case "set-tools":
		b.setTools(req.N)
	case "add":
		if req.Name == "" {
			http.Error(w, "add: name missing", http.StatusBadRequest)
			return
		}
		b.addTool(req.Name, "Added by the benchmark.")
		if req.Remove != "" {
			b.srv.RemoveTools(req.Remove)
			delete(b.names, req.Remove)
		}
		b.notify(ctx, req.Target)
	case "burst":
		if req.M <= 0 || req.K <= 0 {
			http.Error(w, "burst: k and m must be positive", http.StatusBadRequest)
			return
		}
		// All changes first, then one notification per change back to
		// back: what a client sees from a server that changes its tools
		// in a synchronous loop (the TypeScript SDK's McpServer.registerTool
		// called 1000 times: each call queues its notification, which
		// reach the socket only after the loop). go-sdk's AddTool takes
		// ~40 µs here, so interleaving would spread the burst over the
		// server's own speed instead.
		start := time.Now()
		for i := range req.K {
			b.addTool(toolName(i%req.M), fmt.Sprintf("%s-%d", req.Tag, i))
		}
		res["changeMs"] = ms(time.Since(start))
		start = time.Now()
		for range req.K {
			b.notify(ctx, req.Target)
		}
		res["notifyMs"] = ms(time.Since(start))
	case "reset":
		b.mu.Lock()
		for label := range b.lists {
			if req.Target == "" || label == req.Target {
				delete(b.lists, label)
			}
		}
		b.mu.Unlock()
	case "counts":
		b.mu.Lock()
		n, conns := 0, 0
		for label, c := range b.lists {
			if req.Target == "" || label == req.Target {
				n += c
			}
		}
		for c := range b.conns {
			if req.Target == "" || c.label == req.Target {
				conns++
			}
		}
		b.mu.Unlock()
		conns += b.countHTTP(req.Target)
		res["lists"], res["connections"] = n, conns
	default:
		http.Error(w, "unknown control operation "+op, http.StatusNotFound)
		return
	}
	res["tools"] = len(b.names)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(res)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// setTools replaces the whole tool list by n tools t00000…, with no
// notification (the clients under test are told of the next change).
func (b *bench) setTools(n int) {
	old := make([]string, 0, len(b.names))
	for name := range b.names {
		old = append(old, name)
	}
	b.srv.RemoveTools(old...)
	clear(b.names)
	for i := range n {
		b.addTool(toolName(i), fmt.Sprintf("Benchmark tool number %d: looks things up.", i))
	}
}

// addTool adds or replaces a tool; the caller holds b.change.
func (b *bench) addTool(name, description string) {
	b.srv.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: inputSchema}, noop)
	b.names[name] = true
}
