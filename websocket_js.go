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
