//go:build js

package mcplive

import (
	"context"

	"github.com/coder/websocket"
)

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
