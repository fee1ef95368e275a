package mcplive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/methods"
)

// Header names of the Streamable HTTP transport.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerLastEventID     = "Last-Event-Id"
)

// modernVersion is the first protocol version without sessions and the GET
// stream, and with the Mcp-Method and Mcp-Name headers.
const modernVersion = "2026-07-28"

// HTTPTransport speaks Streamable HTTP (MCP 2025-11-25 and 2026-07-28):
// each message is a POST; the server answers a request with one JSON body
// or an event stream that carries the server's notifications and requests
// before the response; in 2025-11-25 a standalone GET event stream
// carries what the server says between calls (list changes), and the
// transport keeps the session id the server assigns, resumes dropped event
// streams with Last-Event-ID, and ends the session with DELETE on Close
// (2026-07-28 has none of these).
//
// One broken answer costs one request: an answer that is not the
// request's JSON-RPC response, a body cut short or a stream that ends
// without the answer fails that request alone (a list page and
// server/discover are sent again); the GET stream's failures are its own
// (the lists then do not follow changes until it opens again). A
// Retry-After of a 429 or 503 is honoured by what retries.
//
// Natively the requests go through a transport of the connection's own,
// a clone of http.DefaultTransport (its proxy and TLS settings apply).
// Compiled to WebAssembly they go through the JavaScript fetch API with
// streamed bodies, in browsers and in Node (http_js.go); a page's server
// must allow its origin (see docs/transports-and-cors.md). Redirects on
// the same origin that keep the method (307, 308) are followed; one that
// would turn a POST into a GET (301, 302, 303) fails with an error that
// says so, and one to another origin is not followed (in browsers, where
// fetch follows redirects itself, an answer from another origin is
// refused).
//
// A zero field means its default. The transport may be shared by many
// connections, and must not be modified once in use.
type HTTPTransport struct {
	// URL is the http:// or https:// MCP endpoint.
	URL string
	// Header holds extra headers for every request (the transport's own
	// headers win over these). Natively Header is net/http's Header; write
	// mcplive.Header{…} to build for WebAssembly as well (see Header).
	Header Header
	// Token, when set, is called before every request; a non-empty token
	// is sent as "Authorization: Bearer <token>". It is the hook for an
	// app's own OAuth: return a cached token, refresh it when it expires.
	Token func(ctx context.Context) (string, error)
	// OnUnauthorized, when set, is called when the server refuses a
	// request's credentials (401, or 403 with a challenge), with the
	// server's challenge. When it returns nil (it got a new token, for
	// example through an OAuth flow), the request is sent once more, with
	// a fresh Token. Otherwise the request fails with the *AuthError.
	OnUnauthorized func(ctx context.Context, err *AuthError) error
	// ReadLimit caps one incoming message (a JSON body or one event) in
	// bytes. Zero means DefaultReadLimit (16 MiB).
	ReadLimit int64
	// DialTimeout bounds the wait for the server's first answer. Zero
	// means DefaultDialTimeout (10 s).
	DialTimeout time.Duration
	// Logger receives diagnostics (a dropped stream, a server that breaks
	// a rule it may break). Nil discards them.
	Logger Logger
}

// newHTTPTransport returns the Streamable HTTP transport for rawURL.
func newHTTPTransport(rawURL string, o Options) (Transport, error) {
	return &HTTPTransport{URL: rawURL, ReadLimit: o.ReadLimit, DialTimeout: o.DialTimeout, Logger: o.Logger}, nil
}

func (t *HTTPTransport) configured(o Options) Transport {
	c := *t
	if c.ReadLimit <= 0 {
		c.ReadLimit = o.ReadLimit
	}
	if c.DialTimeout <= 0 {
		c.DialTimeout = o.DialTimeout
	}
	if c.Logger == nil {
		c.Logger = o.Logger
	}
	return &c
}

// Connect returns a connection to t.URL. It sends nothing: the first
// message (initialize) opens the session, and its errors wrap ErrDial.
func (t *HTTPTransport) Connect(ctx context.Context) (Conn, error) {
	// No net/url: it would add its parser (and net/netip) to the wasm
	// for one check; fetch and net/http judge the rest of the URL.
	scheme, rest, _ := strings.Cut(t.URL, "://")
	if !(strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")) || rest == "" || rest[0] == '/' {
		return nil, fmt.Errorf("mcplive: connect %q: a Streamable HTTP URL starts with http:// or https:// and names a host", t.URL)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &httpConn{
		url:         t.URL,
		header:      t.Header,
		token:       t.Token,
		onUnauth:    t.OnUnauthorized,
		limit:       t.ReadLimit,
		dialTimeout: t.DialTimeout,
		log:         t.Logger,
		getReady:    make(chan struct{}),
	}
	c.queue.init()
	if c.limit <= 0 {
		c.limit = DefaultReadLimit
	}
	if c.dialTimeout <= 0 {
		c.dialTimeout = DefaultDialTimeout
	}
	if c.log == nil {
		c.log = nopLogger{}
	}
	c.rt, c.closeIdle = defaultRoundTripper()
	// The connection's streams outlive the ctx of Connect (which bounds
	// only the connecting): they end with Close.
	c.ctx, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return c, nil
}

// httpConn is one Streamable HTTP session. Write POSTs a message and
// returns once the server's answer has begun (its status and headers); a
// goroutine reads the answer (a JSON body, or an event stream until the
// response in it) and queues each message for Read, as does the goroutine
// of the standalone GET stream.
type httpConn struct {
	url         string
	header      Header
	token       func(context.Context) (string, error)
	onUnauth    func(context.Context, *AuthError) error
	rt          roundTripper
	closeIdle   func() // releases rt's idle connections; nil when not ours
	limit       int64
	dialTimeout time.Duration
	log         Logger

	ctx    context.Context // ends with Close: every request and stream
	cancel context.CancelFunc
	wg     sync.WaitGroup // the goroutines that read answers and streams

	mu          sync.Mutex
	queue       fifo[inbound] // messages for Read, in arrival order per stream
	err         error         // why the connection ended, once it did
	closed      bool
	sessionID   string
	version     string // negotiated protocol version, from sessionUpdated
	established bool   // the server has answered a message as it should
	expired     bool   // the server ended the session (404)
	getStarted  bool
	// getReady is closed once the standalone stream is open (its answer
	// has begun) or will not be (405, given up, closed).
	getReady     chan struct{}
	getReadyOnce sync.Once
	noPush       bool                // the server has no standalone stream (GET answered 405)
	inflight     map[string]struct{} // ids of requests sent and not answered

	closeOnce sync.Once

	// The x-mcp-header declarations of the tools last listed, by tool
	// name, for the Mcp-Param headers of tools/call (http_params.go).
	params atomic.Pointer[map[string][]paramDecl]
}

// Read returns the next message from any of the connection's streams.
// Gaps and failed requests are not told (see readEntry).
func (c *httpConn) Read(ctx context.Context) ([]byte, error) {
	for {
		in, err := c.readEntry(ctx)
		if err != nil || (!in.gap && !in.liveness && in.fail == nil) {
			return in.msg, err
		}
	}
}

// readEntry is Read that also tells of gaps, of the request that each
// message answers and of requests whose answer cannot come (entryReader).
func (c *httpConn) readEntry(ctx context.Context) (inbound, error) {
	in, ok, err := c.queue.popCtx(ctx)
	switch {
	case err != nil:
		return inbound{}, err
	case ok:
		return in, nil
	}
	return inbound{}, c.failure() // the queue is closed once the connection failed
}

// enqueue queues in for Read, unless the connection is closed.
func (c *httpConn) enqueue(in inbound) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.queue.push(in)
	}
}

// fail ends the connection with err (the first reason wins). Read returns
// what is queued, then err.
func (c *httpConn) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	c.queue.close() // what is queued is still read, then err
	c.log.Warn("mcplive: Streamable HTTP connection ends", "url", c.url, "err", err)
}

func (c *httpConn) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// goLocked starts fn as one of the connection's goroutines unless the
// connection is closed. Close waits for them.
func (c *httpConn) goTracked(fn func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		fn()
	}()
	return true
}

// sessionUpdated learns the negotiated version: it goes in a header on
// every later request, and a session of 2025-11-25 or older opens the
// standalone GET stream.
func (c *httpConn) sessionUpdated(info SessionInfo) {
	c.mu.Lock()
	c.version = info.ProtocolVersion
	c.mu.Unlock()
	if info.ProtocolVersion < modernVersion {
		c.startGET()
	}
}

// awaitGET waits until the standalone stream is open or will not be,
// bounded by the dial timeout and ctx.
func (c *httpConn) awaitGET(ctx context.Context) {
	t := time.NewTimer(c.dialTimeout)
	defer t.Stop()
	select {
	case <-c.getReady:
	case <-ctx.Done():
	case <-t.C:
		c.log.Warn("mcplive: the event stream (GET) did not open within the dial timeout; list changes may be late", "url", c.url)
	}
}

func (c *httpConn) signalGET() { c.getReadyOnce.Do(func() { close(c.getReady) }) }

// startGET opens the standalone GET stream once.
func (c *httpConn) startGET() {
	c.mu.Lock()
	start := !c.getStarted && !c.closed
	c.getStarted = true
	c.mu.Unlock()
	if start {
		c.goTracked(func() { c.follow(c.ctx, nil, nil, "the event stream (GET)") })
	}
}

func (m outgoing) isRequest() bool { return m.id != nil }

func (m outgoing) what() string {
	switch {
	case m.method != "":
		return m.method
	default:
		return "a response"
	}
}

func parseOutgoing(msg []byte) (outgoing, error) {
	// By hand, as encoding/json would read them (jsonwire.go).
	var env struct {
		ID     json.RawMessage
		Method string
		Params json.RawMessage
	}
	if err := jsontext.Decode(msg, "message", []jsontext.Field{{Name: "id", Dst: &env.ID}, {Name: "method", Dst: &env.Method}, {Name: "params", Dst: &env.Params}}); err != nil {
		return outgoing{}, fmt.Errorf("mcplive: write: not one JSON-RPC message: %v", err)
	}
	m := outgoing{method: env.Method}
	if env.Method != "" && len(env.ID) > 0 && string(env.ID) != "null" {
		m.id = env.ID
	}
	if len(env.Params) > 0 && env.Params[0] == '{' {
		var name, uri string
		// Best effort: the headers are extras.
		_ = jsontext.Decode(env.Params, "params", []jsontext.Field{{Name: "name", Dst: &name}, {Name: "uri", Dst: &uri}, {Name: "_meta", Dst: func(v []byte) error {
			return jsontext.DecodeFields(v, "_meta", []jsontext.Field{{Name: metaProtocolVersion, Dst: &m.version}})
		}}})
		m.name = name
		if m.name == "" {
			m.name = uri
		}
	}
	return m, nil
}

// Write POSTs msg and returns once the server's answer has begun: a
// request's response arrives later through Read, so a long answer holds no
// caller. An HTTP error fails this message only, except a 404 on a known
// session (the server ended it: the connection ends with an error wrapping
// ErrClosed, and the client starts a new session) and a network failure
// (the connection ends too). When the connection has ended, a request's
// Write returns nil: Read reports the end, and the request fails with the
// connection. A JSON-RPC error the server sends with an HTTP error status
// is the request's response.
func (c *httpConn) Write(ctx context.Context, msg []byte) error {
	m, err := parseOutgoing(msg)
	if err != nil {
		return err
	}
	return c.writeDescribed(ctx, msg, m)
}

// writeDescribed is Write of a message that the JSON-RPC layer describes
// (describedWriter): what parseOutgoing would read of it is m.
func (c *httpConn) writeDescribed(ctx context.Context, msg []byte, m outgoing) error {
	return c.writePost(post{ctx: ctx, msg: msg, m: m})
}

// writePost sends p (anew, when p.resends > 0: lost).
func (c *httpConn) writePost(p post) (err error) {
	ctx, msg, m := p.ctx, p.msg, p.m
	defer func() {
		if err != nil && m.isRequest() && c.failure() != nil && !errors.Is(err, errNotSent) {
			// The connection has ended (the server is out of reach, or
			// ended the session): Read reports it, and the request
			// fails with the connection, in the same order as every
			// other request in flight (the session ends first). An
			// error here would reach the caller before the session's
			// end, which would read as a failed request.
			err = nil
		}
	}()
	if err := c.failure(); err != nil {
		return err
	}
	if m.method == methods.NotifyCancelled && !c.legacy(m) {
		// 2026-07-28: closing the request's stream is the cancellation
		// (the caller's context ended, which closed it); the revision
		// defines no notification POSTs.
		return nil
	}
	reqCtx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.ctx, cancel)
	handedOff := false
	if m.isRequest() {
		c.track(m.id)
	}
	defer func() {
		if !handedOff {
			stop()
			cancel()
			c.settle(m.id)
		}
	}()

	resp, err := c.send(reqCtx, methodPost, msg, m, "")
	if err != nil {
		if ctx.Err() != nil && m.isRequest() && c.legacy(m) {
			// The request may have reached the server: tell it to stop,
			// as the spec asks (a dropped POST does not cancel).
			c.cancelLater(m.id)
		}
		return err
	}
	if c.legacy(m) {
		// 2026-07-28 has no sessions: an id a server mints anyway is
		// neither kept nor sent back (nor DELETEd on Close).
		c.noteSession(resp)
	}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		err := c.refused(resp, m)
		if d := retryAfterOf(err); d > 0 && m.isRequest() && resendable(m.method) && p.resends < maxResends && c.failure() == nil {
			// A list page or the discovery refused for now (429, 503)
			// with a Retry-After: asked again after it, in the background
			// (the request stays pending).
			handedOff = c.goTracked(func() {
				defer stop()
				defer cancel()
				c.lost(p, err, d)
			})
			if handedOff {
				return nil
			}
		}
		if err != nil && !m.isRequest() && m.method != methods.NotifyInitialized && !errors.Is(err, ErrClosed) {
			// One refused notification or response (a cancellation of
			// a request the server forgot, say) is no broken
			// connection: HTTP carries on.
			c.log.Warn("mcplive: the server refused a message", "message", m.what(), "err", err)
			return nil
		}
		return err
	}
	if !m.isRequest() {
		// Its body (none, as a rule) is read to its end, not aborted.
		body := resp.Body
		detach(body)
		if !c.goTracked(func() { release(body) }) {
			body.Close()
		}
		if resp.StatusCode != statusAccepted && resp.StatusCode != statusNoContent {
			c.log.Info("mcplive: the server answered a notification or response with a status other than 202", "status", resp.Status, "message", m.what())
		}
		c.setEstablished()
		if m.method == methods.NotifyInitialized {
			// For a session that does not call sessionUpdated: the
			// standalone stream opens once the session is initialized.
			c.startGET()
			// The session is ready once the stream is open: a list
			// change the server announces after that is not lost
			// between the client's first lists and the stream.
			c.awaitGET(ctx)
		}
		return nil
	}
	ct := mediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		c.setEstablished()
		handedOff = c.goTracked(func() {
			defer c.settle(m.id)
			defer stop()
			defer cancel()
			c.readJSON(reqCtx, resp, p)
		})
	case "text/event-stream":
		c.setEstablished()
		handedOff = c.goTracked(func() {
			defer c.settle(m.id)
			defer stop()
			defer cancel()
			c.follow(reqCtx, resp, &p, m.method)
		})
	default:
		resp.Body.Close()
		what := fmt.Sprintf("Content-Type %q", resp.Header.Get("Content-Type"))
		if resp.StatusCode == statusAccepted || resp.StatusCode == statusNoContent || resp.ContentLength == 0 {
			what = fmt.Sprintf("%s and no body", resp.Status)
		}
		err := fmt.Errorf("%w: the server answered the %s request with %s; Streamable HTTP answers a request with application/json or text/event-stream",
			ErrProtocol, m.method, what)
		return c.dialErr(err, "is this URL an MCP endpoint?")
	}
	if !handedOff {
		resp.Body.Close()
		return c.closedErr()
	}
	return nil
}

// legacy reports whether a message belongs to a 2025-11-25 (or older)
// session, where a dropped request is not cancelled without
// notifications/cancelled.
func (c *httpConn) legacy(m outgoing) bool {
	if m.version != "" {
		return m.version < modernVersion
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version < modernVersion
}

// cancelLater sends notifications/cancelled for request id, in the
// background and bounded.
func (c *httpConn) cancelLater(id json.RawMessage) {
	b, err := marshalJSON(map[string]any{
		"jsonrpc": "2.0", "method": methods.NotifyCancelled,
		"params": map[string]any{"requestId": id, "reason": "cancelled by the client"},
	})
	if err != nil {
		return
	}
	c.goTracked(func() {
		ctx, cancel := context.WithTimeout(c.ctx, c.dialTimeout)
		defer cancel()
		_ = c.writeDescribed(ctx, b, outgoing{method: methods.NotifyCancelled})
	})
}

// track notes request id as in flight: Close cancels it on the server.
func (c *httpConn) track(id json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight == nil {
		c.inflight = make(map[string]struct{})
	}
	c.inflight[string(id)] = struct{}{}
}

// settle notes that request id is no longer in flight: answered, given
// up, or never sent.
func (c *httpConn) settle(id json.RawMessage) {
	if id == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.inflight, string(id))
}

func (c *httpConn) setEstablished() {
	c.mu.Lock()
	c.established = true
	c.mu.Unlock()
}

// Close ends every stream, sends DELETE for the session (best effort,
// bounded by the dial timeout, at most 5 s) and waits for the connection's
// goroutines.
func (c *httpConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		if c.err == nil {
			c.err = fmt.Errorf("%w by the client", ErrClosed)
		}
		c.queue.drop()
		sid, expired, version := c.sessionID, c.expired, c.version
		var inflight []json.RawMessage
		for id := range c.inflight {
			inflight = append(inflight, json.RawMessage(id))
		}
		c.mu.Unlock()
		c.cancel()
		if sid != "" && !expired {
			ctx, cancel := context.WithTimeout(context.Background(), min(c.dialTimeout, 5*time.Second))
			if version < modernVersion {
				// A dropped request goes on running on the server (the
				// spec of 2025-11-25); a server may also hold the DELETE
				// until its requests end (go-sdk does). Cancel them.
				for _, id := range inflight {
					b, err := marshalJSON(map[string]any{
						"jsonrpc": "2.0", "method": methods.NotifyCancelled,
						"params": map[string]any{"requestId": id, "reason": "the client closed the connection"},
					})
					if err != nil {
						continue
					}
					if resp, err := c.sendOnce(ctx, methodPost, b, outgoing{method: methods.NotifyCancelled}, ""); err == nil {
						resp.Body.Close()
					}
				}
			}
			if resp, err := c.sendOnce(ctx, methodDelete, nil, outgoing{}, ""); err == nil {
				resp.Body.Close()
			}
			cancel()
		}
		c.wg.Wait()
		if c.closeIdle != nil {
			c.closeIdle()
		}
	})
	return nil
}

// pushes reports whether the server can tell this connection of changes
// between requests: false once a 2025-11-25 server answered the
// standalone stream's GET with 405 (a stateless server).
func (c *httpConn) pushes() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.noPush
}
