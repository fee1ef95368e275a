// Package httpcheck holds the request checks that the server side of this
// module (mcpws's handler, the demo's Streamable HTTP endpoint) shares: one
// Origin rule, so a page refused over one transport is refused over the
// other, and one reading of comma-separated header tokens.
package httpcheck

import (
	"net/http"
	"net/url"
	"path"
	"strings"
)

// OriginAllowed reports whether a request with this Origin header may
// proceed, with the semantics of websocket.AcceptOptions.OriginPatterns:
// the request's own host, or a host (or "scheme://host" when the pattern
// has a scheme) matching one of patterns with [path.Match], case
// insensitively. No Origin (not a browser page) is allowed; "null" and
// anything without a host are not.
func OriginAllowed(r *http.Request, origin string, patterns []string) bool {
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, p := range patterns {
		target := u.Host
		if strings.Contains(p, "://") {
			target = u.Scheme + "://" + u.Host
		}
		if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(target)); ok {
			return true
		}
	}
	return false
}

// HeaderHasToken reports whether the comma-separated header name holds
// token, case insensitively ("Connection: keep-alive, Upgrade").
func HeaderHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
