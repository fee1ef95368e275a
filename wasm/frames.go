//go:build js && wasm

package main

import (
	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive/internal/textframes"
)

// textFrames(read, write) makes every WebSocket this runtime dials
// afterwards read its text messages through read and send them through
// write (js/src/loader.js textReader and textWriter), JS functions that encode a message
// straight into Go's memory and decode one straight out of it, set as
// textframes.Reader and Writer (internal/textframes), which package mcplive
// hands to each connection: a text frame then
// reaches Go as one encode and one copy instead of a JS string (at the
// 26 KB pages of a 10,000-tool list a JS string cost ~150 µs a page and
// twice the garbage), and leaves it as one decode. The loader calls it
// once, before the first connect.
func (b *bridge) textFrames(args []safejs.Value) any {
	textframes.Reader = safejs.Unsafe(arg(args, 0))
	textframes.Writer = safejs.Unsafe(arg(args, 1))
	return nil
}
