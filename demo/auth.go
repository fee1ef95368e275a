package main

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
)

// role is what the admin grants a connection; each role sees the tools and
// prompts of the roles below it too.
type role int

const (
	roleViewer role = iota // every connection starts as a viewer
	roleEditor
	roleAdmin
)

var roleNames = [...]string{roleViewer: "viewer", roleEditor: "editor", roleAdmin: "admin"}

func (r role) String() string {
	if r < 0 || int(r) >= len(roleNames) {
		return fmt.Sprintf("role(%d)", int(r))
	}
	return roleNames[r]
}

func (r role) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

func (r *role) UnmarshalText(b []byte) error {
	v, err := parseRole(string(b))
	*r = v
	return err
}

func parseRole(s string) (role, error) {
	for r, name := range roleNames {
		if strings.EqualFold(s, name) {
			return role(r), nil
		}
	}
	return 0, fmt.Errorf("unknown role %q (want viewer, editor or admin)", s)
}

// demoUsers are the accounts the login tool accepts. It is a demo: the
// passwords are public (README, the login tool's description).
var demoUsers = map[string]string{
	"alice": "wonderland",
	"bob":   "builder",
}

// demoTokens are the tokens accepted in the MCP URL (?token=…): browsers
// cannot set headers on a WebSocket, so credentials travel in the URL.
var demoTokens = map[string]string{
	"alice-token": "alice",
	"bob-token":   "bob",
}

// checkLogin reports whether password is user's demo password.
func checkLogin(user, password string) bool {
	want, ok := demoUsers[user]
	return ok && subtle.ConstantTimeCompare([]byte(want), []byte(password)) == 1
}

// userForToken returns the user a URL token logs in, if any.
func userForToken(token string) (string, bool) {
	for t, user := range demoTokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
			return user, true
		}
	}
	return "", false
}

// newAdminToken returns a random token for the control API.
func newAdminToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// requireAdmin answers 401 unless the request carries
// "Authorization: Bearer <admin token>".
func (d *demo) requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(d.adminToken)) != 1 {
			d.log.Warn("control: unauthorized", "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcplive demo control API"`)
			writeError(w, http.StatusUnauthorized, "missing or wrong admin token (Authorization: Bearer <token>; the server prints it at start-up)")
			return
		}
		next.ServeHTTP(w, r)
	})
}
