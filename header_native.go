//go:build !js

package mcplive

import (
	"net/http"
	"strings"
)

// Header holds HTTP header fields, keyed by canonical name. Natively it is
// net/http's Header; compiled to WebAssembly it is a map type of this
// package with the same methods (header_js.go), so that the wasm does not
// link net/http: its package initialisation alone keeps Go's TLS, X.509
// and elliptic-curve code in the binary (about 190 KB of the compressed
// download) that a page never runs: fetch and the browser's WebSocket do
// that work.
type Header = http.Header

// scrubURL takes out of text (a lower layer's error, which may quote the
// URL as it was dialed) the query, fragment and userinfo of raw.
func scrubURL(text, raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 && i < len(raw)-1 {
		text = strings.ReplaceAll(text, raw[i:], "?…")
	}
	if i := strings.Index(raw, "://"); i >= 0 {
		host := raw[i+3:]
		if end := strings.IndexAny(host, "/?#"); end >= 0 {
			host = host[:end]
		}
		if at := strings.LastIndex(host, "@"); at >= 0 {
			user := host[:at]
			text = strings.ReplaceAll(text, user+"@", "")
			if name, _, ok := strings.Cut(user, ":"); ok {
				text = strings.ReplaceAll(text, name+":***@", "") // net/url's redacted form
			}
		}
	}
	return text
}
