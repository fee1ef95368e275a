package mcplive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/mcplive/mcplive"
)

// A hostile server: raw coder/websocket on 127.0.0.1. It answers
// initialize as told, then hands the connection to the test, which reads
// what the client sends and writes whatever it likes, step by step.

type hostileOpts struct {
	// Version and Caps make the default initialize result ("2025-11-25",
	// "{}" when empty).
	Version, Caps string
	// InitReply, when set, returns the whole answer to initialize.
	InitReply func(id json.RawMessage) string
}

type hostile struct {
	URL   string
	conns chan *hconn // connections past initialize + initialized
	after chan string // per connection: what followed the initialize answer
	inits chan hmsg   // the initialize requests received
	proto chan string // the subprotocol of each connection
	stop  chan struct{}

	mu  sync.Mutex
	all []*websocket.Conn
}

// hmsg is any JSON-RPC message, as the hostile server reads it.
type hmsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func startHostile(t testing.TB, o hostileOpts) *hostile {
	t.Helper()
	if o.Version == "" {
		o.Version = mcplive.ProtocolVersion
	}
	if o.Caps == "" {
		o.Caps = "{}"
	}
	if o.InitReply == nil {
		o.InitReply = func(id json.RawMessage) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":%s,"serverInfo":{"name":"hostile","version":"6.6.6"}}}`, id, o.Version, o.Caps)
		}
	}
	h := &hostile{
		conns: make(chan *hconn, 8),
		after: make(chan string, 8),
		inits: make(chan hmsg, 8),
		proto: make(chan string, 8),
		stop:  make(chan struct{}),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"mcp"}})
		if err != nil {
			return
		}
		ws.SetReadLimit(-1)
		h.mu.Lock()
		h.all = append(h.all, ws)
		h.mu.Unlock()
		h.proto <- ws.Subprotocol()
		c := &hconn{ws: ws}
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		init, err := c.readMsg(ctx)
		if err != nil || init.Method != "initialize" {
			h.after <- fmt.Sprintf("bad initialize: %v %+v", err, init)
			ws.CloseNow()
			return
		}
		h.inits <- init
		if ws.Write(ctx, websocket.MessageText, []byte(o.InitReply(init.ID))) != nil {
			return
		}
		next, err := c.readMsg(ctx)
		switch {
		case err != nil:
			h.after <- fmt.Sprintf("closed %d", websocket.CloseStatus(err))
			return
		case next.Method != "notifications/initialized":
			h.after <- "unexpected " + next.Method
			return
		}
		h.after <- next.Method
		h.conns <- c
		<-h.stop // the test owns the connection now
	}))
	h.URL = "ws" + strings.TrimPrefix(srv.URL, "http")
	t.Cleanup(func() {
		h.mu.Lock()
		for _, ws := range h.all {
			ws.CloseNow()
		}
		h.mu.Unlock()
		close(h.stop)
		srv.Close()
	})
	return h
}

// conn returns the next connection that completed initialize.
func (h *hostile) conn(t testing.TB) *hconn {
	t.Helper()
	c := recv(t, h.conns, "a connection to the hostile server")
	c.t = t
	// When the test ends, keep reading so that the client's close
	// handshake completes at once. This cleanup runs before those
	// registered earlier, such as the client's Close.
	t.Cleanup(func() { c.ws.CloseRead(context.Background()) })
	return c
}

// hconn is one connection of the hostile server, driven by the test.
type hconn struct {
	t  testing.TB
	ws *websocket.Conn
}

func (c *hconn) readMsg(ctx context.Context) (hmsg, error) {
	typ, data, err := c.ws.Read(ctx)
	if err != nil {
		return hmsg{}, err
	}
	var m hmsg
	if typ != websocket.MessageText {
		return m, errors.New("client sent a binary frame")
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("client sent %q: %v", data, err)
	}
	if m.JSONRPC != "2.0" {
		return m, fmt.Errorf("client sent %q without jsonrpc 2.0", data)
	}
	return m, nil
}

// read returns the client's next message.
func (c *hconn) read() hmsg {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	m, err := c.readMsg(ctx)
	if err != nil {
		c.t.Fatalf("hostile server: read: %v", err)
	}
	return m
}

// expect reads the client's next message and checks its method.
func (c *hconn) expect(method string) hmsg {
	c.t.Helper()
	m := c.read()
	if m.Method != method {
		c.t.Fatalf("hostile server: got %q (id %s), want %q", m.Method, m.ID, method)
	}
	return m
}

// send writes one text frame.
func (c *hconn) send(s string) {
	c.t.Helper()
	c.write(websocket.MessageText, s)
}

func (c *hconn) write(typ websocket.MessageType, s string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := c.ws.Write(ctx, typ, []byte(s)); err != nil {
		c.t.Fatalf("hostile server: write: %v", err)
	}
}

// reply answers request m with a raw JSON result.
func (c *hconn) reply(m hmsg, result string) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result))
}

// closeCode reads until the client closes and returns the close code it
// sent (-1 when it dropped the connection without a close frame).
func (c *hconn) closeCode() websocket.StatusCode {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for {
		_, _, err := c.ws.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				c.t.Fatal("hostile server: the client did not close the connection")
			}
			return websocket.CloseStatus(err)
		}
	}
}

// browserSafe reports a close code that browsers let a page use.
func browserSafe(code websocket.StatusCode) bool {
	return code == websocket.StatusNormalClosure || (code >= 4000 && code <= 4999)
}

// logBuf collects what the client logs.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuf) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// async runs fn on its own goroutine and delivers its error.
func async(fn func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- fn() }()
	return ch
}

// hostileSession opens a Session on h, returning it and the server's side.
func hostileSession(t testing.TB, h *hostile, readLimit int64, opts *mcplive.Options) (*mcplive.Session, *hconn) {
	t.Helper()
	s, err := mcplive.NewSession(testCtx(t), &mcplive.WebSocketTransport{URL: h.URL, ReadLimit: readLimit}, eraOptions(opts))
	assertNoErr(t, err, "NewSession")
	t.Cleanup(func() { s.Close() })
	return s, h.conn(t)
}

// pingWorks checks that the connection still carries requests.
func pingWorks(t testing.TB, s *mcplive.Session, c *hconn) {
	t.Helper()
	done := async(func() error { return s.Ping(testCtx(t)) })
	c.reply(c.expect("ping"), "{}")
	assertNoErr(t, recv(t, done, "Ping"), "Ping on the surviving connection")
}

func TestHostileInitialize(t *testing.T) {
	t.Parallel()
	onlyIn(t, "legacy")
	h := startHostile(t, hostileOpts{Caps: `{"tools":{}}`})
	s, _ := hostileSession(t, h, 0, &mcplive.Options{ClientInfo: mcplive.Implementation{Name: "probe", Version: "1"}})
	assertEqual(t, recv(t, h.proto, "subprotocol"), "mcp", "subprotocol")
	init := recv(t, h.inits, "initialize")
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      struct{ Name, Version string }
	}
	assertNoErr(t, json.Unmarshal(init.Params, &p), "initialize params")
	assertEqual(t, p.ProtocolVersion, "2025-11-25", "protocolVersion")
	assertEqual(t, p.ClientInfo.Name, "probe", "clientInfo.name")
	if !json.Valid(p.Capabilities) || p.Capabilities[0] != '{' {
		t.Errorf("capabilities = %s", p.Capabilities)
	}
	var id int64
	if err := json.Unmarshal(init.ID, &id); err != nil {
		t.Errorf("initialize id %s is not an integer", init.ID)
	}
	assertEqual(t, recv(t, h.after, "after initialize"), "notifications/initialized", "after initialize")
	assertEqual(t, s.InitializeResult().ServerInfo.Name, "hostile", "server name")
}

// The client accepts 2025-06-18 and 2025-03-26 answers and refuses any
// other version with an error naming both, closing the connection.
func TestHostileVersions(t *testing.T) {
	t.Parallel()
	onlyIn(t, "legacy")
	for _, v := range []string{"2025-06-18", "2025-03-26"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			h := startHostile(t, hostileOpts{Version: v, Caps: `{"tools":{}}`})
			s, c := hostileSession(t, h, 0, nil)
			assertEqual(t, s.InitializeResult().ProtocolVersion, v, "negotiated version")
			pingWorks(t, s, c)
		})
	}
	for _, tc := range []struct {
		name  string
		reply string
		errs  []error
		texts []string
	}{
		{"unknown", `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2099-01-01","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`,
			errs(mcplive.ErrProtocol), []string{`"2099-01-01"`, `"2025-11-25"`}},
		{"missing", `{"jsonrpc":"2.0","id":%s,"result":{"capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`,
			errs(mcplive.ErrProtocol), []string{`""`, `"2025-11-25"`}},
		{"not-an-object", `{"jsonrpc":"2.0","id":%s,"result":[1,2]}`,
			errs(mcplive.ErrProtocol), []string{"initialize", "bad initialize result"}},
		{"error", `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unsupported protocol version"}}`,
			nil, []string{"initialize", "unsupported protocol version"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := startHostile(t, hostileOpts{InitReply: func(id json.RawMessage) string { return fmt.Sprintf(tc.reply, id) }})
			s, err := mcplive.NewSession(testCtx(t), &mcplive.WebSocketTransport{URL: h.URL}, eraOptions(nil))
			assertErr(t, err, tc.errs, tc.texts...)
			if s != nil {
				t.Error("NewSession returned a session with its error")
			}
			if tc.name == "error" {
				var re *mcplive.RPCError
				if !errors.As(err, &re) || re.Code != mcplive.CodeInvalidParams {
					t.Errorf("error %v is not the server's RPCError", err)
				}
			}
			// No notifications/initialized: the client closes instead.
			after := recv(t, h.after, "after initialize")
			if !strings.HasPrefix(after, "closed ") {
				t.Fatalf("after a refused initialize the server saw %q, want a close", after)
			}
			var code websocket.StatusCode
			fmt.Sscanf(after, "closed %d", &code)
			if !browserSafe(code) {
				t.Errorf("close code %d", code)
			}
		})
	}
}

// Messages that are not one JSON-RPC message never end the connection
// (issue 31): one whose id names a request in flight fails that request at
// once with an error wrapping ErrProtocol that quotes it; one that cannot
// be told from any request is reported to the logger and skipped, and the
// request in flight still gets its answer. A binary frame is no MCP
// message at all: it ends the connection.
func TestHostileMalformed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		msg  string // %[1]s is the pending ping's id
		text string
		// fails: the message names the ping: it fails; otherwise it is
		// skipped and logged.
		fails bool
	}{
		{"non-JSON", "hello, I am not JSON", "not a JSON object", false},
		{"truncated", `{"jsonrpc":"2.0","id":%[1]s,"result":`, "not valid JSON-RPC", true},
		{"no-jsonrpc", `{"id":%[1]s,"result":{}}`, `"jsonrpc": "2.0"`, true},
		{"jsonrpc-1.0", `{"jsonrpc":"1.0","id":%[1]s,"result":{}}`, `"jsonrpc": "2.0"`, true},
		{"bom", "\xEF\xBB\xBF" + `{"jsonrpc":"2.0","id":%[1]s,"result":{}}`, "not a JSON object", true},
		{"empty", "", "empty message", false},
		{"batch", `[{"jsonrpc":"2.0","id":%[1]s,"result":{}}]`, "batch", false},
		{"method-and-result", `{"jsonrpc":"2.0","id":%[1]s,"method":"x","result":{}}`, "both a method and a result", true},
		{"result-and-error", `{"jsonrpc":"2.0","id":%[1]s,"result":{},"error":{"code":1,"message":"x"}}`, "both a result and an error", true},
		{"result-without-id", `{"jsonrpc":"2.0","result":{}}`, "without an id", false},
		{"nothing", `{"jsonrpc":"2.0"}`, "neither a request", false},
		{"bool-id", `{"jsonrpc":"2.0","id":true,"result":{}}`, "id must be a string, a number or null", false},
		{"object-id-request", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "id must be", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := startHostile(t, hostileOpts{})
			var logs logBuf
			s, c := hostileSession(t, h, 0, &mcplive.Options{Logger: logs.logger()})
			done := async(func() error { return s.Ping(testCtx(t)) })
			m := c.expect("ping")
			msg := tc.msg
			if strings.Contains(msg, "%[1]s") {
				msg = fmt.Sprintf(msg, m.ID)
			}
			c.send(msg)
			if tc.fails {
				assertErr(t, recv(t, done, "Ping to fail"), errs(mcplive.ErrProtocol), "ping", tc.text)
			} else {
				waitFor(t, "the bad message in the log", func() bool { return strings.Contains(logs.String(), "skipped a message") })
				if !strings.Contains(logs.String(), tc.text) {
					t.Errorf("log %q does not say %q", logs.String(), tc.text)
				}
				c.reply(m, "{}")
				assertNoErr(t, recv(t, done, "Ping"), "Ping after a skipped message")
			}
			select {
			case <-s.Done():
				t.Fatalf("the session ended: %v", s.Err())
			default:
			}
			pingWorks(t, s, c)
		})
	}
	t.Run("binary", func(t *testing.T) {
		t.Parallel()
		h := startHostile(t, hostileOpts{})
		s, c := hostileSession(t, h, 0, nil)
		done := async(func() error { return s.Ping(testCtx(t)) })
		c.expect("ping")
		c.write(websocket.MessageBinary, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		assertErr(t, recv(t, done, "Ping to fail"), errs(mcplive.ErrClosed, mcplive.ErrProtocol), "ping", "binary frame")
		recv(t, s.Done(), "Done")
		if code := c.closeCode(); !browserSafe(code) {
			t.Errorf("the client closed with code %d", code)
		}
	})
}

// A response whose envelope is sound but whose result is not valid JSON
// fails its own request with an error wrapping ErrProtocol; the connection
// carries on (its id says which request it answered). A list page is
// validated where the walk reads it: the same holds for a page with an
// invalid member or item.
func TestHostileInvalidResult(t *testing.T) {
	t.Parallel()
	h := startHostile(t, hostileOpts{Caps: `{"tools":{}}`})
	s, c := hostileSession(t, h, 0, nil)
	for _, result := range []string{`{"a":tru}`, `{"a":"\u00zz"}`, "{\"a\":\"\x01\"}", `{"a":[1,]}`, `{"a":01}`} {
		done := async(func() error { return s.Ping(testCtx(t)) })
		c.reply(c.expect("ping"), result)
		assertErr(t, recv(t, done, "Ping to fail"), errs(mcplive.ErrProtocol), "ping", "not valid JSON")
		pingWorks(t, s, c)
	}
	for _, page := range []string{
		`{"tools":[{"name":"a",}]}`,
		`{"tools":[{"name":"a","inputSchema":{"type":"object"}} {"name":"b"}]}`,
		`{"tools":[{"name":"a"}},"x":1}`,
		`{"tools":[{"name":"a"}],"nextCursor":"\u12"}`,
		`{"tools":[{"name":"a"}],"ttlMs":tru}`,
		`{"tools":[{"name":"a"}],"tools":[{"name":"b"}]}`,
	} {
		for _, raw := range []bool{false, true} {
			done := async(func() error {
				if raw {
					_, err := mcplive.ListRaw(testCtx(t), s, mcplive.KindTools)
					return err
				}
				_, err := s.ListTools(testCtx(t))
				return err
			})
			c.reply(c.expect("tools/list"), page)
			assertErr(t, recv(t, done, "tools/list to fail"), errs(mcplive.ErrProtocol), "tools/list")
			pingWorks(t, s, c)
		}
	}
}

// A message over the read limit ends the connection with a clear error,
// and the client closes with a code browsers accept too (4009).
func TestHostileReadLimit(t *testing.T) {
	t.Parallel()
	h := startHostile(t, hostileOpts{})
	s, c := hostileSession(t, h, 1024, nil)
	pingWorks(t, s, c) // a small message passes
	done := async(func() error { return s.Ping(testCtx(t)) })
	m := c.expect("ping")
	c.reply(m, fmt.Sprintf(`{"pad":%q}`, strings.Repeat("x", 4096)))
	err := recv(t, done, "Ping to fail")
	assertErr(t, err, errs(mcplive.ErrClosed, mcplive.ErrProtocol), "read limit", "1024")
	assertErr(t, s.Err(), errs(mcplive.ErrProtocol), "read limit")
	if code := c.closeCode(); !browserSafe(code) {
		t.Errorf("the client closed with code %d, want 1000 or 4000–4999", code)
	}
}

// Options.ReadLimit applies to a Session's WebSocketTransport that sets no
// limit of its own.
func TestHostileReadLimitOption(t *testing.T) {
	t.Parallel()
	h := startHostile(t, hostileOpts{})
	s, c := hostileSession(t, h, 0, &mcplive.Options{ReadLimit: 1024})
	done := async(func() error { return s.Ping(testCtx(t)) })
	c.reply(c.expect("ping"), fmt.Sprintf(`{"pad":%q}`, strings.Repeat("x", 4096)))
	assertErr(t, recv(t, done, "Ping to fail"), errs(mcplive.ErrClosed, mcplive.ErrProtocol), "read limit", "1024")
	assertEqual(t, c.closeCode(), websocket.StatusCode(4009), "close code")
}

// Options.ReadLimit reaches the Client's WebSocket; after the violation the
// client reconnects and works again.
func TestHostileReadLimitClient(t *testing.T) {
	t.Parallel()
	h := startHostile(t, hostileOpts{})
	c, err := mcplive.Connect(testCtx(t), h.URL, eraOptions(&mcplive.Options{
		ReadLimit: 1024, HeartbeatInterval: -1,
		Reconnect: mcplive.ReconnectOptions{InitialDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond},
	}))
	assertNoErr(t, err, "Connect")
	t.Cleanup(func() { c.Close() })
	sc := h.conn(t)
	done := async(func() error { return c.Ping(testCtx(t)) })
	sc.reply(sc.expect("ping"), fmt.Sprintf(`{"pad":%q}`, strings.Repeat("x", 4096)))
	assertErr(t, recv(t, done, "Ping to fail"), errs(mcplive.ErrClosed, mcplive.ErrProtocol), "read limit")
	if code := sc.closeCode(); !browserSafe(code) {
		t.Errorf("the client closed with code %d, want 1000 or 4000–4999", code)
	}
	sc2 := h.conn(t) // the reconnect
	done = async(func() error { return c.Ping(testCtx(t)) })
	sc2.reply(sc2.expect("ping"), "{}")
	assertNoErr(t, recv(t, done, "Ping after the reconnect"), "Ping")
}

// Responses nobody waits for are dropped and logged; the connection and
// the request they did not answer carry on.
func TestHostileStrayResponses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		send func(ping hmsg) []string // sent before the real answer
		log  string
	}{
		{"unknown-id", func(hmsg) []string { return []string{`{"jsonrpc":"2.0","id":987654,"result":{}}`} }, "unknown"},
		{"string-id", func(hmsg) []string { return []string{`{"jsonrpc":"2.0","id":"abc","result":{}}`} }, "non-integer id"},
		{"error-null-id", func(hmsg) []string {
			return []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`}
		}, "without a request id"},
		{"error-no-id", func(hmsg) []string {
			return []string{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}`}
		}, "without a request id"},
		{"unknown-notification", func(hmsg) []string {
			return []string{`{"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":1}}`}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := startHostile(t, hostileOpts{})
			var logs logBuf
			s, c := hostileSession(t, h, 0, &mcplive.Options{Logger: logs.logger()})
			done := async(func() error { return s.Ping(testCtx(t)) })
			m := c.expect("ping")
			for _, msg := range tc.send(m) {
				c.send(msg)
			}
			c.reply(m, "{}")
			assertNoErr(t, recv(t, done, "Ping"), "Ping answered after a stray message")
			if !strings.Contains(logs.String(), tc.log) {
				t.Errorf("log does not mention %q:\n%s", tc.log, logs.String())
			}
			pingWorks(t, s, c)
		})
	}
}

// A duplicate response: the first answers the call, the second is dropped.
func TestHostileDuplicateResponse(t *testing.T) {
	t.Parallel()
	h := startHostile(t, hostileOpts{Caps: `{"tools":{}}`})
	var logs logBuf
	s, c := hostileSession(t, h, 0, &mcplive.Options{Logger: logs.logger()})
	done := make(chan []mcplive.Tool, 1)
	go func() {
		tools, _ := s.ListTools(testCtx(t))
		done <- tools
	}()
	m := c.expect("tools/list")
	c.reply(m, `{"tools":[{"name":"first","inputSchema":{"type":"object"}}]}`)
	c.reply(m, `{"tools":[{"name":"second","inputSchema":{"type":"object"}}]}`)
	assertEqual(t, keys(recv(t, done, "ListTools")), []string{"first"}, "tools")
	pingWorks(t, s, c) // the duplicate was read (and dropped) before this answer
	if !strings.Contains(logs.String(), "dropped a response") {
		t.Errorf("log does not mention the dropped duplicate:\n%s", logs.String())
	}
}

// Pagination that would never end is cut off with ErrProtocol; nothing
// more is requested and the connection carries on.
func TestHostileCursor(t *testing.T) {
	t.Parallel()
	tool := func(name string) string { return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, name) }
	cursorOf := func(m hmsg) string {
		var p struct{ Cursor *string }
		_ = json.Unmarshal(m.Params, &p)
		if p.Cursor == nil {
			return ""
		}
		return *p.Cursor
	}
	t.Run("repeated", func(t *testing.T) {
		t.Parallel()
		h := startHostile(t, hostileOpts{Caps: `{"tools":{}}`})
		s, c := hostileSession(t, h, 0, nil)
		done := async(func() error { _, err := s.ListTools(testCtx(t)); return err })
		m := c.expect("tools/list")
		assertEqual(t, cursorOf(m), "", "first cursor")
		c.reply(m, `{"tools":[`+tool("a")+`],"nextCursor":"c1"}`)
		m = c.expect("tools/list")
		assertEqual(t, cursorOf(m), "c1", "second cursor")
		c.reply(m, `{"tools":[`+tool("b")+`],"nextCursor":"c1"}`)
		assertErr(t, recv(t, done, "ListTools"), errs(mcplive.ErrProtocol), "tools/list", `"c1"`, "repeated")
		pingWorks(t, s, c) // the next message is the ping: no third page was asked for
	})
	t.Run("max-pages", func(t *testing.T) {
		t.Parallel()
		h := startHostile(t, hostileOpts{Caps: `{"prompts":{}}`})
		s, c := hostileSession(t, h, 0, &mcplive.Options{MaxPages: 3})
		done := async(func() error { _, err := s.ListPrompts(testCtx(t)); return err })
		for i := 1; i <= 3; i++ {
			m := c.expect("prompts/list")
			c.reply(m, fmt.Sprintf(`{"prompts":[{"name":"p%d"}],"nextCursor":"c%d"}`, i, i))
		}
		assertErr(t, recv(t, done, "ListPrompts"), errs(mcplive.ErrProtocol), "prompts/list", "more than 3 pages")
		pingWorks(t, s, c)
	})
	t.Run("empty-cursor-ends", func(t *testing.T) {
		t.Parallel()
		h := startHostile(t, hostileOpts{Caps: `{"tools":{}}`})
		s, c := hostileSession(t, h, 0, nil)
		got := make(chan []mcplive.Tool, 1)
		go func() { tools, _ := s.ListTools(testCtx(t)); got <- tools }()
		c.reply(c.expect("tools/list"), `{"tools":[`+tool("a")+`],"nextCursor":""}`)
		assertEqual(t, keys(recv(t, got, "ListTools")), []string{"a"}, "tools")
	})
	t.Run("item-without-name", func(t *testing.T) {
		t.Parallel()
		h := startHostile(t, hostileOpts{Caps: `{"tools":{}}`})
		s, c := hostileSession(t, h, 0, nil)
		done := async(func() error { _, err := s.ListTools(testCtx(t)); return err })
		c.reply(c.expect("tools/list"), `{"tools":[{"description":"nameless"}]}`)
		assertErr(t, recv(t, done, "ListTools"), errs(mcplive.ErrProtocol), "tools/list", "no name")
		pingWorks(t, s, c)
	})
}

// Silence: the request times out with ErrTimeout, the server is sent
// notifications/cancelled for it, a late answer is dropped, and the
// connection carries on.
func TestHostileSilence(t *testing.T) {
	t.Parallel()
	h := startHostile(t, hostileOpts{})
	const timeout = time.Second
	var logs logBuf
	s, c := hostileSession(t, h, 0, &mcplive.Options{RequestTimeout: timeout, Logger: logs.logger()})
	done := async(func() error { return s.Ping(context.Background()) })
	m := c.expect("ping")
	assertErr(t, recv(t, done, "Ping to time out"), errs(mcplive.ErrTimeout), "ping", "1s")
	n := c.expect("notifications/cancelled")
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	assertNoErr(t, json.Unmarshal(n.Params, &p), "cancelled params")
	assertEqual(t, string(p.RequestID), string(m.ID), "cancelled requestId")
	if p.Reason == "" {
		t.Error("notifications/cancelled without a reason")
	}
	c.reply(m, "{}") // too late
	pingWorks(t, s, c)
	if !strings.Contains(logs.String(), "dropped a response") {
		t.Errorf("the late answer was not logged as dropped:\n%s", logs.String())
	}
}

// Server→client requests: ping is answered with {}, anything else with
// -32601; both keep the request's id, byte for byte (no \u0026 for &).
func TestHostileServerRequests(t *testing.T) {
	t.Parallel()
	h := startHostile(t, hostileOpts{})
	s, c := hostileSession(t, h, 0, nil)
	for _, id := range []string{`"s-1"`, `7`, `"<a&b>"`} {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		m := c.read()
		assertEqual(t, string(m.ID), id, "ping answer id")
		assertEqual(t, string(m.Result), "{}", "ping answer")
		if m.Error != nil || m.Method != "" {
			t.Errorf("ping answer %+v", m)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":"8&","method":"sampling/createMessage","params":{"messages":[]}}`)
	m := c.read()
	assertEqual(t, string(m.ID), `"8&"`, "error answer id")
	if m.Error == nil || m.Error.Code != -32601 || !strings.Contains(m.Error.Message, "sampling/createMessage") || m.Result != nil {
		t.Errorf("answer to an unknown request: %+v", m)
	}
	pingWorks(t, s, c)
}

// Close fails a call in flight with ErrClosed without waiting for a peer
// that neither answers nor completes the close handshake.
func TestHostileCloseInFlight(t *testing.T) {
	t.Parallel()
	h := startHostile(t, hostileOpts{})
	s, c := hostileSession(t, h, 0, nil)
	done := async(func() error { return s.Ping(context.Background()) })
	c.expect("ping")
	closed := async(s.Close)
	// The server reads nothing more until the call has failed: the call
	// must not wait for the close handshake.
	assertErr(t, recv(t, done, "Ping to fail"), errs(mcplive.ErrClosed), "closed by the client")
	assertEqual(t, c.closeCode(), websocket.StatusNormalClosure, "close code")
	assertNoErr(t, recv(t, closed, "Close to return"), "Close")
}
