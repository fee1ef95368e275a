//go:build !js

package mcplive

import (
	"context"
	"io"

	"github.com/coder/websocket"
)

// readMessage reads one message, at most w.limit+1 bytes of it: a bigger
// one is refused without being read whole.
func (w *wsConn) readMessage(ctx context.Context) (websocket.MessageType, []byte, error) {
	typ, r, err := w.c.Reader(ctx)
	if err != nil {
		return 0, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(r, w.limit+1))
	return typ, data, err
}

// writeMessage writes one text message: a frame once started is finished,
// bounded by writeTimeout, whatever becomes of ctx.
func (w *wsConn) writeMessage(ctx context.Context, msg []byte) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	return w.c.Write(wctx, websocket.MessageText, msg)
}

// useTextFrames: natively coder/websocket reads and writes frames itself.
func useTextFrames(*websocket.Conn) {}
