package mcplive

import (
	"context"
	"encoding/base64"
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
