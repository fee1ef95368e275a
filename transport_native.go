//go:build !js

package mcplive

func httpTransportFor(rawURL string, o Options) (Transport, error) {
	return newHTTPTransport(rawURL, o)
}
