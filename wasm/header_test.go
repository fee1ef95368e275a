//go:build js && wasm

package main

import (
	"net/http"
	"testing"

	"github.com/mcplive/mcplive"
)

// In the wasm, mcplive.Header is a map type of mcplive's own (net/http is
// not linked): it must canonicalise names exactly as net/http does, or a
// header set by an app would be sent twice or not found.
func TestHeaderMatchesNetHTTP(t *testing.T) {
	keys := []string{
		"content-type", "CONTENT-TYPE", "Content-Type", "mcp-session-id", "MCP-Protocol-Version",
		"last-event-id", "x-app", "WWW-authenticate", "a", "-", "--x", "x--y", "1abc", "mcp-param-région",
		"bad key", "bad:key", "", "x_y", "accept-encoding", "Mcp-Param-X", "ab\x00c", "ümlaut",
	}
	for _, k := range keys {
		h := mcplive.Header{}
		h.Set(k, "v")
		want := http.CanonicalHeaderKey(k)
		if _, ok := h[want]; !ok || len(h) != 1 {
			t.Errorf("Set(%q): keys %v, net/http canonicalises it to %q", k, keysOf(h), want)
		}
		if got := h.Get(want); got != "v" {
			t.Errorf("Set(%q) then Get(%q) = %q", k, want, got)
		}
		h.Add(k, "w")
		if got := h.Values(k); len(got) != 2 || got[1] != "w" {
			t.Errorf("Add(%q): Values = %q", k, got)
		}
		c := h.Clone()
		h.Del(k)
		if len(h) != 0 || len(c) != 1 {
			t.Errorf("Del(%q): %v left, clone %v", k, keysOf(h), keysOf(c))
		}
	}
	if mcplive.Header(nil).Clone() != nil {
		t.Error("Clone of a nil Header is not nil")
	}
}

func keysOf(h mcplive.Header) []string {
	var out []string
	for k := range h {
		out = append(out, k)
	}
	return out
}
