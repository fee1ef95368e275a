package main

import (
	"net/http"
	"strings"

	"github.com/mcplive/mcplive/internal/protect"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// protectedPath is the demo's endpoint behind MCP authorization (OAuth
// 2.1): Streamable HTTP only (a browser WebSocket cannot carry the bearer
// token), the same catalog as /mcp, for the user the token names.
const protectedPath = "/protected/mcp"

// enableProtected serves protectedPath (base is the server's own URL)
// with tokens of issuer, checked by introspection (internal/protect), and
// its protected resource metadata (RFC 9728).
func (d *demo) enableProtected(base, issuer, secret string) error {
	p, err := protect.New(protect.Config{
		Resource:         base + protectedPath,
		Issuer:           issuer,
		IntrospectionURL: strings.TrimSuffix(issuer, "/") + "/token/introspection",
		ClientID:         "mcp-resource-server",
		ClientSecret:     secret,
		Scope:            "tools:read",
		AdminScope:       "tools:admin",
		AdminTool:        func(name string) bool { return strings.HasPrefix(name, "admin_") },
		AllowOrigin: func(origin string) bool {
			return origin == base || strings.HasPrefix(origin, "http://127.0.0.1:") || strings.HasPrefix(origin, "http://localhost:")
		},
	})
	if err != nil {
		return err
	}
	d.mux.Handle(protectedPath, p.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user := ""
		if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
			user = ti.UserID
		}
		d.serveHTTPAs(w, r, user)
	})))
	d.mux.Handle(protect.MetadataPath(protectedPath), p.Metadata())
	return nil
}

// disableProtected answers the page's question whether there is a
// protected endpoint (static/auth.js asks for its metadata) with 204 No
// Content: no, without the red 404 a browser's console shows for it.
func (d *demo) disableProtected() {
	d.mux.HandleFunc(protect.MetadataPath(protectedPath), func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
}
