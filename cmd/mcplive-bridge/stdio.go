package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/mcplive/mcplive/internal/httpcheck"
	"github.com/mcplive/mcplive/mcpws"
)

// stdioHandler serves one stdio server at one path, over WebSocket (an
// upgrade) and Streamable HTTP (anything else).
//
// One child per session: every WebSocket connection and every Streamable
// HTTP session of 2025-11-25 (initialize → Mcp-Session-Id) starts its own
// process of the server. (2026-07-28 over Streamable HTTP has no sessions:
// one process shared by those requests, with ids remapped, modern.go.) Messages pass through unchanged (no id is remapped, so nothing
// the two sides say can be confused: server requests such as elicitation,
// progress, logging levels and resource subscriptions all belong to the one
// page that caused them), a child that crashes, floods or writes garbage
// costs its own session only, and the next connect starts a fresh process.
// The price is one process per open page, which is what a stdio server
// expects (its own client) and what desktop MCP hosts do.
type stdioHandler struct {
	srv       *server
	log       *slog.Logger
	readLimit int64
	idle      time.Duration // a Streamable HTTP session unused this long is closed

	mu       sync.Mutex
	sessions map[string]*httpSession
	wg       sync.WaitGroup
	closed   bool
	sockets  map[*websocket.Conn]struct{}
	modern   *modernHTTP // 2026-07-28 over Streamable HTTP: one shared process
}

func newStdioHandler(srv *server, log *slog.Logger, readLimit int64) *stdioHandler {
	h := &stdioHandler{
		srv:       srv,
		log:       log.With("server", srv.Name),
		readLimit: readLimit,
		idle:      10 * time.Minute,
		sessions:  map[string]*httpSession{},
		sockets:   map[*websocket.Conn]struct{}{},
	}
	h.modern = &modernHTTP{h: h}
	return h
}

func (h *stdioHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if httpcheck.HeaderHasToken(r.Header, "Upgrade", "websocket") {
		h.serveWebSocket(w, r)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.servePOST(w, r)
	case http.MethodGet, http.MethodDelete:
		s := h.lookup(w, r)
		if s == nil {
			return
		}
		if r.Method == http.MethodDelete {
			s.close()
			w.WriteHeader(http.StatusNoContent)
			return
		}
		s.enter()
		defer s.leave()
		s.relay.serveGET(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// enterSession registers a session's goroutine unless shutting down.
func (h *stdioHandler) enterSession() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.wg.Add(1)
	return true
}

func (h *stdioHandler) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	if !h.enterSession() {
		http.Error(w, "Service Unavailable: the bridge is shutting down", http.StatusServiceUnavailable)
		return
	}
	defer h.wg.Done()
	// The Origin was checked by the guard, with -allow-origin.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{mcpws.Subprotocol}, InsecureSkipVerify: true})
	if err != nil {
		return
	}
	h.mu.Lock()
	h.sockets[ws] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.sockets, ws)
		h.mu.Unlock()
	}()
	log := h.log.With("transport", "websocket", "remote", r.RemoteAddr)
	page, _ := (&mcpws.Transport{Conn: ws, ReadLimit: h.readLimit}).Connect(r.Context())
	c, err := startChild(context.Background(), h.srv, log)
	if err != nil {
		log.Error("mcplive-bridge: " + err.Error())
		ws.Close(mcpws.StatusInternalError, closeReason("mcplive-bridge: "+err.Error()))
		return
	}
	log = log.With("pid", c.pid)
	log.Info("session started")
	if err := pump(context.Background(), page, c, log); err != nil {
		ws.Close(mcpws.StatusInternalError, closeReason(err.Error()))
		return
	}
	page.Close()
}

// closeReason fits a WebSocket close reason (at most 123 bytes).
func closeReason(s string) string {
	if len(s) <= 123 {
		return s
	}
	s = s[:120]
	for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 { // not in the middle of a rune
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// httpSession is one Streamable HTTP session: a relay (relay.go) on the
// page's side, a child on the other.
type httpSession struct {
	id    string
	h     *stdioHandler
	relay *relay

	mu     sync.Mutex
	active int
	timer  *time.Timer
	once   sync.Once
}

func (s *httpSession) enter() {
	s.mu.Lock()
	s.active++
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
}

func (s *httpSession) leave() {
	s.mu.Lock()
	s.active--
	if s.active == 0 && s.timer != nil {
		s.timer.Reset(s.h.idle)
	}
	s.mu.Unlock()
}

// close ends the session: the pump sees the page's side end and stops the
// child.
func (s *httpSession) close() {
	s.once.Do(func() {
		s.h.mu.Lock()
		delete(s.h.sessions, s.id)
		s.h.mu.Unlock()
		s.relay.Close()
	})
}

func (h *stdioHandler) lookup(w http.ResponseWriter, r *http.Request) *httpSession {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		http.Error(w, "Bad Request: "+r.Method+" needs an Mcp-Session-Id header (start a session with initialize)", http.StatusBadRequest)
		return nil
	}
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s == nil {
		// The session ended (its server process exited, or it was idle):
		// 404 makes the client start a new one, with a new process.
		http.Error(w, "Not Found: session "+id+" ended (its server process exited or it was idle); start a new one with initialize", http.StatusNotFound)
		return nil
	}
	return s
}

// legacyVersions are the revisions the bridge serves over Streamable HTTP
// with sessions (a process per session); 2026-07-28 has none over HTTP and
// is served by a shared process (modern.go) when the server speaks it.
// Over WebSocket every revision passes through.
var legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

func (h *stdioHandler) servePOST(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Mcp-Session-Id") != "" {
		s := h.lookup(w, r)
		if s == nil {
			return
		}
		body, err := readBody(w, r)
		if err != nil {
			return
		}
		s.enter()
		defer s.leave()
		s.relay.servePOST(w, r, body)
		return
	}
	// A new 2025-11-25 session starts with initialize. Anything else
	// without a session is a 2026-07-28 request (modern.go): served by the
	// shared process when the server speaks that revision, answered with
	// UnsupportedProtocolVersion otherwise, so that a client falls back to
	// initialize.
	body, err := readBody(w, r)
	if err != nil {
		return
	}
	var msg struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "initialize" {
		h.modern.serve(w, r, body)
		return
	}
	if !h.enterSession() {
		http.Error(w, "Service Unavailable: the bridge is shutting down", http.StatusServiceUnavailable)
		return
	}
	log := h.log.With("transport", "streamable-http", "remote", r.RemoteAddr)
	c, err := startChild(context.Background(), h.srv, log)
	if err != nil {
		h.wg.Done()
		log.Error("mcplive-bridge: " + err.Error())
		http.Error(w, "Bad Gateway: mcplive-bridge: "+err.Error(), http.StatusBadGateway)
		return
	}
	s := &httpSession{id: rand.Text(), h: h}
	s.relay = newRelay(s.id, log)
	s.timer = time.AfterFunc(h.idle, s.close)
	h.mu.Lock()
	h.sessions[s.id] = s
	h.mu.Unlock()
	log = log.With("pid", c.pid, "session", s.id)
	log.Info("session started")
	go func() {
		defer h.wg.Done()
		pump(context.Background(), s.relay, c, log)
		s.mu.Lock()
		s.timer.Stop()
		s.mu.Unlock()
		s.close()
	}()
	s.enter()
	defer s.leave()
	s.relay.servePOST(w, r, body)
}

// Shutdown ends every session (and so every child) and waits for them.
func (h *stdioHandler) Shutdown(ctx context.Context) {
	h.mu.Lock()
	h.closed = true
	sessions := make([]*httpSession, 0, len(h.sessions))
	for _, s := range h.sessions {
		sessions = append(sessions, s)
	}
	for ws := range h.sockets {
		go ws.Close(websocket.StatusNormalClosure, "mcplive-bridge shutting down")
	}
	h.mu.Unlock()
	for _, s := range sessions {
		s.close()
	}
	h.modern.close()
	done := make(chan struct{})
	go func() { h.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
