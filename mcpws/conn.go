package mcpws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Subprotocol is the WebSocket subprotocol of MCP, offered by clients and
// selected by servers.
const Subprotocol = "mcp"

// DefaultReadLimit is the largest message, in bytes, read when no other limit
// is set. MCP list results are often far bigger than the 32 KiB that
// github.com/coder/websocket allows by default.
const DefaultReadLimit = 16 << 20

// Close codes sent by this package when the peer breaks the MCP-over-WebSocket
// convention: 4000 plus the matching standard code, because browsers and
// other clients expect 1000 or the 4000–4999 range from an application.
const (
	// StatusProtocolError: a text frame that is not exactly one JSON-RPC
	// message, such as a batch array or invalid JSON.
	StatusProtocolError websocket.StatusCode = 4002
	// StatusUnsupportedData: a binary frame.
	StatusUnsupportedData websocket.StatusCode = 4003
	// StatusMessageTooBig: a message over the read limit.
	StatusMessageTooBig websocket.StatusCode = 4009
	// StatusInternalError: the server could not start a session.
	StatusInternalError websocket.StatusCode = 4011
)

// Errors returned by Read of a connection (wrapped) when the peer breaks the
// convention; the connection is closed with the matching close code.
var (
	ErrBinaryFrame     = errors.New("mcpws: binary frame (MCP uses text frames)")
	ErrBatch           = errors.New("mcpws: JSON-RPC batch (MCP over WebSocket sends one message per frame)")
	ErrInvalidMessage  = errors.New("mcpws: invalid JSON-RPC message")
	ErrMessageTooBig   = errors.New("mcpws: message over the read limit")
	reasonShuttingDown = "server shutting down"
)

// Transport is an [mcp.Transport] over a WebSocket connection that the caller
// accepted or dialed itself; [Handler] and [ClientTransport] build on it.
// Connect may be called only once: the connection belongs to the returned
// [mcp.Connection], whose Close closes the WebSocket with code 1000.
type Transport struct {
	// Conn is the WebSocket connection. Its own read limit is replaced by
	// ReadLimit.
	Conn *websocket.Conn
	// ReadLimit is the largest message accepted, in bytes: 0 means
	// [DefaultReadLimit], a negative value means no limit. A bigger message
	// closes the connection with [StatusMessageTooBig].
	ReadLimit int64
	// SessionID is returned by the connection's SessionID method, and so by
	// [mcp.ServerSession.ID] and [mcp.ClientSession.ID].
	SessionID string
}

// Connect implements [mcp.Transport].
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	if t.Conn == nil {
		return nil, errors.New("mcpws: Transport.Conn is nil")
	}
	return newConn(t.Conn, t.ReadLimit, t.SessionID), nil
}

// conn implements mcp.Connection over a WebSocket.
//
// Concurrency: Read is called by one goroutine at a time; Write may be called
// concurrently with itself and with Read (coder/websocket serializes frames);
// Close may be called at any time, any number of times, and unblocks Read.
type conn struct {
	ws        *websocket.Conn
	limit     int64
	sessionID string

	mu     sync.Mutex
	closed bool                 // a close was started
	code   websocket.StatusCode // code of the close (sent or planned)
	reason string
	done   chan struct{} // closed when the close handshake ended
	// peer is the close frame received from the peer, if any.
	peer *websocket.CloseError
	// gate, if not nil, holds back the first Read until it is closed, so
	// that Handler's OnConnect runs before any client message is handled.
	gate chan struct{}
}

func newConn(ws *websocket.Conn, limit int64, sessionID string) *conn {
	if limit == 0 {
		limit = DefaultReadLimit
	}
	// The limit is enforced here, so that a violation closes with a code
	// in the 4000 range instead of coder/websocket's 1009.
	ws.SetReadLimit(-1)
	return &conn{
		ws:        ws,
		limit:     limit,
		sessionID: sessionID,
		code:      websocket.StatusNormalClosure,
		done:      make(chan struct{}),
	}
}

// Read implements [mcp.Connection].
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-c.done:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	typ, r, err := c.ws.Reader(ctx)
	if err != nil {
		return nil, c.readError(err)
	}
	if typ != websocket.MessageText {
		return nil, c.fail(StatusUnsupportedData, "binary frames are not supported", ErrBinaryFrame)
	}
	lr := r
	if c.limit > 0 {
		lr = io.LimitReader(r, c.limit+1)
	}
	data, err := io.ReadAll(lr)
	if err != nil {
		return nil, c.readError(err)
	}
	if c.limit > 0 && int64(len(data)) > c.limit {
		reason := fmt.Sprintf("message over the read limit of %d bytes", c.limit)
		return nil, c.fail(StatusMessageTooBig, reason, ErrMessageTooBig)
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return nil, c.fail(StatusProtocolError, "JSON-RPC batches are not supported", ErrBatch)
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		c.fail(StatusProtocolError, "invalid JSON-RPC message", ErrInvalidMessage)
		return nil, fmt.Errorf("%w: %v", ErrInvalidMessage, err)
	}
	return msg, nil
}

// readError maps the end of the WebSocket to the errors go-sdk expects:
// io.EOF for an orderly close by either side, so that Wait reports no error.
func (c *conn) readError(err error) error {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		c.mu.Lock()
		c.peer = &ce
		c.mu.Unlock()
		if ce.Code == websocket.StatusNormalClosure || ce.Code == websocket.StatusGoingAway {
			return io.EOF
		}
		return fmt.Errorf("mcpws: peer closed the connection: %w", err)
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed && errors.Is(err, net.ErrClosed) {
		return io.EOF
	}
	return fmt.Errorf("mcpws: read: %w", err)
}

// fail closes the connection with code and reason and returns err.
func (c *conn) fail(code websocket.StatusCode, reason string, err error) error {
	c.closeWith(code, reason)
	return err
}

// writeTimeout bounds one message's write once it has started: a write
// that takes longer means a peer that stopped reading, and the connection
// is closed.
const writeTimeout = 10 * time.Second

// Write implements [mcp.Connection]. go-sdk writes with the context of the
// request concerned (a server→client request such as elicitation/create
// with the tool's context), and coder/websocket closes the whole
// connection when a Write's context ends while the frame is written — and
// also when it ends right after the frame went out, before the write
// returned. So one cancelled request would close the connection of every
// other: the context only stops a write that has not started; once
// started, the frame is finished, bounded by writeTimeout.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcpws: encode message: %w", err)
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if err := c.ws.Write(wctx, websocket.MessageText, data); err != nil {
		return fmt.Errorf("mcpws: write: %w", err)
	}
	return nil
}

// Close implements [mcp.Connection]: it closes the WebSocket with code 1000,
// or with the code set by an earlier planClose.
func (c *conn) Close() error {
	c.mu.Lock()
	code, reason := c.code, c.reason
	c.mu.Unlock()
	c.closeWith(code, reason)
	return nil
}

// planClose sets the code and reason used by a later Close, unless a close
// already started. It lets a graceful session shutdown end with a reason.
func (c *conn) planClose(code websocket.StatusCode, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.code, c.reason = code, reason
	}
}

// closeWith runs the close handshake once; later calls wait for it to end.
func (c *conn) closeWith(code websocket.StatusCode, reason string) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.done
		return
	}
	c.closed = true
	c.code, c.reason = code, reason
	c.mu.Unlock()
	_ = c.ws.Close(code, reason)
	close(c.done)
}

// closeStatus reports how the connection ended, for logs: the close frame
// received from the peer if it closed first, else the one sent.
func (c *conn) closeStatus() (code websocket.StatusCode, reason string, byPeer bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.peer != nil && (!c.closed || c.peer.Code != c.code || c.peer.Reason != c.reason) {
		return c.peer.Code, c.peer.Reason, true
	}
	if c.closed {
		return c.code, c.reason, false
	}
	return -1, "", false
}

// SessionID implements [mcp.Connection].
func (c *conn) SessionID() string { return c.sessionID }
