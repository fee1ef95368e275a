package main

import (
	"crypto/subtle"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcplive/mcplive/internal/httpcheck"
)

// Header names of the bridge's own protocol (what viaBridge sends).
const (
	tokenHeader  = "X-Bridge-Token"
	targetHeader = "X-Bridge-Target"
)

// exposedHeaders are the response headers a page's script may read: MCP's
// and OAuth's.
const exposedHeaders = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Content-Type, Location, DPoP-Nonce"

// guard is the bridge's front door: every request passes the Host check
// (DNS rebinding), the Origin allowlist and the token before it reaches a
// server; it also answers CORS for the allowed origins.
type guard struct {
	port     string   // the bridge's own port
	origins  []string // -allow-origin
	token    string   // "" with -insecure-no-token
	bearerOK bool     // Authorization: Bearer <token> accepted too (not when forwarding: that header is the upstream's)
	maxBody  int64
	log      *slog.Logger
	next     http.Handler
}

func (g *guard) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	g.log.Warn("refused", "method", r.Method, "path", r.URL.Path, "origin", r.Header.Get("Origin"), "host", r.Host, "status", status, "why", msg)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	io.WriteString(w, http.StatusText(status)+": mcplive-bridge: "+msg+"\n")
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		g.refuse(w, r, http.StatusForbidden, "Host "+strconv.Quote(r.Host)+" is not this bridge's (DNS rebinding protection): use http://127.0.0.1:"+g.port+" or http://localhost:"+g.port)
		return
	}
	origin := r.Header.Get("Origin")
	if !httpcheck.OriginAllowed(r, origin, g.origins) {
		g.refuse(w, r, http.StatusForbidden, "Origin "+origin+" is not allowed: start the bridge with -allow-origin "+origin)
		return
	}
	if origin != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", exposedHeaders)
	}
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
		if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
			h.Set("Access-Control-Allow-Headers", req)
		}
		if r.Header.Get("Access-Control-Request-Private-Network") == "true" {
			h.Set("Access-Control-Allow-Private-Network", "true")
		}
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if g.token != "" {
		got, how := g.tokenOf(r)
		if got == "" {
			g.refuse(w, r, http.StatusUnauthorized, "no token: send the bridge's token (printed at its start, or set with -token) in the "+tokenHeader+" header (viaBridge does) or as ?token= on a WebSocket URL; -insecure-no-token turns the check off")
			return
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(g.token)) != 1 {
			g.refuse(w, r, http.StatusUnauthorized, "wrong token (in "+how+"): use the token the bridge printed at its start, or start it with -token")
			return
		}
	}
	// The token in the URL is the bridge's: the server never sees it.
	if q := r.URL.Query(); q.Has("token") {
		q.Del("token")
		r.URL.RawQuery = q.Encode()
	}
	r.Header.Del(tokenHeader)
	if r.ContentLength > g.maxBody {
		g.refuse(w, r, http.StatusRequestEntityTooLarge, "request body of "+strconv.FormatInt(r.ContentLength, 10)+" bytes is over the limit of "+strconv.FormatInt(g.maxBody, 10)+" (-max-body)")
		return
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, g.maxBody)
	}
	g.next.ServeHTTP(w, r)
}

// tokenOf returns the token a request carries and where.
func (g *guard) tokenOf(r *http.Request) (token, where string) {
	if t := r.Header.Get(tokenHeader); t != "" {
		return t, "the " + tokenHeader + " header"
	}
	if t := r.URL.Query().Get("token"); t != "" {
		return t, "?token="
	}
	if g.bearerOK {
		if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
			r.Header.Del("Authorization")
			return strings.TrimSpace(a[7:]), "the Authorization header"
		}
	}
	return "", ""
}

// hostAllowed accepts only the bridge's own loopback names and port: a
// page of another site whose name was rebound to 127.0.0.1 sends its own
// name.
func (g *guard) hostAllowed(host string) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != g.port {
		return false
	}
	switch strings.ToLower(h) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}

// readBody reads a request body within the guard's limit, answering 413 or
// 400 itself when it cannot.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, "Request Entity Too Large: mcplive-bridge: request body over the limit of "+strconv.FormatInt(mbe.Limit, 10)+" bytes (-max-body)", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "Bad Request: could not read the body", http.StatusBadRequest)
		}
		return nil, err
	}
	return body, nil
}
