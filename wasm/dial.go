//go:build js && wasm

package main

import (
	"context"

	"github.com/mcplive/mcplive"
)

// failFast wraps a client's WebSocket transport so that a handshake that
// fails is reported at once, not after the dial timeout.
//
// coder/websocket's js dial waits for the socket's open or close event.
// Browsers fire close right after error when a handshake fails; Node's
// global WebSocket (Node 20 and 22) fires only error, so a refused port, a
// 404 or a 403 would wait out the whole dial timeout. Right before each
// dial, hooks.beforeDial installs a one-shot WebSocket subclass
// (js/src/dial.js) that fires close after an error before open; its own
// constructor puts the original back. Go does not yield to JS between
// that call and coder/websocket's synchronous new WebSocket(...), so no
// other code sees the subclass; afterDial removes it should the dial not
// have reached the constructor.
type failFast struct {
	mcplive.Transport
	hooks *hooks
}

// wrapTransport returns t, fail-fast when it dials WebSockets.
func wrapTransport(t mcplive.Transport, h *hooks) mcplive.Transport {
	if _, ws := t.(*mcplive.WebSocketTransport); ws {
		return failFast{Transport: t, hooks: h}
	}
	return t
}

func (t failFast) Connect(ctx context.Context) (mcplive.Conn, error) {
	token := t.hooks.beforeDial()
	defer t.hooks.afterDial(token)
	return t.Transport.Connect(ctx)
}
