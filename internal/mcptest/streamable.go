package mcptest

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPServer is a go-sdk MCP server served over Streamable HTTP by go-sdk's
// own handler (mcp.NewStreamableHTTPHandler) on 127.0.0.1. Like Server,
// every session shares one *mcp.Server (S), so a change made through S
// reaches every client with the matching list_changed. It records every
// HTTP request it receives.
type HTTPServer struct {
	S   *mcp.Server
	URL string // http://127.0.0.1:port/mcp

	t       testing.TB
	addr    string
	newSrv  func(setup func(*mcp.Server)) *mcp.Server
	setup   func(*mcp.Server)
	hopts   *mcp.StreamableHTTPOptions
	mu      sync.Mutex
	httpSrv *http.Server
	handler http.Handler
	reqs    []HTTPRequest
	wake    chan struct{}
}

// HTTPRequest is one request the server received.
type HTTPRequest struct {
	Method string      // GET, POST, DELETE
	Header http.Header // as sent
	RPC    string      // the JSON-RPC method of a POST ("" for a response)
}

// SessionID returns the request's Mcp-Session-Id.
func (r HTTPRequest) SessionID() string { return r.Header.Get("Mcp-Session-Id") }

// NewHTTP starts a server and stops it when the test ends. hopts are the
// options of go-sdk's handler (nil: stateful, event-stream answers).
func NewHTTP(t testing.TB, o *Options, hopts *mcp.StreamableHTTPOptions) *HTTPServer {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	s := &HTTPServer{t: t, setup: o.Setup, hopts: hopts, wake: make(chan struct{})}
	s.newSrv = serverFactory(o)
	s.S = s.newSrv(o.Setup)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	s.URL = "http://" + s.addr + "/mcp"
	s.serve(ln)
	t.Cleanup(s.Stop)
	return s
}

func (s *HTTPServer) serve(ln net.Listener) {
	srv := s.S
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, s.hopts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.record(h))
	hs := &http.Server{Handler: mux}
	s.mu.Lock()
	s.httpSrv, s.handler = hs, h
	s.mu.Unlock()
	go hs.Serve(ln)
}

// record notes each request before go-sdk's handler serves it.
func (s *HTTPServer) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := HTTPRequest{Method: r.Method, Header: r.Header.Clone()}
		if r.Method == http.MethodPost && r.Body != nil {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
			r.Body.Close()
			var m struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &m)
			rec.RPC = m.Method
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, rec)
		close(s.wake)
		s.wake = make(chan struct{})
		s.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// Requests returns the requests received so far, in order.
func (s *HTTPServer) Requests() []HTTPRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// WaitRequest waits for a request (received at any time) for which match
// holds, and returns it; the test fails when none comes within waitLimit.
func (s *HTTPServer) WaitRequest(what string, match func(HTTPRequest) bool) HTTPRequest {
	s.t.Helper()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	for {
		s.mu.Lock()
		for _, r := range s.reqs {
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
			s.t.Fatalf("the server never received %s", what)
		}
	}
}

// EndSession ends session id on the server, as a server that expires
// sessions does: the session's streams close and its requests get 404.
func (s *HTTPServer) EndSession(id string) {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodDelete, s.URL, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", id)
	s.mu.Lock()
	h := s.handler
	s.mu.Unlock()
	// Straight into go-sdk's handler: it is not a request of the client.
	rec := &discardWriter{header: http.Header{}}
	h.ServeHTTP(rec, req)
	if rec.code != http.StatusNoContent && rec.code != http.StatusOK {
		s.t.Fatalf("ending session %q: status %d", id, rec.code)
	}
}

type discardWriter struct {
	header http.Header
	code   int
}

func (w *discardWriter) Header() http.Header { return w.header }
func (w *discardWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return len(b), nil
}
func (w *discardWriter) WriteHeader(code int) { w.code = code }

// Stop closes every connection and stops listening.
func (s *HTTPServer) Stop() {
	s.mu.Lock()
	hs := s.httpSrv
	s.httpSrv = nil
	s.mu.Unlock()
	if hs == nil {
		return
	}
	// Close, not Shutdown: event streams never end by themselves. The
	// go-sdk sessions outlive their HTTP connections: close them too.
	hs.Close()
	for ss := range s.S.Sessions() {
		ss.Close()
	}
}

// Restart stops the server and starts a fresh *mcp.Server and handler on
// the same address, set up by setup (nil: the Options' Setup). Clients see
// their streams drop and their session unknown (404).
func (s *HTTPServer) Restart(setup func(*mcp.Server)) {
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
