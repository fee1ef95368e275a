package httpcheck

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestOriginAllowed(t *testing.T) {
	patterns := []string{"localhost:*", "*.example.com", "https://app.test"}
	for _, c := range []struct {
		origin string
		want   bool
	}{
		{"", true},                         // not a browser
		{"http://127.0.0.1:8080", true},    // the request's own host
		{"http://LOCALHOST:5173", true},    // a pattern, case insensitively
		{"https://a.example.com", true},    // a wildcard host
		{"https://app.test", true},         // a pattern with a scheme
		{"http://app.test", false},         // ... which the scheme must match
		{"null", false},                    // a sandboxed page
		{"http://evil.test", false},        // anything else
		{"http://127.0.0.1:9999", false},   // another port of our host
		{"::not a url", false},             // unparsable
		{"http://example.com.evil", false}, // a suffix is not a match
	} {
		r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/mcp", nil)
		if got := OriginAllowed(r, c.origin, patterns); got != c.want {
			t.Errorf("OriginAllowed(%q) = %v, want %v", c.origin, got, c.want)
		}
	}
}

func TestHeaderHasToken(t *testing.T) {
	h := http.Header{"Connection": {"keep-alive, Upgrade"}, "Upgrade": {"websocket"}}
	if !HeaderHasToken(h, "Connection", "upgrade") || !HeaderHasToken(h, "Upgrade", "WebSocket") {
		t.Error("the tokens of a comma-separated header are not found")
	}
	if HeaderHasToken(h, "Connection", "close") || HeaderHasToken(h, "Missing", "upgrade") {
		t.Error("a token that is not there is found")
	}
}
