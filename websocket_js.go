//go:build js

package mcplive

import (
	"context"
	"syscall/js"

	"github.com/coder/websocket"
	"github.com/mcplive/mcplive/internal/textframes"
)

// useTextFrames hands c the text frame reader and writer that the wasm
// binding set (internal/textframes), where c can take them.
func useTextFrames(c *websocket.Conn) {
	if r, ok := any(c).(interface{ SetTextReader(js.Value) }); ok && textframes.Reader.Type() == js.TypeFunction {
		r.SetTextReader(textframes.Reader)
	}
	if w, ok := any(c).(interface{ SetTextWriter(js.Value) }); ok && textframes.Writer.Type() == js.TypeFunction {
		w.SetTextWriter(textframes.Writer)
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
