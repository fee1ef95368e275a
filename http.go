package mcplive

import "fmt"

// newHTTPTransport returns the Streamable HTTP transport for rawURL.
func newHTTPTransport(rawURL string, o Options) (Transport, error) {
	return nil, fmt.Errorf("mcplive: %s: Streamable HTTP (http://, https://) is not supported yet; use a ws:// or wss:// URL", rawURL)
}
