//go:build js && wasm

package main

import (
	"syscall/js"
	"testing"

	"github.com/coder/websocket"
)

// TestTextReaderPatched checks that the wasm is built with the patched
// coder/websocket (wasm/modfile.sh): without Conn.SetTextReader every text
// frame would still arrive, but as a JS string, hashed and copied twice.
func TestTextReaderPatched(t *testing.T) {
	if _, ok := any(&websocket.Conn{}).(interface{ SetTextReader(js.Value) }); !ok {
		t.Fatal("coder/websocket has no Conn.SetTextReader: build with -modfile=$(wasm/modfile.sh)")
	}
}
