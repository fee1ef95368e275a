//go:build js

package mcplive

import "fmt"

// httpTransportFor refuses Streamable HTTP in the browser build for now:
// net/http's client would bring its TLS stack into the wasm (megabytes),
// and the browser's fetch is to carry these requests instead.
func httpTransportFor(rawURL string, o Options) (Transport, error) {
	return nil, fmt.Errorf("mcplive: %s: Streamable HTTP (http://, https://) is not supported in the browser build yet; use a ws:// or wss:// URL", rawURL)
}
