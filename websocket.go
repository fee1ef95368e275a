package mcplive

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/printf"
)

// Close codes this package uses. Browsers accept only 1000 and 3000–4999 from
// scripts, so protocol failures use the 4000 range.
const (
	closeNormal       = websocket.StatusNormalClosure
	closeProtocol     = websocket.StatusCode(4002)
	closeMessageLarge = websocket.StatusCode(4009)
)

// WebSocketTransport dials an MCP server over WebSocket: subprotocol "mcp",
// one JSON-RPC message per UTF-8 text frame. It works natively and in
// browsers and Node when compiled to WebAssembly.
type WebSocketTransport struct {
	// URL is the ws:// or wss:// endpoint. Browsers cannot send headers on
	// a WebSocket: put credentials in the URL.
	URL string
	// ReadLimit caps the size of one incoming message in bytes. Zero means
	// DefaultReadLimit (16 MiB).
	ReadLimit int64
	// DialTimeout bounds the opening handshake. Zero means
	// DefaultDialTimeout (10 s).
	DialTimeout time.Duration
}

// Connect dials t.URL.
func (t *WebSocketTransport) Connect(ctx context.Context) (Conn, error) {
	if !strings.HasPrefix(t.URL, "ws://") && !strings.HasPrefix(t.URL, "wss://") {
		return nil, printf.Errorf("mcplive: dial %q: a WebSocket URL starts with ws:// or wss://", shownURL(t.URL))
	}
	timeout := t.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	limit := t.ReadLimit
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := dialWebSocket(dctx, t.URL)
	if err != nil {
		if errors.Is(dctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, printf.Errorf("mcplive: dial %s: no answer within %v: %w (%w)", shownURL(t.URL), timeout, ErrTimeout, ErrDial)
		}
		if ctx.Err() != nil {
			return nil, printf.Errorf("mcplive: dial %s: %w", shownURL(t.URL), ctx.Err())
		}
		derr := withAdvice(printf.Errorf("mcplive: dial %s: %w (%s)", shownURL(t.URL), ErrDial, scrubURL(err.Error(), t.URL)), "is the server up, the path right, this page's Origin allowed and the token accepted?")
		return nil, probeFailedDial(dctx, t.URL, derr)
	}
	// The library's own limit closes with 1009, which browsers refuse (and
	// in the browser build it is checked only after the whole message
	// arrived). Read wraps the limit itself and closes with a 4000-range
	// code; natively it still stops reading at limit+1 bytes.
	c.SetReadLimit(-1)
	useTextFrames(c)
	return &wsConn{c: c, limit: limit}, nil
}

// dialWebSocket dials and recovers the panic coder/websocket raises when the
// JS environment has no WebSocket global.
func dialWebSocket(ctx context.Context, url string) (c *websocket.Conn, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = printf.Errorf("this JavaScript environment has no WebSocket (Node 20 needs --experimental-websocket): %v", r)
		}
	}()
	c, _, err = websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"mcp"}})
	return c, err
}

type wsConn struct {
	c     *websocket.Conn
	limit int64

	mu          sync.Mutex
	closeCode   websocket.StatusCode // for Close; set by a violation
	closeReason string
}

func (w *wsConn) Read(ctx context.Context) ([]byte, error) {
	typ, data, err := w.readMessage(ctx)
	if err != nil {
		return nil, w.readErr(err)
	}
	if typ != websocket.MessageText {
		w.planClose(closeProtocol, "binary frames are not MCP messages")
		return nil, jsonrpc.ProtocolError("server sent a binary frame; MCP over WebSocket uses one JSON-RPC message per text frame")
	}
	if int64(len(data)) > w.limit {
		w.planClose(closeMessageLarge, "message too big")
		return nil, printf.Errorf("%w: message larger than the read limit of %d bytes", ErrProtocol, w.limit)
	}
	return data, nil
}

func (w *wsConn) readErr(err error) error {
	if cs := websocket.CloseStatus(err); cs != -1 {
		return printf.Errorf("%w: server closed the connection with code %d", ErrClosed, cs)
	}
	return printf.Errorf("%w: %v", ErrClosed, err)
}

// planClose sets the code and reason of the coming Close. A violation
// does not close at once: the close handshake waits for the peer, and the
// caller should learn of the violation first.
func (w *wsConn) planClose(code websocket.StatusCode, reason string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closeCode == 0 {
		w.closeCode, w.closeReason = code, reason
	}
}

// writeTimeout bounds one frame's write once it has started. A write that
// takes longer means a peer that stopped reading: the connection is closed.
const writeTimeout = 10 * time.Second

// Write sends msg. coder/websocket closes the whole connection when the
// context of a Write ends mid-frame, so the caller's cancellation (a user
// aborting one call) only stops a write that has not started; once started
// the frame is finished, bounded by writeTimeout.
func (w *wsConn) Write(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := w.writeMessage(ctx, msg); err != nil {
		return printf.Errorf("%w: write: %v", ErrClosed, err)
	}
	return nil
}

func (w *wsConn) Close() error {
	w.mu.Lock()
	code, reason := w.closeCode, w.closeReason
	w.mu.Unlock()
	if code == 0 {
		code = closeNormal
	}
	// An error here means the peer went away first or closed already:
	// either way nothing is left open.
	_ = w.c.Close(code, reason)
	return nil
}

func (t *WebSocketTransport) configured(o Options) Transport {
	c := *t
	o.fillLimits(&c.ReadLimit, &c.DialTimeout)
	return &c
}
