//go:build js && wasm

package main

import (
	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
)

// textFrames(fn) makes every WebSocket this runtime dials afterwards read
// its text messages through fn, a JS function (MessageEvent) → Uint8Array
// | undefined (js/src/loader.js), via mcplive.SetTextFrameReader: a text
// frame then reaches Go as one copy of its UTF-8 bytes instead of a JS
// string (at the 26 KB pages of a 10,000-tool list that was ~150 µs a page
// and twice the garbage). The loader calls it once, before the first
// connect.
func (b *bridge) textFrames(args []safejs.Value) any {
	mcplive.SetTextFrameReader(safejs.Unsafe(arg(args, 0)))
	return nil
}
