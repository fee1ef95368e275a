package jsonrpc

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/printf"
)

// Connection runs JSON-RPC 2.0 over a Conn: integer ids, pending requests
// matched by id, notifications handed to one dispatcher goroutine in arrival
// order, server requests answered (ping with {}, those of handlers by their
// handler, anything else with -32601).
type Connection struct {
	conn     Conn
	log      Logger
	notify   func(m *Message)   // called by the dispatcher, in order
	observe  func(m *Message)   // called by the read loop, in order, before notify; must not block
	handlers map[string]Handler // server requests answered besides ping
	marshal  func(any) ([]byte, error)

	nextID   atomic.Int64
	answered atomic.Bool   // a response was delivered (badMessage)
	timeout  time.Duration // bounds every request but a long one (CallWith)

	mu       sync.Mutex
	pending  map[int64]*pendingCall
	sweep    *time.Timer                   // fails the requests whose time is up (sweepExpired)
	sweepAt  time.Duration                 // when sweep fires, on Clock; 0: not armed
	serving  map[string]context.CancelFunc // server requests being handled, by raw id
	closed   bool
	closeErr error

	queue        Fifo[*Message]
	inHandler    atomic.Bool // the dispatcher is running notify (see Close)
	dispatchDone chan struct{}
	done         chan struct{} // closed when the connection is finished
	wg           sync.WaitGroup
	closeOnce    sync.Once
}

// Logger receives the connection's diagnostics (the root package's
// Logger, *slog.Logger, satisfy it).
type Logger interface {
	Info(msg string, args ...any)
	Warn(msg string, args ...any)
	Error(msg string, args ...any)
}

// Handler answers one server→client request: its result, or an
// error (an *RPCError is sent as it is, any other as -32603).
type Handler func(ctx context.Context, params jsontext.RawMessage) (any, error)

// Options is what a Connection is handed by the layer above it.
type Options struct {
	Log Logger
	// Observe, when not nil, is shown each notification on the read loop,
	// in order with the responses; it must not block.
	Observe func(*Message)
	// Notify is handed each notification by the dispatcher, in arrival
	// order, after Observe.
	Notify func(*Message)
	// Handlers answer the server's requests besides ping, by method.
	Handlers map[string]Handler
	// Timeout bounds each request (but those of CallWith, which only their
	// context ends); 0 means no bound.
	Timeout time.Duration
	// Marshal encodes params that do not write themselves (ParamsWriter)
	// and the results of Handlers, as json.Marshal does.
	Marshal func(any) ([]byte, error)
}

// New starts serving conn.
func New(conn Conn, o Options) *Connection {
	c := &Connection{
		conn:         conn,
		log:          o.Log,
		notify:       o.Notify,
		observe:      o.Observe,
		handlers:     o.Handlers,
		timeout:      o.Timeout,
		marshal:      o.Marshal,
		pending:      make(map[int64]*pendingCall),
		serving:      make(map[string]context.CancelFunc),
		done:         make(chan struct{}),
		dispatchDone: make(chan struct{}),
	}
	c.queue.Init()
	c.wg.Add(1)
	go c.readLoop()
	go c.dispatchLoop()
	return c
}

// Conn is the transport the connection runs over.
func (c *Connection) Conn() Conn { return c.conn }

// Done is closed when the connection has ended.
func (c *Connection) Done() <-chan struct{} { return c.done }

// Err says why the connection ended; nil while it is open.
func (c *Connection) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeErr
}

// Close ends the connection, fails the pending requests with ErrClosed and
// waits for the connection's goroutines to exit. It never waits on the
// notification handler: while the dispatcher runs one (which may be
// Close's own caller), Close returns without waiting for it, and the
// dispatcher ends once it has handled what arrived before the close.
func (c *Connection) Close() error {
	c.Shutdown(printf.Errorf("%w by the client", ErrClosed))
	c.wg.Wait()
	if !c.inHandler.Load() {
		<-c.dispatchDone
	}
	return nil
}

// shutdown records why the connection ends (first reason wins), closes the
// transport and fails every pending request.
func (c *Connection) Shutdown(reason error) {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.closeErr = reason
		pending, serving := c.pending, c.serving
		c.pending, c.serving = nil, nil
		if c.sweep != nil {
			c.sweep.Stop()
		}
		c.mu.Unlock()
		for _, cancel := range serving {
			cancel() // the server's requests in flight end with the connection
		}
		// Done first, so that a caller whose request fails here finds the
		// connection already ended; then fail the callers; the transport
		// last: closing it waits for the peer's half of the close
		// handshake, which a dead or hostile peer may never send.
		close(c.done)
		for _, p := range pending {
			close(p.ch) // a closed channel tells the caller: connection gone
		}
		c.queue.Close()
		c.conn.Close()
	})
}

func (c *Connection) readLoop() {
	defer c.wg.Done()
	read := func(ctx context.Context) (Inbound, error) {
		data, err := c.conn.Read(ctx)
		return Inbound{Msg: data}, err
	}
	if r, ok := c.conn.(EntryReader); ok {
		read = r.ReadEntry
	}
	for {
		in, err := read(context.Background())
		if err != nil {
			c.Shutdown(err)
			return
		}
		switch {
		case in.Gap, in.Liveness:
			c.queue.Push(&Message{Gap: in.Gap, Liveness: in.Liveness, Arrived: Clock()})
			continue
		case in.Fail != nil:
			// The transport lost this request's answer (its stream broke
			// or ended without it): the request fails, the others go on.
			c.failPending(in.ForID, in.Fail)
			continue
		}
		data := in.Msg
		m, kind, err := Decode(data)
		if err != nil {
			c.badMessage(in, err)
			continue
		}
		if in.Sole && !(kind == KindResponse && bytes.Equal(bytes.TrimSpace(m.ID), in.ForID)) {
			// A request's own JSON answer that is not the response to it:
			// that response will not come; the request fails at once.
			got := "a message without an id"
			switch {
			case kind == KindResponse && m.Error != nil && !IsIntID(m.ID):
				// The server's error about a message it could not read
				// (a null id): on this request's POST, it is this one's.
				c.failPending(in.ForID, m.Error)
				continue
			case kind == KindResponse:
				got = "the response to id " + string(m.ID)
			case kind == KindNotification:
				got = "the notification " + strconv.Quote(m.Method)
			case kind == KindRequest:
				got = "the request " + strconv.Quote(m.Method)
			}
			c.failPending(in.ForID, ProtocolError("the server answered request %s with %s, not with the response to it: %s", in.ForID, got, jsontext.Snippet(data)))
			if kind == KindResponse {
				continue // not delivered: an answer on another request's POST is no answer
			}
		}
		switch kind {
		case KindResponse:
			c.deliver(m)
		case KindNotification:
			if m.Method == methods.NotifyCancelled {
				c.cancelServing(m.Params) // at once: the dispatcher may be busy
			}
			if c.observe != nil {
				c.observe(m)
			}
			m.Arrived = Clock()
			c.queue.Push(m)
		case KindRequest:
			c.answer(m)
		}
	}
}

// badMessage deals with a message that is not one JSON-RPC message. It
// never ends the connection (one bad message is no reason to fail every
// request in flight, and a message-framed transport cannot be thrown out of
// step by one): a message that answers a request fails that request at
// once, quoting it — the request whose POST carried it (Streamable HTTP),
// or the pending request its id names; anything else (a bad notification,
// a message no request can be told from) is reported and skipped.
func (c *Connection) badMessage(in Inbound, err error) {
	id, hasID, hasMethod := salvageID(in.Msg)
	switch {
	case hasID && c.isPending(id):
		c.failPending(id, err)
	case in.ForID != nil && (in.Sole || !hasMethod):
		c.failPending(in.ForID, err)
	case !hasMethod && !c.answered.Load() && c.onlyPending() != nil:
		// Nothing was answered yet on this connection and one request
		// waits (initialize, server/discover): what came is its answer,
		// and the server is no MCP server; the opening fails at once.
		c.failPending(c.onlyPending(), err)
	default:
		c.log.Warn("mcplive: skipped a message that is not one JSON-RPC message", "err", err.Error())
	}
}

// salvageID reads what it can of a message that did not decode: its
// integer id (a response to one of ours) and whether it names a method.
func salvageID(msg []byte) (id jsontext.RawMessage, hasID, hasMethod bool) {
	msg = bytes.TrimPrefix(bytes.TrimLeft(msg, " \t\r\n"), []byte("\xEF\xBB\xBF"))
	jsontext.WalkMembersUntil(msg, nil, func(key, val []byte) bool {
		switch {
		case jsontext.IsKey(key, "id"):
			if _, ok := ParseID(val); ok {
				id, hasID = jsontext.RawMessage(val), true
			}
		case jsontext.IsKey(key, "method"):
			hasMethod = len(val) > 0 && val[0] == '"'
		}
		return false
	})
	return id, hasID, hasMethod
}

// onlyPending returns the id of the one pending request, or nil when
// there are none or several.
func (c *Connection) onlyPending() jsontext.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) != 1 {
		return nil
	}
	for id := range c.pending {
		return jsontext.RawMessage(strconv.FormatInt(id, 10))
	}
	return nil
}

// IsIntID reports an integer id (the only kind this client sends).
func IsIntID(id jsontext.RawMessage) bool {
	_, ok := ParseID(id)
	return ok
}

// isPending reports whether request id is waiting for its response.
func (c *Connection) isPending(id jsontext.RawMessage) bool {
	n, ok := ParseID(id)
	if !ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok = c.pending[n]
	return ok
}

// failPending fails the pending request id with err (a response that
// carries a Go error); a request no longer pending is left alone.
func (c *Connection) failPending(id jsontext.RawMessage, err error) {
	n, ok := ParseID(bytes.TrimSpace(id))
	if !ok {
		return
	}
	c.mu.Lock()
	p, ok := c.pending[n]
	if ok {
		delete(c.pending, n)
	}
	c.mu.Unlock()
	if ok {
		p.ch <- &Message{fail: err} // buffered, never blocks
	}
}

func (c *Connection) deliver(m *Message) {
	id, ok := ParseID(m.ID)
	if !ok {
		if m.Error != nil {
			// An error with a null id: the server could not read one of our
			// messages. JSON-RPC gives no way to tell which.
			c.log.Warn("mcplive: server reported an error without a request id", "code", m.Error.Code, "message", m.Error.Message)
			return
		}
		c.log.Warn("mcplive: dropped a response with a non-integer id", "id", string(m.ID))
		return
	}
	c.answered.Store(true)
	c.mu.Lock()
	p, ok := c.pending[id]
	if ok {
		delete(c.pending, id)
	}
	c.mu.Unlock()
	if !ok {
		c.log.Warn("mcplive: dropped a response for an unknown, finished, timed-out or cancelled request", "id", id)
		return
	}
	p.ch <- m // buffered, never blocks
}

// answer replies to a server→client request off the read loop.
func (c *Connection) answer(m *Message) {
	if h := c.handlers[m.Method]; h != nil {
		c.serve(m, h)
		return
	}
	resp := Message{JSONRPC: "2.0", ID: m.ID}
	if m.Method == methods.Ping {
		resp.Result = jsontext.RawMessage("{}")
	} else {
		c.log.Info("mcplive: answered an unsupported server request", "method", m.Method)
		resp.Error = &RPCError{Code: CodeMethodNotFound, Message: "method not found: " + m.Method}
	}
	b, err := Encode(&resp)
	if err != nil {
		return
	}
	c.writeLater(b, "") // a response
}

// Notify sends a notification.
func (c *Connection) Notify(ctx context.Context, method string, params any) error {
	b, err := MarshalMessage(nil, method, params, c.marshal)
	if err != nil {
		return err
	}
	return c.write(ctx, b, nil, method, params)
}

// Call sends a request and waits for its response. When ctx ends first, or
// the connection's request timeout, the request is cancelled with
// notifications/cancelled and ctx's error returned (for the timeout:
// context.DeadlineExceeded).
func (c *Connection) Call(ctx context.Context, method string, params any) (jsontext.RawMessage, error) {
	return c.result(c.exchange(ctx, method, params, c.timeout, nil, nil))
}

// CallWith is a long-lived call (no request timeout: only ctx ends it) that
// tells onID the request's id before the request is sent, so that what the
// server sends about it (a listen stream's acknowledgment) can be matched to
// it.
func (c *Connection) CallWith(ctx context.Context, method string, params any, onID func(int64)) (jsontext.RawMessage, error) {
	return c.result(c.exchange(ctx, method, params, 0, onID, nil))
}

// result checks a response's result.
func (c *Connection) result(m *Message, err error) (jsontext.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	if err := m.validateResult(); err != nil {
		return nil, ProtocolError("the result is not valid JSON (%v): %s", err, jsontext.Snippet(m.Result))
	}
	return m.Result, nil
}

// CallUnchecked is Call for a result whose reader validates it (a list
// page: parseListPage and the walk's builders; see parseEnvelope): the
// response, with the index of its result when the envelope made one.
// afterSend, when not nil, runs once the request is written, before the
// wait for its response (a walk reads the previous page while the server
// makes this one). The request timeout bounds it, as call.
func (c *Connection) CallUnchecked(ctx context.Context, method string, params any, afterSend func()) (*Message, error) {
	return c.exchange(ctx, method, params, c.timeout, nil, afterSend)
}

// exchange sends a request and waits for its response, whose result is not
// validated yet (see parseEnvelope), for up to timeout (0: no bound; the
// sweeper, sweepExpired, ends it). afterSend: see CallUnchecked.
func (c *Connection) exchange(ctx context.Context, method string, params any, timeout time.Duration, onID func(int64), afterSend func()) (*Message, error) {
	id := c.nextID.Add(1)
	if onID != nil {
		onID(id)
	}
	b, err := MarshalMessage(&id, method, params, c.marshal)
	if err != nil {
		return nil, err
	}
	p := &pendingCall{ch: make(chan *Message, 1)}
	wctx := ctx
	if timeout > 0 {
		p.deadline = Clock() + timeout
		p.wctx = &callCtx{parent: ctx, deadline: p.deadline}
		wctx = p.wctx
		// The write's context ends with the request (a Streamable HTTP
		// response stream is read under it).
		defer p.wctx.cancel(context.Canceled)
	}
	c.mu.Lock()
	if c.closed {
		err := c.closeErr
		c.mu.Unlock()
		// Never written: the caller may send it on the next connection.
		return nil, &notSent{ConnLost(err)}
	}
	c.pending[id] = p
	if timeout > 0 {
		c.armLocked(p.deadline)
	}
	c.mu.Unlock()

	if err := c.write(wctx, b, &id, method, params); err != nil {
		c.forget(id)
		if errors.Is(err, ErrNotSent) {
			// The connection ends with it (the transport failed it): the
			// caller learns of the end first, as of any other request's.
			<-c.done
		}
		if cerr := wctx.Err(); cerr != nil {
			return nil, cerr // the caller's context, or the request timeout
		}
		return nil, err
	}
	if timeout > 0 {
		c.mu.Lock()
		p.sent = true
		tell := p.expired // timed out while being written: the sweeper left this to us
		c.mu.Unlock()
		if tell {
			c.cancelRequest(id, context.DeadlineExceeded)
		}
	}
	if afterSend != nil {
		afterSend()
	}
	select {
	case m, ok := <-p.ch:
		if !ok {
			return nil, ConnLost(c.Err())
		}
		if m == timedOut { // the server has been told (see sweepExpired)
			return nil, context.DeadlineExceeded
		}
		if m.fail != nil {
			return nil, m.fail
		}
		if m.Error != nil {
			return nil, m.Error
		}
		return m, nil
	case <-ctx.Done():
		if c.forget(id) {
			c.cancelRequest(id, ctx.Err())
		}
		return nil, ctx.Err()
	}
}

// forget removes a pending request; it reports whether it was still pending.
func (c *Connection) forget(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; ok {
		delete(c.pending, id)
		return true
	}
	return false
}

// Forget removes a pending request (its call then waits for its own
// context); it reports whether it was still pending.
func (c *Connection) Forget(id int64) bool { return c.forget(id) }

// CancelPending tells the server to stop working on request id
// (notifications/cancelled) and keeps the request pending, for a caller
// that wants to hear how the server answers the cancellation; Forget ends
// the wait.
func (c *Connection) CancelPending(id int64) { c.cancelRequest(id, context.Canceled) }

// cancelRequest tells the server to stop working on request id.
func (c *Connection) cancelRequest(id int64, why error) {
	reason := "cancelled by the client"
	if errors.Is(why, context.DeadlineExceeded) {
		reason = "timed out"
	}
	b, err := MarshalMessage(nil, methods.NotifyCancelled, map[string]any{"requestId": id, "reason": reason}, c.marshal)
	if err != nil {
		return
	}
	c.writeLater(b, methods.NotifyCancelled)
}

// writeLater sends b from a goroutine of its own, which Close waits for:
// for writes that the read loop or a returning call must not wait on. A
// failed write ends the connection. method describes it (see write; "" for
// a response).
func (c *Connection) writeLater(b []byte, method string) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		if err := c.write(context.Background(), b, nil, method, nil); err != nil {
			c.Shutdown(err)
		}
	}()
}

// write sends one message (b, the encoding of id, method and params). A
// transport that takes the message's description (DescribedWriter) is
// handed it, made only then: over WebSocket nothing is described.
func (c *Connection) write(ctx context.Context, b []byte, id *int64, method string, params any) error {
	if dw, ok := c.conn.(DescribedWriter); ok {
		return dw.WriteDescribed(ctx, b, Describe(id, method, params))
	}
	return c.conn.Write(ctx, b)
}
