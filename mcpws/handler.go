package mcpws

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/mcplive/mcplive/internal/httpcheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HandlerOptions configures a [Handler]. The zero value and nil are valid:
// same-origin and non-browser clients only, [DefaultReadLimit], no logs.
type HandlerOptions struct {
	// OriginPatterns lists the origins, besides the request's own host, from
	// which browser pages may connect. Each pattern is matched, case
	// insensitively and with [path.Match], against the host of the Origin
	// header ("localhost:*", "127.0.0.1:*", "*.example.com"), or against
	// "scheme://host" when the pattern contains "://"
	// ("https://app.example.com"). These are the semantics of
	// [websocket.AcceptOptions.OriginPatterns]. Any other Origin gets
	// 403 Forbidden; a request without an Origin header is accepted.
	OriginPatterns []string

	// ReadLimit is the largest message accepted from a client, in bytes:
	// 0 means [DefaultReadLimit] (16 MiB), a negative value means no limit.
	// A bigger message closes the connection with [StatusMessageTooBig].
	ReadLimit int64

	// Logger receives one line per connection event: refused, connected,
	// disconnected (with the close code). Nil discards them.
	Logger *slog.Logger

	// OnConnect, if set, is called once per connection after its session
	// started and before the session reads its first message. r is the
	// request passed to the server factory; its context ends with the
	// connection.
	OnConnect func(r *http.Request, ss *mcp.ServerSession)
}

// Handler is an [http.Handler] that serves MCP over WebSocket: each accepted
// connection gets its own [mcp.ServerSession] on the server that the factory
// returns for it.
//
// The handshake offers the subprotocol "mcp" and selects it when the client
// offers it. A client that offers no subprotocol is accepted all the same and
// the fact is logged (some WebSocket clients cannot set one); a client that
// offers only other subprotocols is accepted without one, and a browser
// then fails the connection itself.
//
// Requests that are not WebSocket handshakes get 426 Upgrade Required; a
// refused Origin gets 403 Forbidden; requests after [Handler.Shutdown] get
// 503 Service Unavailable.
type Handler struct {
	newServer func(*http.Request) *mcp.Server
	opts      HandlerOptions
	log       *slog.Logger

	mu       sync.Mutex
	closing  bool
	sessions map[*conn]*mcp.ServerSession
	wg       sync.WaitGroup // one per ServeHTTP past the closing check
}

// NewHandler returns a Handler that calls newServer for each WebSocket
// handshake. newServer may return the same server for every request, or a
// new one per connection to keep per-connection state (a login, a role) in
// the server's tools; returning nil refuses the connection with
// 403 Forbidden. The request's context lives as long as the connection:
// it is cancelled when the WebSocket closes. opts may be nil.
func NewHandler(newServer func(r *http.Request) *mcp.Server, opts *HandlerOptions) *Handler {
	h := &Handler{newServer: newServer, sessions: make(map[*conn]*mcp.ServerSession)}
	if opts != nil {
		h.opts = *opts
		h.opts.OriginPatterns = append([]string(nil), opts.OriginPatterns...)
	}
	h.log = h.opts.Logger
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	return h
}

// ServeHTTP implements [http.Handler]. It returns when the connection ends.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	log := h.log.With("remote", r.RemoteAddr)
	if origin := r.Header.Get("Origin"); !httpcheck.OriginAllowed(r, origin, h.opts.OriginPatterns) {
		log.Warn("mcpws: refused: origin not allowed", "origin", origin, "host", r.Host)
		http.Error(w, "Forbidden: origin "+origin+" is not allowed", http.StatusForbidden)
		return
	}
	if !httpcheck.HeaderHasToken(r.Header, "Connection", "upgrade") || !httpcheck.HeaderHasToken(r.Header, "Upgrade", "websocket") {
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, "Upgrade Required: this endpoint speaks MCP over WebSocket", http.StatusUpgradeRequired)
		return
	}
	if !h.enter() {
		log.Info("mcpws: refused: shutting down")
		http.Error(w, "Service Unavailable: server shutting down", http.StatusServiceUnavailable)
		return
	}
	defer h.wg.Done()

	id := newID()
	ctx, cancel := context.WithCancel(context.WithValue(r.Context(), connIDKey{}, id))
	defer cancel()
	r = r.WithContext(ctx)
	srv := h.newServer(r)
	if srv == nil {
		log.Info("mcpws: refused by the server factory")
		http.Error(w, "Forbidden", http.StatusForbidden)
		return
	}

	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols:   []string{Subprotocol},
		OriginPatterns: h.opts.OriginPatterns,
	})
	if err != nil {
		// Accept has answered the request.
		log.Warn("mcpws: handshake failed", "error", err)
		return
	}
	log = log.With("session", id)
	if ws.Subprotocol() == "" {
		log.Info("mcpws: client did not offer subprotocol \"mcp\"; accepted without it",
			"offered", r.Header.Values("Sec-WebSocket-Protocol"))
	}

	c := newConn(ws, h.opts.ReadLimit, id)
	c.gate = make(chan struct{})
	ss, err := srv.Connect(ctx, connTransport{c}, nil)
	if err != nil {
		log.Error("mcpws: could not start session", "error", err)
		c.closeWith(StatusInternalError, "could not start the MCP session")
		return
	}
	start := time.Now()
	log.Info("mcpws: connected", "origin", r.Header.Get("Origin"), "path", r.URL.Path)
	if !h.add(c, ss) {
		c.planClose(websocket.StatusNormalClosure, reasonShuttingDown)
		close(c.gate)
		_ = ss.Close()
	} else {
		defer h.remove(c)
		if h.opts.OnConnect != nil {
			h.opts.OnConnect(r, ss)
		}
		close(c.gate)
	}
	werr := ss.Wait()
	cancel()
	code, reason, byPeer := c.closeStatus()
	attrs := []any{"duration", time.Since(start).Round(time.Millisecond), "code", int(code), "reason", reason, "by_peer", byPeer}
	if werr != nil {
		attrs = append(attrs, "error", werr)
	}
	log.Info("mcpws: disconnected", attrs...)
}

// enter registers a ServeHTTP call unless the handler is shutting down.
func (h *Handler) enter() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return false
	}
	h.wg.Add(1)
	return true
}

func (h *Handler) add(c *conn, ss *mcp.ServerSession) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return false
	}
	h.sessions[c] = ss
	return true
}

func (h *Handler) remove(c *conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.sessions, c)
}

// Shutdown stops accepting connections (503 from then on), ends every
// session gracefully (requests in flight may finish) and closes its WebSocket
// with code 1000 and reason "server shutting down". It returns when every
// connection has ended, or when ctx ends: then it closes the remaining
// WebSockets at once, still with code 1000, and returns ctx's error.
//
// [http.Server.Shutdown] does not wait for WebSocket connections (they are
// hijacked): call Handler.Shutdown too, before or alongside it.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closing = true
	sessions := make(map[*conn]*mcp.ServerSession, len(h.sessions))
	for c, ss := range h.sessions {
		sessions[c] = ss
	}
	h.mu.Unlock()

	for c, ss := range sessions {
		c.planClose(websocket.StatusNormalClosure, reasonShuttingDown)
		go ss.Close()
	}
	done := make(chan struct{})
	go func() {
		h.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		var wg sync.WaitGroup
		for c := range sessions {
			wg.Go(func() { c.closeWith(websocket.StatusNormalClosure, reasonShuttingDown) })
		}
		wg.Wait()
		return ctx.Err()
	}
}

type connIDKey struct{}

// ConnectionID returns the id that [Handler] gave the connection whose
// context ctx derives from: the context of the request passed to the server
// factory and to OnConnect, and of the session's request handlers. It is
// also the session's [mcp.ServerSession.ID] and the "session" attribute of the
// handler's log lines. It returns "" for other contexts.
func ConnectionID(ctx context.Context) string {
	id, _ := ctx.Value(connIDKey{}).(string)
	return id
}

// connTransport hands an existing conn to Server.Connect.
type connTransport struct{ c *conn }

func (t connTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
