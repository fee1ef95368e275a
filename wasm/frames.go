//go:build js && wasm

package main

import (
	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
)

// textFrames(fn) makes every WebSocket this runtime dials afterwards read
// its text messages through fn (js/src/loader.js textFrames), a JS
// function that encodes a message straight into Go's memory, via
// mcplive.SetTextFrameReader: a text frame then reaches Go as one encode
// and one copy instead of a JS string (at the 26 KB pages of a
// 10,000-tool list a JS string cost ~150 µs a page and twice the garbage).
// The loader calls it once, before the first connect.
func (b *bridge) textFrames(args []safejs.Value) any {
	mcplive.SetTextFrameReader(safejs.Unsafe(arg(args, 0)))
	return nil
}
