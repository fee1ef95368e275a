package mcplive

import (
	"context"
	"encoding/base64"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// Mcp-Name travels as it is when it is plain ASCII, base64 in the
// sentinel form otherwise (2026-07-28, "Value Encoding"): the spec's
// examples.
func TestHTTPEncodeHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"us-west1":             "us-west1",
		"get_weather":          "get_weather",
		"file:///a b.md":       "file:///a b.md",
		"Hello, 世界":            "=?base64?SGVsbG8sIOS4lueVjA==?=",
		" padded ":             "=?base64?IHBhZGRlZCA=?=",
		"line1\nline2":         "=?base64?bGluZTEKbGluZTI=?=",
		"=?base64?literal?=":   "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
		"":                     "=?base64??=",
		"tab\tinside":          "=?base64?dGFiCWluc2lkZQ==?=",
		"=?base64?not-closing": "=?base64?not-closing",
	} {
		if got := encodeHeaderValue(in); got != want {
			t.Errorf("encodeHeaderValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// appendBase64 writes what encoding/base64's StdEncoding writes, for every
// length up to 64 bytes and every byte value.
func TestHTTPAppendBase64(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 64; n++ {
		for range 50 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(r.UintN(256))
			}
			if got, want := string(appendBase64([]byte("x"), string(b))), "x"+base64.StdEncoding.EncodeToString(b); got != want {
				t.Fatalf("appendBase64(%x) = %q; encoding/base64: %q", b, got, want)
			}
		}
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	if got, want := string(appendBase64(nil, string(all))), base64.StdEncoding.EncodeToString(all); got != want {
		t.Fatalf("every byte: %q; encoding/base64: %q", got, want)
	}
}

func TestHTTPParseAuthParams(t *testing.T) {
	for h, want := range map[string]map[string]string{
		`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"`: {"resource_metadata": "https://x/.well-known/oauth-protected-resource"},
		`Bearer realm="mcp", error=invalid_token, error_description="the \"token\" expired"`: {
			"realm": "mcp", "error": "invalid_token", "error_description": `the "token" expired`},
		`Basic realm="a", Bearer scope="tools:read tools:call", Error="insufficient_scope"`: {
			"scope": "tools:read tools:call", "error": "insufficient_scope"},
		// Another scheme first, with params of the same names: Bearer's win.
		`DPoP error="use_dpop_nonce", scope=x, Bearer resource_metadata="https://x/prm", error=insufficient_scope, scope="a b"`: {
			"resource_metadata": "https://x/prm", "error": "insufficient_scope", "scope": "a b"},
		`Basic dXNlcjpwYXNz, Bearer error=invalid_token`: {"error": "invalid_token"},
		`Bearer realm=a, Bearer error=second`:            {"realm": "a"},
		// No Bearer challenge: every challenge's params, the first wins.
		`DPoP error=a, Negotiate, Custom error=b, resource_metadata=r`: {"error": "a", "resource_metadata": "r"},
		`Bearer`:                 {},
		`Bearer abc123==`:        {},
		`Bearer x="unterminated`: {"x": "unterminated"},
		`=,=,"=`:                 {},
	} {
		if got := parseAuthParams(h); !maps.Equal(got, want) {
			t.Errorf("parseAuthParams(%q) = %v, want %v", h, got, want)
		}
	}
}

// TestShownURL: errors and log lines show URLs without userinfo and query
// (a token may travel in either); the URL the requests go to is unchanged.
func TestShownURL(t *testing.T) {
	for in, want := range map[string]string{
		"ws://h:1/mcp?access_token=SECRET":    "ws://h:1/mcp?…",
		"https://u:SECRET@h/mcp":              "https://h/mcp",
		"https://u:SECRET@h":                  "https://h",
		"https://h/mcp#SECRET":                "https://h/mcp?…",
		"https://h/mcp":                       "https://h/mcp",
		"http://u@h:8/p/q?x=SECRET&y=1#f":     "http://h:8/p/q?…",
		"https://h/path@notuser?token=SECRET": "https://h/path@notuser?…",
	} {
		if got := shownURL(in); got != want {
			t.Errorf("shownURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDialErrorsRedactURL: a refused dial names the server without the token its URL carries.
func TestDialErrorsRedactURL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tr := range []Transport{
		&WebSocketTransport{URL: "ws://user:SECRET@127.0.0.1:1/mcp?access_token=SECRET", DialTimeout: 2 * time.Second},
		&HTTPTransport{URL: "http://user:SECRET@127.0.0.1:1/mcp?access_token=SECRET", DialTimeout: 2 * time.Second},
	} {
		_, err := NewSession(ctx, tr, nil)
		if err == nil {
			t.Fatal("a dial to port 1 succeeded")
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("the error shows the URL's credentials: %v", err)
		}
		if !strings.Contains(err.Error(), "127.0.0.1:1/mcp?…") {
			t.Errorf("the error does not name the server: %v", err)
		}
	}
}
