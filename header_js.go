//go:build js

package mcplive

// Header holds HTTP header fields, keyed by canonical name: net/http's
// Header without net/http (see header_native.go). A plain
// map[string][]string or an http.Header converts to it.
type Header map[string][]string

// Get returns the first value of key, or "".
func (h Header) Get(key string) string {
	if v := h[canonicalHeaderKey(key)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Values returns the values of key.
func (h Header) Values(key string) []string { return h[canonicalHeaderKey(key)] }

// Set replaces the values of key with value.
func (h Header) Set(key, value string) { h[canonicalHeaderKey(key)] = []string{value} }

// Add appends value to the values of key.
func (h Header) Add(key, value string) {
	k := canonicalHeaderKey(key)
	h[k] = append(h[k], value)
}

// Del removes key.
func (h Header) Del(key string) { delete(h, canonicalHeaderKey(key)) }

// Clone returns a copy of h, or nil when h is nil.
func (h Header) Clone() Header {
	if h == nil {
		return nil
	}
	c := make(Header, len(h))
	for k, v := range h {
		c[k] = append([]string(nil), v...)
	}
	return c
}

// canonicalHeaderKey returns key as net/http canonicalises it
// ("content-type" → "Content-Type"); a key with a byte that is not a
// token character is returned as it is.
func canonicalHeaderKey(key string) string {
	upper := true
	b := []byte(nil)
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !isTokenChar(c) {
			return key
		}
		want := c
		if upper && 'a' <= c && c <= 'z' {
			want = c - 'a' + 'A'
		} else if !upper && 'A' <= c && c <= 'Z' {
			want = c - 'A' + 'a'
		}
		if want != c && b == nil {
			b = []byte(key)
		}
		if b != nil {
			b[i] = want
		}
		upper = c == '-'
	}
	if b == nil {
		return key
	}
	return string(b)
}

// scrubURL: a browser's WebSocket and fetch errors never quote the URL
// (see header_native.go's).
func scrubURL(text, _ string) string { return text }
