package mcplive

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

// wireMessage is any JSON-RPC 2.0 message as it travels.
type wireMessage struct {
	JSONRPC string     `json:"jsonrpc"`
	ID      RawMessage `json:"id,omitempty"`
	Method  string     `json:"method,omitempty"`
	Params  RawMessage `json:"params,omitempty"`
	Result  RawMessage `json:"result,omitempty"`
	Error   *RPCError  `json:"error,omitempty"`

	// arrived is when the read loop got a notification, on clock()
	// (arrivedAt). Not a time.Time: encoding/json reflects on this type,
	// and a time.Time among its fields would keep time's parser and
	// formatter (~60 KB) in the wasm through its methods.
	arrived time.Duration `json:"-"`
	// gap, set only on entries the read loop queues itself, says that
	// messages may have been missed here (entryReader): the dispatcher hands
	// it to the handler of notifications like one.
	gap bool `json:"-"`
	// liveness, set only on entries the read loop queues itself, says
	// that the transport's pushes changed (entryReader).
	liveness bool `json:"-"`
	// index is Result read in the envelope's pass, when it is an object
	// (see parseEnvelope); nil otherwise.
	index *resultIndex `json:"-"`
	// fail, set only on entries the read loop hands a pending request
	// itself, is why the request failed without a response (failPending).
	fail error `json:"-"`
}

// msgKind classifies a decoded message.
type msgKind int

const (
	kindRequest msgKind = iota + 1
	kindNotification
	kindResponse
)

// decodeMessage parses one JSON-RPC message and checks its shape. It never
// panics, whatever the input; every failure wraps ErrProtocol.
func decodeMessage(data []byte) (*wireMessage, msgKind, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, 0, protocolError("empty message")
	}
	switch trimmed[0] {
	case '[':
		return nil, 0, protocolError("server sent a JSON-RPC batch (array), which MCP does not use: %s", jsontext.Snippet(data))
	case '{':
	default:
		return nil, 0, protocolError("message is not a JSON object: %s", jsontext.Snippet(data))
	}
	m, err := parseEnvelope(data)
	if err != nil {
		return nil, 0, protocolError("message is not valid JSON-RPC (%v): %s", err, jsontext.Snippet(data))
	}
	if m.JSONRPC != "2.0" {
		return nil, 0, protocolError(`message lacks "jsonrpc": "2.0": %s`, jsontext.Snippet(data))
	}
	if len(m.ID) > 0 {
		// The JSON is valid, so its first byte tells the type.
		switch m.ID[0] {
		case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		default:
			return nil, 0, protocolError("message id must be a string, a number or null: %s", jsontext.Snippet(data))
		}
	}
	hasID := len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null"))
	switch {
	case m.Method != "":
		if m.Result != nil || m.Error != nil {
			return nil, 0, protocolError("message has both a method and a result or error: %s", jsontext.Snippet(data))
		}
		if hasID {
			return m, kindRequest, nil
		}
		if len(m.ID) > 0 {
			return nil, 0, protocolError("request with a null id: %s", jsontext.Snippet(data))
		}
		return m, kindNotification, nil
	case m.Error != nil:
		if m.Result != nil {
			return nil, 0, protocolError("response has both a result and an error: %s", jsontext.Snippet(data))
		}
		return m, kindResponse, nil // the id may be null: see readLoop
	case m.Result != nil:
		if !hasID {
			return nil, 0, protocolError("response without an id: %s", jsontext.Snippet(data))
		}
		return m, kindResponse, nil
	default:
		return nil, 0, protocolError("message is neither a request, a notification nor a response: %s", jsontext.Snippet(data))
	}
}

// parseEnvelope validates data as one JSON object and picks the members of
// a JSON-RPC message out of it. The raw members (id, params, result) are
// sub-slices of data, which the caller owns and never reuses. Member names
// match exactly (encoding/json would also take "ID" for "id"); a repeated
// member keeps its last value, as with encoding/json.
//
// The one exception to the validation is a response's result: when it is
// an object, the same pass reads its members (indexResult) and splits the
// arrays among them into their elements, without validating those; any
// other result is only passed over, every bound checked. rpcConn.callWith
// validates what was not before its caller sees the result; a list walk
// (callUnchecked) takes the index and validates only the items that it
// did not see before — an unchanged item is byte for byte one validated
// when it was new. In wasm, where a pass over a 26 KB page of a
// 10,000-tool list costs ~200 µs, a page is read once, not three times.
func parseEnvelope(data []byte) (*wireMessage, error) {
	var m wireMessage
	isObject, err := jsontext.ForEachMemberWith(data, func(b, key []byte, i int) (int, error) {
		if !jsontext.IsKey(key, "result") {
			return 0, nil
		}
		m.index = nil
		if b[i] == '{' {
			if idx, end, err := indexResult(b, i, 2); err == nil {
				m.index = idx
				return end, nil
			}
		}
		return jsontext.SkipUnchecked(b, key, i)
	}, func(key string, val []byte) error {
		switch key {
		case "jsonrpc":
			if val[0] != '"' {
				return printf.Errorf(`"jsonrpc" is not a string`)
			}
			m.JSONRPC = jsontext.Unquote(val)
		case "id":
			m.ID = RawMessage(val)
		case "method":
			switch val[0] {
			case '"':
				m.Method = jsontext.Unquote(val)
			case 'n':
				m.Method = ""
			default:
				return printf.Errorf(`"method" is not a string`)
			}
		case "params":
			m.Params = RawMessage(val)
		case "result":
			m.Result = RawMessage(val)
		case "error":
			m.Error = nil
			if val[0] == 'n' {
				return nil
			}
			var e RPCError
			if err := decodeRPCError(val, &e); err != nil {
				return printf.Errorf(`bad "error": %v`, err)
			}
			m.Error = &e
		}
		return nil
	})
	if err == nil && !isObject {
		err = errors.New("not a JSON object")
	}
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// resultIndex is a result object as the envelope's pass read it: its
// members in order, each validated but for the elements of an array,
// which are split and not validated (see parseEnvelope).
type resultIndex struct {
	members []resultMember
}

// resultMember is one member of a result: its key token (with quotes),
// its value, and for an array its elements.
type resultMember struct {
	key, val []byte
	items    []jsontext.Ref
	array    bool
}

// indexResult reads the result object at b[i], at nesting depth depth:
// its index and its end, or why it is not valid as indexResult checks it
// (in a message, the envelope then leaves the error to the result's
// reader).
func indexResult(b []byte, i, depth int) (*resultIndex, int, error) {
	idx := &resultIndex{members: make([]resultMember, 0, 4)}
	end, err := jsontext.ScanObjectWith(b, i, depth, func(b, key []byte, i int) (int, error) {
		if b[i] != '[' {
			return 0, nil
		}
		// Room for one element per ~200 bytes that follow (a list page's
		// items are rarely smaller): one allocation, not one per doubling.
		items, end, ok := jsontext.SplitArrayAt(b, i, make([]jsontext.Ref, 0, (len(b)-i)/200+4))
		if !ok {
			return 0, nil // the scanner says what is wrong
		}
		idx.members = append(idx.members, resultMember{key: key, val: b[i:end:end], items: items, array: true})
		return end, nil
	}, func(key, val []byte) error {
		if n := len(idx.members); n == 0 || !idx.members[n-1].array || &idx.members[n-1].val[0] != &val[0] {
			idx.members = append(idx.members, resultMember{key: key, val: val})
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return idx, end, nil
}

// validateResult validates what the envelope's pass did not of a
// response's result: the elements of its arrays, or all of it without an
// index.
func (m *wireMessage) validateResult() error {
	if m.index == nil {
		return jsontext.Check(m.Result)
	}
	for _, mem := range m.index.members {
		for _, it := range mem.items {
			if err := jsontext.Check(it); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseID returns the integer id of a response, or false.
func parseID(raw RawMessage) (int64, bool) {
	id, err := strconv.ParseInt(string(raw), 10, 64)
	return id, err == nil
}

// rpcConn runs JSON-RPC 2.0 over a Conn: integer ids, pending requests
// matched by id, notifications handed to one dispatcher goroutine in arrival
// order, server requests answered (ping with {}, those of handlers by their
// handler, anything else with -32601).
type rpcConn struct {
	conn     Conn
	log      Logger
	notify   func(m *wireMessage)      // called by the dispatcher, in order
	observe  func(m *wireMessage)      // called by the read loop, in order, before notify; must not block
	handlers map[string]requestHandler // server requests answered besides ping

	nextID   atomic.Int64
	answered atomic.Bool   // a response was delivered (badMessage)
	timeout  time.Duration // bounds every request but a long one (callWith)

	mu       sync.Mutex
	pending  map[int64]*pendingCall
	sweep    *time.Timer                   // fails the requests whose time is up (sweepExpired)
	sweepAt  time.Duration                 // when sweep fires, on clock; 0: not armed
	serving  map[string]context.CancelFunc // server requests being handled, by raw id
	closed   bool
	closeErr error

	queue        fifo[*wireMessage]
	inHandler    atomic.Bool // the dispatcher is running notify (see Close)
	dispatchDone chan struct{}
	done         chan struct{} // closed when the connection is finished
	wg           sync.WaitGroup
	closeOnce    sync.Once
}

// requestHandler answers one server→client request: its result, or an
// error (an *RPCError is sent as it is, any other as -32603).
type requestHandler func(ctx context.Context, params RawMessage) (any, error)

// newRPCConn starts serving conn. Each notification is shown to observe
// (when not nil) on the read loop, in order with the responses, then
// handed to notify by the dispatcher. timeout bounds each request (but
// those of callWith, which only their context ends); 0 means no bound.
func newRPCConn(conn Conn, log Logger, observe, notify func(*wireMessage), handlers map[string]requestHandler, timeout time.Duration) *rpcConn {
	c := &rpcConn{
		conn:         conn,
		log:          log,
		notify:       notify,
		observe:      observe,
		handlers:     handlers,
		timeout:      timeout,
		pending:      make(map[int64]*pendingCall),
		serving:      make(map[string]context.CancelFunc),
		done:         make(chan struct{}),
		dispatchDone: make(chan struct{}),
	}
	c.queue.init()
	c.wg.Add(1)
	go c.readLoop()
	go c.dispatchLoop()
	return c
}

// Done is closed when the connection has ended.
func (c *rpcConn) Done() <-chan struct{} { return c.done }

// Err says why the connection ended; nil while it is open.
func (c *rpcConn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeErr
}

// Close ends the connection, fails the pending requests with ErrClosed and
// waits for the connection's goroutines to exit. It never waits on the
// notification handler: while the dispatcher runs one (which may be
// Close's own caller), Close returns without waiting for it, and the
// dispatcher ends once it has handled what arrived before the close.
func (c *rpcConn) Close() error {
	c.shutdown(printf.Errorf("%w by the client", ErrClosed))
	c.wg.Wait()
	if !c.inHandler.Load() {
		<-c.dispatchDone
	}
	return nil
}

// shutdown records why the connection ends (first reason wins), closes the
// transport and fails every pending request.
func (c *rpcConn) shutdown(reason error) {
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
		c.queue.close()
		c.conn.Close()
	})
}

func (c *rpcConn) readLoop() {
	defer c.wg.Done()
	read := func(ctx context.Context) (inbound, error) {
		data, err := c.conn.Read(ctx)
		return inbound{msg: data}, err
	}
	if r, ok := c.conn.(entryReader); ok {
		read = r.readEntry
	}
	for {
		in, err := read(context.Background())
		if err != nil {
			c.shutdown(err)
			return
		}
		switch {
		case in.gap, in.liveness:
			c.queue.push(&wireMessage{gap: in.gap, liveness: in.liveness, arrived: clock()})
			continue
		case in.fail != nil:
			// The transport lost this request's answer (its stream broke
			// or ended without it): the request fails, the others go on.
			c.failPending(in.forID, in.fail)
			continue
		}
		data := in.msg
		m, kind, err := decodeMessage(data)
		if err != nil {
			c.badMessage(in, err)
			continue
		}
		if in.sole && !(kind == kindResponse && bytes.Equal(bytes.TrimSpace(m.ID), in.forID)) {
			// A request's own JSON answer that is not the response to it:
			// that response will not come; the request fails at once.
			got := "a message without an id"
			switch {
			case kind == kindResponse && m.Error != nil && !isIntID(m.ID):
				// The server's error about a message it could not read
				// (a null id): on this request's POST, it is this one's.
				c.failPending(in.forID, m.Error)
				continue
			case kind == kindResponse:
				got = "the response to id " + string(m.ID)
			case kind == kindNotification:
				got = "the notification " + strconv.Quote(m.Method)
			case kind == kindRequest:
				got = "the request " + strconv.Quote(m.Method)
			}
			c.failPending(in.forID, protocolError("the server answered request %s with %s, not with the response to it: %s", in.forID, got, jsontext.Snippet(data)))
			if kind == kindResponse {
				continue // not delivered: an answer on another request's POST is no answer
			}
		}
		switch kind {
		case kindResponse:
			c.deliver(m)
		case kindNotification:
			if m.Method == methods.NotifyCancelled {
				c.cancelServing(m.Params) // at once: the dispatcher may be busy
			}
			if c.observe != nil {
				c.observe(m)
			}
			m.arrived = clock()
			c.queue.push(m)
		case kindRequest:
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
func (c *rpcConn) badMessage(in inbound, err error) {
	id, hasID, hasMethod := salvageID(in.msg)
	switch {
	case hasID && c.isPending(id):
		c.failPending(id, err)
	case in.forID != nil && (in.sole || !hasMethod):
		c.failPending(in.forID, err)
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
func salvageID(msg []byte) (id RawMessage, hasID, hasMethod bool) {
	msg = bytes.TrimPrefix(bytes.TrimLeft(msg, " \t\r\n"), []byte("\xEF\xBB\xBF"))
	jsontext.WalkMembersUntil(msg, nil, func(key, val []byte) bool {
		switch {
		case jsontext.IsKey(key, "id"):
			if _, ok := parseID(val); ok {
				id, hasID = RawMessage(val), true
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
func (c *rpcConn) onlyPending() RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) != 1 {
		return nil
	}
	for id := range c.pending {
		return RawMessage(strconv.FormatInt(id, 10))
	}
	return nil
}

// isIntID reports an integer id (the only kind this client sends).
func isIntID(id RawMessage) bool {
	_, ok := parseID(id)
	return ok
}

// isPending reports whether request id is waiting for its response.
func (c *rpcConn) isPending(id RawMessage) bool {
	n, ok := parseID(id)
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
func (c *rpcConn) failPending(id RawMessage, err error) {
	n, ok := parseID(bytes.TrimSpace(id))
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
		p.ch <- &wireMessage{fail: err} // buffered, never blocks
	}
}

func (c *rpcConn) deliver(m *wireMessage) {
	id, ok := parseID(m.ID)
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
func (c *rpcConn) answer(m *wireMessage) {
	if h := c.handlers[m.Method]; h != nil {
		c.serve(m, h)
		return
	}
	resp := wireMessage{JSONRPC: "2.0", ID: m.ID}
	if m.Method == methods.Ping {
		resp.Result = RawMessage("{}")
	} else {
		c.log.Info("mcplive: answered an unsupported server request", "method", m.Method)
		resp.Error = &RPCError{Code: CodeMethodNotFound, Message: "method not found: " + m.Method}
	}
	b, err := encodeWire(&resp)
	if err != nil {
		return
	}
	c.writeLater(b, "") // a response
}

// encodeWire encodes a message the client sends. Unlike json.Marshal it
// does not escape <, > and & as \u003c, \u003e and \u0026, so an answer
// carries the server's request id byte for byte, as the server sent it
// (JSON says the two spellings are one string; a server that matches
// answers by the id's text would not find the escaped one).
func encodeWire(m *wireMessage) ([]byte, error) {
	var buf bytes.Buffer
	if err := m.writeJSON(&buf, false); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// serve runs the handler of a server request on a goroutine of its own (it
// may wait for a user for minutes) and sends its answer. The handler's
// context ends when the server cancels the request (notifications/cancelled)
// or the connection ends; a cancelled request gets no answer, as the
// specification asks. Close does not wait for a handler: one that ignores
// its context only delays its own goroutine. A panic in the handler is
// answered as an internal error.
func (c *rpcConn) serve(m *wireMessage, h requestHandler) {
	key := string(m.ID)
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	_, dup := c.serving[key]
	if c.closed || dup {
		c.mu.Unlock()
		cancel()
		if dup {
			c.log.Warn("mcplive: ignored a server request whose id is still in use", "method", m.Method, "id", key)
		}
		return
	}
	c.serving[key] = cancel
	c.mu.Unlock()
	go func() {
		res, err := safeHandle(ctx, h, m)
		c.mu.Lock()
		delete(c.serving, key)
		c.mu.Unlock()
		cancelled := ctx.Err() != nil
		cancel()
		if cancelled {
			return
		}
		resp := wireMessage{JSONRPC: "2.0", ID: m.ID}
		var rpcErr *RPCError
		switch {
		case errors.As(err, &rpcErr):
			resp.Error = rpcErr
		case err != nil:
			c.log.Warn("mcplive: a server request failed", "method", m.Method, "err", err.Error())
			resp.Error = &RPCError{Code: CodeInternalError, Message: err.Error()}
		default:
			b, err := marshalJSON(res)
			if err != nil {
				resp.Error = &RPCError{Code: CodeInternalError, Message: "mcplive: cannot encode the result: " + err.Error()}
			} else {
				resp.Result = b
			}
		}
		if b, err := encodeWire(&resp); err == nil {
			c.writeLater(b, "") // a response
		}
	}()
}

// safeHandle runs a server request's handler; a panic becomes an error.
func safeHandle(ctx context.Context, h requestHandler, m *wireMessage) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, printf.Errorf("mcplive: the handler of %s panicked: %v", m.Method, p)
		}
	}()
	return h(ctx, m.Params)
}

// cancelServing ends the handler of the server request that a
// notifications/cancelled from the server names.
func (c *rpcConn) cancelServing(params RawMessage) {
	var requestID RawMessage
	if jsontext.Decode(params, "params", []jsontext.Field{{Name: "requestId", Dst: &requestID}}) != nil {
		return
	}
	c.mu.Lock()
	cancel := c.serving[string(requestID)]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// dispatchLoop hands the notifications to notify, in arrival order. It
// says when it runs notify (inHandler), so that Close never waits for a
// handler, which may be Close's own caller.
func (c *rpcConn) dispatchLoop() {
	defer close(c.dispatchDone)
	for {
		m, ok := c.queue.pop()
		if !ok {
			return
		}
		c.inHandler.Store(true)
		c.safeNotify(m)
		c.inHandler.Store(false)
	}
}

// safeNotify runs the notification handler and keeps a panic in it from
// killing the program (in wasm a panic ends the runtime for the whole page).
func (c *rpcConn) safeNotify(m *wireMessage) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("mcplive: notification handler panicked", "method", m.Method, "panic", r)
		}
	}()
	c.notify(m)
}

// notifyWrite sends a notification.
func (c *rpcConn) notifyWrite(ctx context.Context, method string, params any) error {
	b, err := marshalMessage(nil, method, params)
	if err != nil {
		return err
	}
	return c.write(ctx, b, nil, method, params)
}

// call sends a request and waits for its response. When ctx ends first, or
// the connection's request timeout, the request is cancelled with
// notifications/cancelled and ctx's error returned (for the timeout:
// context.DeadlineExceeded).
func (c *rpcConn) call(ctx context.Context, method string, params any) (RawMessage, error) {
	return c.result(c.exchange(ctx, method, params, c.timeout, nil, nil))
}

// callWith is a long-lived call (no request timeout: only ctx ends it) that
// tells onID the request's id before the request is sent, so that what the
// server sends about it (a listen stream's acknowledgment) can be matched to
// it.
func (c *rpcConn) callWith(ctx context.Context, method string, params any, onID func(int64)) (RawMessage, error) {
	return c.result(c.exchange(ctx, method, params, 0, onID, nil))
}

// result checks a response's result.
func (c *rpcConn) result(m *wireMessage, err error) (RawMessage, error) {
	if err != nil {
		return nil, err
	}
	if err := m.validateResult(); err != nil {
		return nil, protocolError("the result is not valid JSON (%v): %s", err, jsontext.Snippet(m.Result))
	}
	return m.Result, nil
}

// callUnchecked is call for a result whose reader validates it (a list
// page: parseListPage and the walk's builders; see parseEnvelope): the
// response, with the index of its result when the envelope made one.
// afterSend, when not nil, runs once the request is written, before the
// wait for its response (a walk reads the previous page while the server
// makes this one). The request timeout bounds it, as call.
func (c *rpcConn) callUnchecked(ctx context.Context, method string, params any, afterSend func()) (*wireMessage, error) {
	return c.exchange(ctx, method, params, c.timeout, nil, afterSend)
}

// exchange sends a request and waits for its response, whose result is not
// validated yet (see parseEnvelope), for up to timeout (0: no bound; the
// sweeper, sweepExpired, ends it). afterSend: see callUnchecked.
func (c *rpcConn) exchange(ctx context.Context, method string, params any, timeout time.Duration, onID func(int64), afterSend func()) (*wireMessage, error) {
	id := c.nextID.Add(1)
	if onID != nil {
		onID(id)
	}
	b, err := marshalMessage(&id, method, params)
	if err != nil {
		return nil, err
	}
	p := &pendingCall{ch: make(chan *wireMessage, 1)}
	wctx := ctx
	if timeout > 0 {
		p.deadline = clock() + timeout
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
		return nil, &notSent{connLost(err)}
	}
	c.pending[id] = p
	if timeout > 0 {
		c.armLocked(p.deadline)
	}
	c.mu.Unlock()

	if err := c.write(wctx, b, &id, method, params); err != nil {
		c.forget(id)
		if errors.Is(err, errNotSent) {
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
			return nil, connLost(c.Err())
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
func (c *rpcConn) forget(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; ok {
		delete(c.pending, id)
		return true
	}
	return false
}

// cancelRequest tells the server to stop working on request id.
func (c *rpcConn) cancelRequest(id int64, why error) {
	reason := "cancelled by the client"
	if errors.Is(why, context.DeadlineExceeded) {
		reason = "timed out"
	}
	b, err := marshalMessage(nil, methods.NotifyCancelled, map[string]any{"requestId": id, "reason": reason})
	if err != nil {
		return
	}
	c.writeLater(b, methods.NotifyCancelled)
}

// writeLater sends b from a goroutine of its own, which Close waits for:
// for writes that the read loop or a returning call must not wait on. A
// failed write ends the connection. method describes it (see write; "" for
// a response).
func (c *rpcConn) writeLater(b []byte, method string) {
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
			c.shutdown(err)
		}
	}()
}

// connLost wraps the reason a connection ended so that the caller's error
// says so and still matches ErrClosed.
func connLost(reason error) error {
	if reason == nil {
		return printf.Errorf("%w", ErrClosed)
	}
	if errors.Is(reason, ErrClosed) {
		return reason
	}
	return printf.Errorf("%w: %w", ErrClosed, reason)
}

// arrivedAt is when the read loop got m, on the package's one clock
// (clock).
func (m *wireMessage) arrivedAt() time.Time { return monoStart.Add(m.arrived) }

// paramsWriter is params that write their own JSON, which marshalMessage
// puts in the message as they write it: the params of a list page and of
// subscriptions/listen (walk.go, listen.go) and params encoded before
// (encodedParams). Any other params go through encoding/json.
type paramsWriter interface {
	writeParams(b *bytes.Buffer) error
}

// paramsDescriber is params that tell the transport more of their message
// than its id and method (outgoing: the request's name, its _meta's
// version).
type paramsDescriber interface {
	describe(m *outgoing)
}

// describe returns what the transport is told of a request (id set) or a
// notification with params.
func describe(id *int64, method string, params any) outgoing {
	m := outgoing{method: method}
	if id != nil {
		m.id = RawMessage(strconv.FormatInt(*id, 10))
	}
	if d, ok := params.(paramsDescriber); ok {
		d.describe(&m)
	}
	return m
}

// write sends one message (b, the encoding of id, method and params). A
// transport that takes the message's description (describedWriter) is
// handed it, made only then: over WebSocket nothing is described.
func (c *rpcConn) write(ctx context.Context, b []byte, id *int64, method string, params any) error {
	if dw, ok := c.conn.(describedWriter); ok {
		return dw.writeDescribed(ctx, b, describe(id, method, params))
	}
	return c.conn.Write(ctx, b)
}

// marshalMessage encodes a request (id set) or a notification.
func marshalMessage(id *int64, method string, params any) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0",`)
	if id != nil {
		buf.WriteString(`"id":`)
		buf.WriteString(strconv.FormatInt(*id, 10))
		buf.WriteByte(',')
	}
	buf.WriteString(`"method":`)
	writeJSONString(&buf, method)
	switch p := params.(type) {
	case nil:
	case paramsWriter:
		buf.WriteString(`,"params":`)
		if err := p.writeParams(&buf); err != nil {
			return nil, printf.Errorf("mcplive: %s: encode params: %w", method, err)
		}
	default:
		pb, err := marshalJSON(params)
		if err != nil {
			return nil, printf.Errorf("mcplive: %s: encode params: %w", method, err)
		}
		buf.WriteString(`,"params":`)
		buf.Write(pb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// writeJSONString writes s as a JSON string as json.Marshal does
// (jsonenc.go).
func writeJSONString(b *bytes.Buffer, s string) { jsontext.WriteString(b, s, true) }

// Request timeouts without a context and a timer per request.
//
// Every request of a session is bounded by Options.RequestTimeout. With
// context.WithTimeout per request, each list page made a timer context: a
// timer, a clock read, an entry in the parent's map of children and a
// channel, all undone when the answer came: an eighth of the wasm's CPU
// time per change (a Node 22 CPU profile of the change → list benchmark,
// 105 tools in 11 pages; in the browser the clock read is a call into JS
// too). Instead, a request's
// deadline is a number in its pending entry, and one timer per connection
// (rpcConn.sweep), armed for the earliest deadline, fails the requests whose
// time is up. Requests share one timeout, so a new request's deadline is
// never the earliest: the timer is armed once and re-armed when it fires.

// monoStart is the origin of clock: reading the monotonic clock through it
// is one clock read (time.Now is two, each a call into JS in the browser).
var monoStart = time.Now()

// clock is the time on the monotonic clock, as a duration since monoStart:
// the package's one clock (request deadlines, a message's arrival).
func clock() time.Duration { return time.Since(monoStart) }

// timedOut is what the sweeper hands a request whose time is up, in place
// of its response.
var timedOut = &wireMessage{}

// pendingCall is a request waiting for its response.
type pendingCall struct {
	ch       chan *wireMessage // buffered: its response, timedOut, or closed with the connection
	deadline time.Duration     // on clock; 0: no timeout
	wctx     *callCtx          // the context its write runs under; nil without a timeout
	// sent (the write returned) and expired (the sweeper took it) are
	// set under rpcConn.mu: whichever comes second tells the server that
	// the request timed out. A request whose write did not finish is not
	// told (the transport's write does that where it must).
	sent, expired bool
}

// armLocked makes sure the sweeper runs by deadline d. c.mu is held.
func (c *rpcConn) armLocked(d time.Duration) {
	if c.sweepAt != 0 && c.sweepAt <= d {
		return
	}
	c.sweepAt = d
	wait := max(d-clock(), 0)
	if c.sweep == nil {
		c.sweep = time.AfterFunc(wait, c.sweepExpired)
	} else {
		c.sweep.Reset(wait)
	}
}

// sweepExpired fails the requests whose deadline has passed and arms the
// timer for the earliest deadline left.
//
// The server is told of a timed-out request here (not by exchange, which,
// receiving timedOut, may find its caller's context ended at the same
// moment) or, for a request whose write was still under way, by exchange
// once the write returns.
func (c *rpcConn) sweepExpired() {
	type expiry struct {
		id   int64
		p    *pendingCall
		tell bool
	}
	var expired []expiry
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	now := clock()
	var next time.Duration
	for id, p := range c.pending {
		switch {
		case p.deadline == 0:
		case p.deadline <= now:
			delete(c.pending, id)
			p.expired = true
			expired = append(expired, expiry{id, p, p.sent})
		case next == 0 || p.deadline < next:
			next = p.deadline
		}
	}
	c.sweepAt = 0
	if next != 0 {
		c.armLocked(next)
	}
	c.mu.Unlock()
	for _, e := range expired {
		e.p.ch <- timedOut // buffered and no longer pending: never blocks
		e.p.wctx.cancel(context.DeadlineExceeded)
		if e.tell {
			c.cancelRequest(e.id, context.DeadlineExceeded)
		}
	}
}

// callCtx is the context a request's write runs under: its caller's,
// ended also when the request's time is up (by the sweeper) or when the
// request is over. It makes nothing until a write asks for its Done channel
// (a Streamable HTTP request does; a WebSocket write only checks Err), so a
// request over WebSocket costs no timer, channel or registration with its
// parent.
type callCtx struct {
	parent   context.Context
	deadline time.Duration // on clock

	mu    sync.Mutex
	done  chan struct{}
	err   error
	stop  func() bool // undoes the registration with parent
	funcs []*afterFunc
}

type afterFunc struct {
	f    func()
	once sync.Once
}

func (c *callCtx) Deadline() (time.Time, bool) {
	d := time.Now().Add(c.deadline - clock())
	if pd, ok := c.parent.Deadline(); ok && pd.Before(d) {
		return pd, true
	}
	return d, true
}

func (c *callCtx) Value(key any) any { return c.parent.Value(key) }

func (c *callCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		c.watchLocked()
		if c.err != nil {
			close(c.done)
		}
	}
	return c.done
}

func (c *callCtx) Err() error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := c.parent.Err(); err != nil {
		c.cancel(err)
		return c.Err()
	}
	return nil
}

// AfterFunc lets context.AfterFunc and context.WithCancel register with c
// without a goroutine each (the context package looks for this method).
func (c *callCtx) AfterFunc(f func()) func() bool {
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		a.once.Do(func() { go f() })
		return func() bool { return false }
	}
	c.funcs = append(c.funcs, a)
	c.watchLocked()
	c.mu.Unlock()
	return func() bool {
		stopped := false
		a.once.Do(func() { stopped = true })
		return stopped
	}
}

// watchLocked registers c with its parent, once, so that the parent's end
// ends c. c.mu is held.
func (c *callCtx) watchLocked() {
	if c.stop == nil && c.err == nil {
		c.stop = context.AfterFunc(c.parent, func() { c.cancel(c.parent.Err()) })
	}
}

// cancel ends c with err (the first reason wins). nil-safe: a request
// without a timeout has no callCtx.
func (c *callCtx) cancel(err error) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	funcs, stop := c.funcs, c.stop
	c.funcs = nil
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	for _, a := range funcs {
		a.once.Do(func() { go a.f() })
	}
}
