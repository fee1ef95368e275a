package main

import (
	"context"
	"crypto/rand"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcplive/mcplive/internal/httpcheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// /mcp serves one endpoint over two transports: a WebSocket upgrade goes to
// mcpws, anything else is Streamable HTTP through go-sdk's own handler. The
// Origin allow-list and CORS apply to both.
//
// Streamable HTTP carries two protocol revisions, and go-sdk serves each in
// its own mode, so a request goes to one of two handlers:
//
//   - 2026-07-28 (a request with MCP-Protocol-Version 2026-07-28 or later):
//     the stateless handler. Each request stands alone (no session id), so
//     the connection is named by the URL: /mcp?conn=<key> (any string the
//     client picks, the page a random one); every request with that key
//     reaches the same connection (its login, its role, its go-sdk server,
//     whose list changes reach the key's subscriptions/listen stream). A
//     request without ?conn= uses the connection shared by every keyless
//     client with the same token. A keyed connection is forgotten
//     cfg.IdleTimeout after its last request ended (its listen stream is a
//     request, so a connected client is never idle).
//   - 2025-11-25 and older (initialize, then Mcp-Session-Id): the stateful
//     handler. A POST without a session id opens a connection whose go-sdk
//     server hands out a session id chosen here; later requests find it by
//     that id. It ends with DELETE, or cfg.SessionTimeout after its last
//     POST (the client's heartbeat pings keep it alive), or at shutdown.

// modernVersion is the first revision of the stateless Streamable HTTP.
const modernVersion = "2026-07-28"

// corsAllowHeaders are the request headers a page may send to /mcp.
const corsAllowHeaders = "Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name, Authorization, Content-Type"

// corsExposeHeaders are the response headers a page may read.
const corsExposeHeaders = "Mcp-Session-Id, WWW-Authenticate"

type serverKey struct{}

// serverFromContext is the go-sdk handlers' getServer: serveHTTP has chosen
// the connection's server before the handler runs (the handler may call
// getServer more than once per request).
func serverFromContext(r *http.Request) *mcp.Server {
	s, _ := r.Context().Value(serverKey{}).(*mcp.Server)
	return s
}

func (d *demo) newHTTPHandlers() {
	d.legacyHTTP = mcp.NewStreamableHTTPHandler(serverFromContext, &mcp.StreamableHTTPOptions{
		Logger:         d.log,
		SessionTimeout: d.cfg.SessionTimeout,
	})
	d.modernHTTP = mcp.NewStreamableHTTPHandler(serverFromContext, &mcp.StreamableHTTPOptions{
		Stateless: true,
		Logger:    d.log,
	})
	// A server narrowed (-revisions) to older revisions refuses 2026-07-28
	// requests through this one, without opening a connection for them.
	d.refuser = mcp.NewServer(&mcp.Implementation{Name: "mcplive-demo", Version: "0.1.0"},
		&mcp.ServerOptions{SupportedProtocolVersions: d.cfg.Revisions})
}

// speaks reports whether the server speaks revision v.
func (d *demo) speaks(v string) bool {
	return len(d.cfg.Revisions) == 0 || slices.Contains(d.cfg.Revisions, v)
}

// serveMCP is /mcp.
func (d *demo) serveMCP(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if !httpcheck.OriginAllowed(r, origin, d.origins) {
		d.log.Warn("mcp: refused: origin not allowed", "origin", origin, "host", r.Host, "method", r.Method, "remote", r.RemoteAddr)
		http.Error(w, "Forbidden: origin "+origin+" is not allowed", http.StatusForbidden)
		return
	}
	h := w.Header()
	if origin != "" {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	}
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if httpcheck.HeaderHasToken(r.Header, "Connection", "upgrade") && httpcheck.HeaderHasToken(r.Header, "Upgrade", "websocket") {
		d.mcp.ServeHTTP(w, r)
		return
	}
	d.serveHTTP(w, r)
}

// serveHTTP serves Streamable HTTP: see the top of this file.
func (d *demo) serveHTTP(w http.ResponseWriter, r *http.Request) {
	user, ok := d.httpUser(w, r)
	if !ok {
		return
	}
	d.serveHTTPAs(w, r, user)
}

// serveHTTPAs serves Streamable HTTP for user ("" for none).
func (d *demo) serveHTTPAs(w http.ResponseWriter, r *http.Request, user string) {
	// Requests in flight (event streams above all) end at shutdown.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(d.ctx, cancel)
	defer stop()

	if v := r.Header.Get("Mcp-Protocol-Version"); v >= modernVersion {
		if !d.speaks(v) {
			d.modernHTTP.ServeHTTP(w, r.WithContext(context.WithValue(ctx, serverKey{}, d.refuser)))
			return
		}
		s := d.acquire(r, user)
		defer d.release(s)
		d.modernHTTP.ServeHTTP(w, r.WithContext(context.WithValue(ctx, serverKey{}, s.server)))
		return
	}

	sid := r.Header.Get("Mcp-Session-Id")
	if sid != "" {
		d.mu.Lock()
		s := d.bySID[sid]
		d.mu.Unlock()
		if s != nil {
			ctx = context.WithValue(ctx, serverKey{}, s.server)
		} // else go-sdk answers 404: the session is gone
		d.legacyHTTP.ServeHTTP(w, r.WithContext(ctx))
		return
	}
	if r.Method != http.MethodPost {
		d.legacyHTTP.ServeHTTP(w, r.WithContext(ctx)) // go-sdk says what is missing
		return
	}
	sid = rand.Text()
	s := d.openSession(r, user, transportHTTP, sid, "session", sid)
	d.mu.Lock()
	d.bySID[sid] = s
	d.mu.Unlock()
	d.legacyHTTP.ServeHTTP(w, r.WithContext(context.WithValue(ctx, serverKey{}, s.server)))
	var ss *mcp.ServerSession
	for x := range s.server.Sessions() {
		ss = x
	}
	if ss == nil { // not an initialize, or a failed one: go-sdk closed it
		d.endHTTPSession(s, sid, "no session")
		return
	}
	d.wg.Go(func() {
		_ = ss.Wait()
		d.endHTTPSession(s, sid, "session ended")
	})
}

func (d *demo) endHTTPSession(s *session, sid, why string) {
	d.mu.Lock()
	delete(d.bySID, sid)
	d.mu.Unlock()
	d.closeSession(s, why)
}

// httpUser returns the user that the request's token logs in ("" for none):
// ?token= in the URL, or "Authorization: Bearer <token>". An unknown token
// is answered with 401 and a challenge.
func (d *demo) httpUser(w http.ResponseWriter, r *http.Request) (string, bool) {
	token := r.URL.Query().Get("token")
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && token == "" {
		token = strings.TrimSpace(bearer)
	}
	if token == "" {
		return "", true
	}
	user, ok := userForToken(token)
	if !ok {
		d.log.Warn("connection refused: unknown token", "remote", r.RemoteAddr, "transport", transportHTTP)
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcplive demo", error="invalid_token", error_description="unknown token (the demo knows alice-token and bob-token)"`)
		http.Error(w, "Unauthorized: unknown token", http.StatusUnauthorized)
		return "", false
	}
	return user, true
}

// acquire returns the 2026-07-28 connection of the request's ?conn= key
// (or the shared one of its token), opening it when it is new, and counts
// the request; release ends the count.
func (d *demo) acquire(r *http.Request, user string) *session {
	key := r.URL.Query().Get("conn")
	shared := key == ""
	if shared {
		key = "\x00shared:" + user
	}
	d.mu.Lock()
	s := d.byKey[key]
	if s != nil {
		s.refs++
		if s.idle != nil {
			s.idle.Stop()
			s.idle = nil
		}
		d.mu.Unlock()
		return s
	}
	d.mu.Unlock()
	attrs := []any{"revision", modernVersion}
	if !shared {
		attrs = append(attrs, "key", key)
	} else {
		attrs = append(attrs, "shared", true)
	}
	s = d.openSession(r, user, transportHTTP, "", attrs...)
	d.mu.Lock()
	defer d.mu.Unlock()
	if other := d.byKey[key]; other != nil { // a concurrent first request won
		delete(d.sessions, s.id)
		other.refs++
		if other.idle != nil {
			other.idle.Stop()
			other.idle = nil
		}
		return other
	}
	s.key, s.shared, s.refs = key, shared, 1
	d.byKey[key] = s
	return s
}

func (d *demo) release(s *session) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s.refs--
	if s.refs > 0 || d.byKey[s.key] != s || d.closing {
		return
	}
	s.idle = time.AfterFunc(d.cfg.IdleTimeout, func() {
		d.mu.Lock()
		if s.refs > 0 || d.byKey[s.key] != s {
			d.mu.Unlock()
			return
		}
		delete(d.byKey, s.key)
		d.mu.Unlock()
		d.closeSession(s, "idle")
	})
}

// shutdownHTTP ends every Streamable HTTP connection: event streams and
// requests in flight end (d.ctx), 2025-11-25 sessions close, idle timers stop.
func (d *demo) shutdownHTTP(ctx context.Context) error {
	d.cancel()
	d.mu.Lock()
	d.closing = true
	var open []*session
	for _, s := range d.bySID {
		open = append(open, s)
	}
	var keyed []*session
	for _, s := range d.byKey {
		if s.idle != nil {
			s.idle.Stop()
		}
		keyed = append(keyed, s)
	}
	clear(d.byKey)
	d.mu.Unlock()
	for _, s := range keyed {
		d.closeSession(s, "shutdown")
	}
	for _, s := range open {
		for ss := range s.server.Sessions() {
			_ = ss.Close()
		}
	}
	done := make(chan struct{})
	go func() {
		d.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
