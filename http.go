package mcplive

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/printf"
)

// Header names of the Streamable HTTP transport.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerLastEventID     = "Last-Event-Id"
)

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
	// Credentials, when set, is called before every request instead of
	// Token, with the request's method and URL, and its headers are set on
	// the request: an Authorization of any scheme, and what goes with it
	// (a DPoP proof, RFC 9449, is made for one method and URL).
	Credentials func(ctx context.Context, method, url string) (Header, error)
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

func (t *HTTPTransport) configured(o Options) Transport {
	c := *t
	o.fillLimits(&c.ReadLimit, &c.DialTimeout)
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
		return nil, printf.Errorf("mcplive: connect %q: a Streamable HTTP URL starts with http:// or https:// and names a host", shownURL(t.URL))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &httpConn{
		url:         t.URL,
		header:      t.Header,
		token:       t.Token,
		creds:       t.Credentials,
		onUnauth:    t.OnUnauthorized,
		limit:       t.ReadLimit,
		dialTimeout: t.DialTimeout,
		log:         t.Logger,
		getReady:    make(chan struct{}),
	}
	c.queue.Init()
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
	creds       func(context.Context, string, string) (Header, error)
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
	queue       jsonrpc.Fifo[jsonrpc.Inbound] // messages for Read, in arrival order per stream
	err         error                         // why the connection ended, once it did
	closed      bool
	sessionID   string
	version     string // negotiated protocol version, from SessionUpdated
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
// Gaps and failed requests are not told (see ReadEntry).
func (c *httpConn) Read(ctx context.Context) ([]byte, error) {
	for {
		in, err := c.ReadEntry(ctx)
		if err != nil || (!in.Gap && !in.Liveness && in.Fail == nil) {
			return in.Msg, err
		}
	}
}

// ReadEntry is Read that also tells of gaps, of the request that each
// message answers and of requests whose answer cannot come (jsonrpc.EntryReader).
func (c *httpConn) ReadEntry(ctx context.Context) (jsonrpc.Inbound, error) {
	in, ok, err := c.queue.PopCtx(ctx)
	switch {
	case err != nil:
		return jsonrpc.Inbound{}, err
	case ok:
		return in, nil
	}
	return jsonrpc.Inbound{}, c.failure() // the queue is closed once the connection failed
}

// enqueue queues in for Read, unless the connection is closed.
func (c *httpConn) enqueue(in jsonrpc.Inbound) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.queue.Push(in)
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
	c.queue.Close() // what is queued is still read, then err
	c.log.Warn("mcplive: Streamable HTTP connection ends", "url", shownURL(c.url), "err", err)
}

func (c *httpConn) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// goTracked starts fn as one of the connection's goroutines unless the
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

// SessionUpdated learns the negotiated version: it goes in a header on
// every later request, and a session of 2025-11-25 or older opens the
// standalone GET stream.
func (c *httpConn) SessionUpdated(info SessionInfo) {
	c.mu.Lock()
	c.version = info.ProtocolVersion
	c.mu.Unlock()
	if info.ProtocolVersion < firstModernVersion {
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
		c.log.Warn("mcplive: the event stream (GET) did not open within the dial timeout; list changes may be late", "url", shownURL(c.url))
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

// cancelLater sends notifications/cancelled for request id, in the
// background and bounded.
func (c *httpConn) cancelLater(id RawMessage) {
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
		_ = c.WriteDescribed(ctx, b, jsonrpc.Outgoing{Method: methods.NotifyCancelled})
	})
}

// track notes request id as in flight: Close cancels it on the server.
func (c *httpConn) track(id RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight == nil {
		c.inflight = make(map[string]struct{})
	}
	c.inflight[string(id)] = struct{}{}
}

// settle notes that request id is no longer in flight: answered, given
// up, or never sent.
func (c *httpConn) settle(id RawMessage) {
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
			c.err = printf.Errorf("%w by the client", ErrClosed)
		}
		c.queue.Drop()
		sid, expired, version := c.sessionID, c.expired, c.version
		var inflight []RawMessage
		for id := range c.inflight {
			inflight = append(inflight, RawMessage(id))
		}
		c.mu.Unlock()
		c.cancel()
		if sid != "" && !expired {
			ctx, cancel := context.WithTimeout(context.Background(), min(c.dialTimeout, 5*time.Second))
			if version < firstModernVersion {
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
					if resp, err := c.sendOnce(ctx, methodPost, b, jsonrpc.Outgoing{Method: methods.NotifyCancelled}, ""); err == nil {
						resp.Body.Close()
					}
				}
			}
			if resp, err := c.sendOnce(ctx, methodDelete, nil, jsonrpc.Outgoing{}, ""); err == nil {
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

// Pushes reports whether the server can tell this connection of changes
// between requests: false once a 2025-11-25 server answered the
// standalone stream's GET with 405 (a stateless server).
func (c *httpConn) Pushes() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.noPush
}

// One request of the Streamable HTTP transport: the session's headers,
// the dial timeout of the first answer, credentials, redirects.

// noteSession keeps the session id the server assigned (with its first
// answer: initialize). A different id later is ignored: the session is
// the one the client initialized.
func (c *httpConn) noteSession(resp *httpResponse) {
	sid := resp.Header.Get(headerSessionID)
	if sid == "" || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return
	}
	c.mu.Lock()
	old := c.sessionID
	if old == "" {
		c.sessionID = sid
	}
	c.mu.Unlock()
	if old != "" && old != sid {
		c.log.Warn("mcplive: the server sent a different session id; keeping the first", "first", old, "now", sid)
	}
}
