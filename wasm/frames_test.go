//go:build js && wasm

package main

import (
	"syscall/js"
	"testing"

	"github.com/coder/websocket"
)

// TestTextFramesPatched checks that the wasm is built with the patched
// coder/websocket (wasm/modfile.sh): without Conn.SetTextReader and
// SetTextWriter every text frame would still arrive and leave, but as a JS
// string, hashed and copied twice.
func TestTextFramesPatched(t *testing.T) {
	if _, ok := any(&websocket.Conn{}).(interface{ SetTextReader(js.Value) }); !ok {
		t.Fatal("coder/websocket has no Conn.SetTextReader: build with -modfile=$(wasm/modfile.sh)")
	}
	if _, ok := any(&websocket.Conn{}).(interface{ SetTextWriter(js.Value) }); !ok {
		t.Fatal("coder/websocket has no Conn.SetTextWriter: build with -modfile=$(wasm/modfile.sh)")
	}
}
