//go:build js

package mcplive

import (
	"context"
	"syscall/js"

	"github.com/coder/websocket"
)

// textFrameReader is the JS function every WebSocket of this program reads
// its text messages through (see SetTextFrameReader); undefined: none.
var textFrameReader js.Value

// SetTextFrameReader (js/wasm only) gives the WebSocket connections dialed
// after it a JS function (MessageEvent, addr, cap) → number | undefined
// that encodes the UTF-8 bytes of a text message into this program's
// memory at addr (TextEncoder.encodeInto) when they fit in cap bytes and
// returns their count, returns -n (n > cap) when they need up to n bytes,
// and returns undefined for any other message: a message then reaches Go
// as one encode and one copy, instead of a JS string that wasm_exec.js
// enters in its table of values (hashing it whole) and Go decodes and
// copies twice. The npm package's loader sets one. It takes effect only
// with a coder/websocket that has Conn.SetTextReader (the copy that
// wasm/modfile.sh patches); with upstream's, messages come as strings.
func SetTextFrameReader(fn js.Value) { textFrameReader = fn }

// textFrameWriter is the JS function every WebSocket of this program sends
// its text messages through (see SetTextFrameWriter); undefined: none.
var textFrameWriter js.Value

// SetTextFrameWriter (js/wasm only) gives the WebSocket connections dialed
// after it a JS function (WebSocket, addr, len) → undefined that decodes
// the len UTF-8 bytes at addr in this program's memory (TextDecoder) and
// sends them with WebSocket.send: a message then leaves Go as one decode,
// instead of a Go string copied from the message that wasm_exec.js decodes
// and enters in its table of values, with a finalizer to take it out
// again. The npm package's loader sets one. It takes effect only with a
// coder/websocket that has Conn.SetTextWriter (wasm/modfile.sh).
func SetTextFrameWriter(fn js.Value) { textFrameWriter = fn }

// useTextFrames hands c the text frame reader and writer, where c can take
// them.
func useTextFrames(c *websocket.Conn) {
	if r, ok := any(c).(interface{ SetTextReader(js.Value) }); ok && textFrameReader.Type() == js.TypeFunction {
		r.SetTextReader(textFrameReader)
	}
	if w, ok := any(c).(interface{ SetTextWriter(js.Value) }); ok && textFrameWriter.Type() == js.TypeFunction {
		w.SetTextWriter(textFrameWriter)
	}
}

// readMessage reads one message. The browser build has the whole message
// in memory already, as a fresh slice that Read hands over: taking it as
// it is saves a copy of every frame (Reader would wrap it in a
// bytes.Reader to be copied out again).
func (w *wsConn) readMessage(ctx context.Context) (websocket.MessageType, []byte, error) {
	return w.c.Read(ctx)
}

// writeMessage writes one text message. The browser's WebSocket.send
// queues it and returns at once (coder/websocket's browser build ignores
// the context), so a write needs no timeout of its own here: a context
// and a timer per message saved.
func (w *wsConn) writeMessage(_ context.Context, msg []byte) error {
	return w.c.Write(context.Background(), websocket.MessageText, msg)
}
