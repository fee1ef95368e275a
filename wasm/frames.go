//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/coder/websocket"
	"github.com/hack-pad/safejs"
)

// textFrames(fn) makes every WebSocket of this runtime read its text
// messages through fn, a JS function (MessageEvent) → Uint8Array |
// undefined (js/src/loader.js): a text frame then reaches Go as one copy
// of its UTF-8 bytes. Without it, coder/websocket's browser build takes
// event.data as a JS string, which wasm_exec.js enters in its table of
// values (hashing the whole string), encodes, and Go copies twice; at the
// 26 KB pages of a 10,000-tool list that was ~150 µs a page and twice the
// garbage. It needs the build's patched coder/websocket
// (wasm/coder-websocket.patch). The loader calls it once, before the
// first connect; fn undefined goes back to strings.
func (b *bridge) textFrames(args []safejs.Value) any {
	fn := safejs.Unsafe(arg(args, 0))
	if fn.Type() != js.TypeFunction {
		fn = js.Undefined()
	}
	websocket.SetTextReader(fn)
	return nil
}
