//go:build !js

package mcplive

import "net/http"

// Header holds HTTP header fields, keyed by canonical name. Natively it is
// net/http's Header; compiled to WebAssembly it is a map type of this
// package with the same methods (header_js.go), so that the wasm does not
// link net/http: its package initialisation alone keeps Go's TLS, X.509
// and elliptic-curve code in the binary (about 190 KB of the compressed
// download) that a page never runs: fetch and the browser's WebSocket do
// that work.
type Header = http.Header
