// Package hostilehttp is a Streamable HTTP server for tests whose answers
// the test scripts, step by step: it answers initialize, notifications and
// DELETE on its own and hands every other request to the test, which
// writes whatever it likes (a wrong content type, an endless event, one
// byte at a time, a redirect, a 404 for the session…).
package hostilehttp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// WaitLimit bounds every wait for one thing that must happen: a hang
// detector, never a speed budget, long enough for a machine loaded far
// beyond its cores.
const WaitLimit = time.Minute

// Options configure New.
type Options struct {
	// SessionID is assigned with the answer to initialize ("" assigns
	// none). Version and Caps make the initialize result (defaults
	// "2025-11-25" and "{}").
	SessionID, Version, Caps string
	// InitStatus, when set, answers initialize (and server/discover)
	// with this status and InitBody (InitType its Content-Type) instead.
	InitStatus int
	InitBody   string
	InitType   string
	// GET hands GET requests to the test; otherwise they get 405.
	GET bool
	// Modern hands server/discover to the test; otherwise it is answered
	// as a server of 2025-11-25 does (400 without a session id, or
	// method not found).
	Modern bool
	// Handle, when set, sees every request first, on the server's
	// goroutine; it returns true when it answered the request.
	Handle func(r *Request) bool
}

// Server is the hostile server.
type Server struct {
	URL string

	t    testing.TB
	o    Options
	reqs chan *Request
	stop chan struct{}

	mu   sync.Mutex
	log  []Record
	wake chan struct{}
}

// Record is a request as received.
type Record struct {
	Method string
	Path   string
	Header http.Header
	RPC    Message
}

// Message is a JSON-RPC message as the server reads it.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// Request is one request handed to the test. The test answers it through
// its methods and ends it with Done (or leaves that to the cleanup).
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	RPC    Message
	// Gone is closed when the client has gone away (closed the stream or
	// the connection, or the server stops).
	Gone <-chan struct{}

	t     testing.TB
	w     http.ResponseWriter
	mu    sync.Mutex
	over  bool
	done  chan struct{}
	abort chan struct{}
}

// New starts a server on 127.0.0.1 and stops it when the test ends.
func New(t testing.TB, o Options) *Server {
	t.Helper()
	if o.Version == "" {
		o.Version = "2025-11-25"
	}
	if o.Caps == "" {
		o.Caps = "{}"
	}
	s := &Server{t: t, o: o, reqs: make(chan *Request, 64), stop: make(chan struct{}), wake: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = srv.URL + "/mcp"
	t.Cleanup(func() {
		close(s.stop)
		srv.CloseClientConnections()
		srv.Close()
	})
	return s
}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	r := &Request{Method: hr.Method, Path: hr.URL.Path, Header: hr.Header.Clone(), Body: body, t: s.t, w: w, done: make(chan struct{}), abort: make(chan struct{})}
	_ = json.Unmarshal(body, &r.RPC)
	gone := make(chan struct{})
	r.Gone = gone
	go func() {
		select {
		case <-hr.Context().Done():
		case <-s.stop:
		case <-r.done:
			return
		}
		close(gone)
	}()
	s.mu.Lock()
	s.log = append(s.log, Record{Method: r.Method, Path: r.Path, Header: r.Header, RPC: r.RPC})
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
	defer r.finish()

	if s.o.Handle != nil && s.o.Handle(r) {
		return
	}
	switch {
	case r.Method == http.MethodPost && (r.RPC.Method == "initialize" || r.RPC.Method == "server/discover" && !s.o.Modern) && s.o.InitStatus != 0:
		if s.o.InitType != "" {
			w.Header().Set("Content-Type", s.o.InitType)
		}
		w.WriteHeader(s.o.InitStatus)
		io.WriteString(w, s.o.InitBody)
		return
	case r.Method == http.MethodPost && r.RPC.Method == "initialize":
		if s.o.SessionID != "" {
			w.Header().Set("Mcp-Session-Id", s.o.SessionID)
		}
		r.JSON(200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":%s,"serverInfo":{"name":"hostile","version":"6.6.6"}}}`,
			r.RPC.ID, s.o.Version, s.o.Caps))
		return
	case r.Method == http.MethodPost && r.RPC.Method == "server/discover" && !s.o.Modern:
		// A server of 2025-11-25: the client falls back to initialize.
		if s.o.SessionID != "" {
			r.Answer(http.StatusBadRequest, "text/plain", "Bad Request: session id required")
		} else {
			r.JSON(200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, r.RPC.ID))
		}
		return
	case r.Method == http.MethodPost && (r.RPC.Method == "" || strings.HasPrefix(r.RPC.Method, "notifications/")):
		w.WriteHeader(http.StatusAccepted)
		return
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
		return
	case r.Method == http.MethodGet && !s.o.GET:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	select {
	case s.reqs <- r:
	case <-s.stop:
		return
	}
	select {
	case <-r.done:
	case <-s.stop:
	case <-r.abort:
		// Breaks the connection: the client reads a truncated answer.
		r.finish()
		panic(http.ErrAbortHandler)
	}
}

// Abort breaks the connection in the middle of the answer, as a server
// that goes away does.
func (r *Request) Abort() { close(r.abort) }

// Cut closes the connection after the first bytes of a status line: no
// HTTP answer, and not a request the client's HTTP stack may send again
// by itself (net/http retries a GET whose reused connection closed before
// any byte came).
func (r *Request) Cut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.over {
		return
	}
	if hj, ok := r.w.(http.Hijacker); ok {
		if conn, buf, err := hj.Hijack(); err == nil {
			buf.WriteString("HTTP/1.1 2")
			buf.Flush()
			conn.Close()
		}
	}
	r.over = true
	close(r.done)
}

// Next returns the next request the test must answer.
func (s *Server) Next() *Request {
	s.t.Helper()
	select {
	case r := <-s.reqs:
		return r
	case <-time.After(WaitLimit):
		s.t.Fatal("hostile server: no request came")
		return nil
	}
}

// Expect returns the next request and checks its HTTP method and, for a
// POST, its JSON-RPC method.
func (s *Server) Expect(httpMethod, rpcMethod string) *Request {
	s.t.Helper()
	r := s.Next()
	if r.Method != httpMethod || (httpMethod == http.MethodPost && r.RPC.Method != rpcMethod) {
		s.t.Fatalf("hostile server: got %s %q, want %s %q", r.Method, r.RPC.Method, httpMethod, rpcMethod)
	}
	return r
}

// Log returns every request received so far.
func (s *Server) Log() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// WaitLog waits until a received request satisfies match and returns it.
func (s *Server) WaitLog(what string, match func(Record) bool) Record {
	s.t.Helper()
	timer := time.NewTimer(WaitLimit)
	defer timer.Stop()
	for {
		s.mu.Lock()
		for _, r := range s.log {
			if match(r) {
				s.mu.Unlock()
				return r
			}
		}
		wake := s.wake
		s.mu.Unlock()
		select {
		case <-wake:
		case <-timer.C:
			s.t.Fatalf("hostile server: never received %s", what)
		}
	}
}

func (r *Request) finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.over {
		r.over = true
		close(r.done)
	}
}

// Done ends the request: the handler returns, the answer is complete.
func (r *Request) Done() { r.finish() }

// write runs fn on the answer unless the request is over.
func (r *Request) write(fn func(w http.ResponseWriter)) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.over {
		return false
	}
	fn(r.w)
	if f, ok := r.w.(http.Flusher); ok {
		f.Flush()
	}
	return true
}

// JSON answers with status and a body of Content-Type application/json,
// and ends the request.
func (r *Request) JSON(status int, body string) {
	r.Answer(status, "application/json", body)
}

// Answer answers with status, contentType and body, and ends the request.
func (r *Request) Answer(status int, contentType, body string) {
	r.write(func(w http.ResponseWriter) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
	r.finish()
}

// Result answers a request with a JSON result body.
func (r *Request) Result(result string) {
	r.JSON(200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, r.RPC.ID, result))
}

// ResultMsg returns the JSON-RPC response to r with result.
func (r *Request) ResultMsg(result string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, r.RPC.ID, result)
}

// SetHeader sets a header of the answer before its status is written.
func (r *Request) SetHeader(k, v string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.over {
		r.w.Header().Set(k, v)
	}
}

// SSE starts an event-stream answer (status 200).
func (r *Request) SSE() {
	r.write(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
	})
}

// Raw writes s to the answer and flushes it.
func (r *Request) Raw(s string) bool {
	return r.write(func(w http.ResponseWriter) { io.WriteString(w, s) })
}

// Event writes one event with data (and an id when id is not empty).
func (r *Request) Event(id, data string) bool {
	var b strings.Builder
	if id != "" {
		fmt.Fprintf(&b, "id: %s\n", id)
	}
	for _, line := range strings.Split(data, "\n") {
		fmt.Fprintf(&b, "data: %s\n", line)
	}
	b.WriteString("\n")
	return r.Raw(b.String())
}

// WaitGone waits until the client has gone away from this request.
func (r *Request) WaitGone(what string) {
	r.t.Helper()
	select {
	case <-r.Gone:
	case <-time.After(WaitLimit):
		r.t.Fatalf("hostile server: the client never left %s", what)
	}
}
