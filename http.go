package mcplive

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
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

func parseOutgoing(msg []byte) (jsonrpc.Outgoing, error) {
	// By hand, as encoding/json would read them (jsonwire.go).
	var env struct {
		ID     RawMessage
		Method string
		Params RawMessage
	}
	if err := jsontext.Decode(msg, "message", []jsontext.Field{{Name: "id", Dst: &env.ID}, {Name: "method", Dst: &env.Method}, {Name: "params", Dst: &env.Params}}); err != nil {
		return jsonrpc.Outgoing{}, printf.Errorf("mcplive: write: not one JSON-RPC message: %v", err)
	}
	m := jsonrpc.Outgoing{Method: env.Method}
	if env.Method != "" && len(env.ID) > 0 && string(env.ID) != "null" {
		m.ID = env.ID
	}
	if len(env.Params) > 0 && env.Params[0] == '{' {
		var name, uri string
		// Best effort: the headers are extras.
		_ = jsontext.Decode(env.Params, "params", []jsontext.Field{{Name: "name", Dst: &name}, {Name: "uri", Dst: &uri}, {Name: "_meta", Dst: func(v []byte) error {
			return jsontext.DecodeFields(v, "_meta", []jsontext.Field{{Name: metaProtocolVersion, Dst: &m.Version}})
		}}})
		m.Name = name
		if m.Name == "" {
			m.Name = uri
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
	return c.WriteDescribed(ctx, msg, m)
}

// WriteDescribed is Write of a message that the JSON-RPC layer describes
// (jsonrpc.DescribedWriter): what parseOutgoing would read of it is m.
func (c *httpConn) WriteDescribed(ctx context.Context, msg []byte, m jsonrpc.Outgoing) error {
	return c.writePost(post{ctx: ctx, msg: msg, m: m})
}

// writePost sends p (anew, when p.resends > 0: lost).
func (c *httpConn) writePost(p post) (err error) {
	ctx, msg, m := p.ctx, p.msg, p.m
	defer func() {
		if err != nil && m.IsRequest() && c.failure() != nil && !errors.Is(err, jsonrpc.ErrNotSent) {
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
		if m.IsRequest() {
			// The connection ended before this request was written (a
			// failure of another request ended it: the listen stream's
			// re-open, a page of a walk): it certainly never reached the
			// server, and its caller may send it on the next connection.
			return jsonrpc.NotSent(err)
		}
		return err
	}
	if m.Method == methods.NotifyCancelled && !c.legacy(m) {
		// 2026-07-28: closing the request's stream is the cancellation
		// (the caller's context ended, which closed it); the revision
		// defines no notification POSTs.
		return nil
	}
	reqCtx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.ctx, cancel)
	handedOff := false
	if m.IsRequest() {
		c.track(m.ID)
	}
	defer func() {
		if !handedOff {
			stop()
			cancel()
			c.settle(m.ID)
		}
	}()

	resp, err := c.send(reqCtx, methodPost, msg, m, "")
	if err != nil {
		if ctx.Err() != nil && m.IsRequest() && c.legacy(m) {
			// The request may have reached the server: tell it to stop,
			// as the spec asks (a dropped POST does not cancel).
			c.cancelLater(m.ID)
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
		if d := retryAfterOf(err); d > 0 && m.IsRequest() && resendable(m.Method) && p.resends < maxResends && c.failure() == nil {
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
		if err != nil && !m.IsRequest() && m.Method != methods.NotifyInitialized && !errors.Is(err, ErrClosed) {
			// One refused notification or response (a cancellation of
			// a request the server forgot, say) is no broken
			// connection: HTTP carries on.
			c.log.Warn("mcplive: the server refused a message", "message", m.What(), "err", err)
			return nil
		}
		return err
	}
	if !m.IsRequest() {
		// Its body (none, as a rule) is read to its end, not aborted.
		body := resp.Body
		detach(body)
		if !c.goTracked(func() { release(body) }) {
			body.Close()
		}
		if resp.StatusCode != statusAccepted && resp.StatusCode != statusNoContent {
			c.log.Info("mcplive: the server answered a notification or response with a status other than 202", "status", resp.Status, "message", m.What())
		}
		c.setEstablished()
		if m.Method == methods.NotifyInitialized {
			// For a session that does not call SessionUpdated: the
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
			defer c.settle(m.ID)
			defer stop()
			defer cancel()
			c.readJSON(reqCtx, resp, p)
		})
	case "text/event-stream":
		c.setEstablished()
		handedOff = c.goTracked(func() {
			defer c.settle(m.ID)
			defer stop()
			defer cancel()
			c.follow(reqCtx, resp, &p, m.Method)
		})
	default:
		resp.Body.Close()
		what := printf.Sprintf("Content-Type %q", resp.Header.Get("Content-Type"))
		if resp.StatusCode == statusAccepted || resp.StatusCode == statusNoContent || resp.ContentLength == 0 {
			what = printf.Sprintf("%s and no body", resp.Status)
		}
		err := printf.Errorf("%w: the server answered the %s request with %s; Streamable HTTP answers a request with application/json or text/event-stream",
			ErrProtocol, m.Method, what)
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
func (c *httpConn) legacy(m jsonrpc.Outgoing) bool {
	if m.Version != "" {
		return m.Version < firstModernVersion
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version < firstModernVersion
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

// send makes one request with the session's headers: msg is the POST
// body, lastEventID resumes a GET stream. Before the server first answered,
// the wait for the answer is bounded by the dial timeout, and a failure
// wraps ErrDial. A 401 goes through OnUnauthorized, which may have the
// request sent once more.
func (c *httpConn) send(ctx context.Context, method string, msg []byte, m jsonrpc.Outgoing, lastEventID string) (*httpResponse, error) {
	for attempt := 0; ; attempt++ {
		resp, err := c.sendOnce(ctx, method, msg, m, lastEventID)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 400 || c.onUnauth == nil || attempt > 0 || !isAuthChallenge(resp) {
			return resp, nil
		}
		aerr := c.authError(resp, method)
		resp.Body.Close()
		if err := c.onUnauth(ctx, aerr); err != nil {
			return nil, printf.Errorf("%w (OnUnauthorized: %w)", aerr, err)
		}
	}
}

func (c *httpConn) sendOnce(ctx context.Context, method string, msg []byte, m jsonrpc.Outgoing, lastEventID string) (*httpResponse, error) {
	req := &httpRequest{Method: method, URL: c.url, Header: c.header.Clone(), Body: msg}
	if req.Header == nil {
		req.Header = Header{}
	}
	if c.creds != nil {
		h, err := c.creds(ctx, method, c.url)
		if err != nil {
			return nil, printf.Errorf("mcplive: %s %s: get credentials: %w", method, shownURL(c.url), err)
		}
		for k, v := range h {
			if len(v) > 0 {
				req.Header.Set(k, v[0])
			}
		}
	} else if c.token != nil {
		tok, err := c.token(ctx)
		if err != nil {
			return nil, printf.Errorf("mcplive: %s %s: get token: %w", method, shownURL(c.url), err)
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
	}
	c.mu.Lock()
	sid, version, established := c.sessionID, c.version, c.established
	c.mu.Unlock()
	if m.Version != "" {
		version = m.Version
	}
	switch method {
	case methodPost:
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	case methodGet:
		req.Header.Set("Accept", "text/event-stream")
	}
	if sid != "" {
		req.Header.Set(headerSessionID, sid)
	}
	if version != "" {
		req.Header.Set(headerProtocolVersion, version)
	}
	if version >= firstModernVersion && m.Method != "" && m.IsRequest() {
		req.Header.Set(headerMethod, m.Method)
		switch m.Method {
		case methods.CallTool, methods.GetPrompt, methods.ReadResource:
			if m.Name != "" {
				req.Header.Set(headerName, encodeHeaderValue(m.Name))
			}
			if m.Method == methods.CallTool {
				c.setParamHeaders(req.Header, m.Name, msg)
			}
		}
	}
	if lastEventID != "" {
		req.Header.Set(headerLastEventID, lastEventID)
	}

	// Before the server first answered, the wait for its answer is
	// bounded like a WebSocket's handshake (the dial timeout); the timer
	// stops once the answer has begun, and the body reads on in actx.
	actx, acancel := context.WithCancel(ctx)
	var timedOut atomic.Bool
	var timer *time.Timer // made only when it can fire: most requests need none
	if !established && method == methodPost {
		timer = time.AfterFunc(c.dialTimeout, func() { timedOut.Store(true); acancel() })
	}
	req.ctx = actx
	resp, err := c.rt.roundTrip(req)
	if timer != nil && !timer.Stop() && timedOut.Load() && ctx.Err() == nil {
		if err == nil {
			resp.Body.Close()
		}
		acancel()
		return nil, printf.Errorf("mcplive: %s %s: no answer within %v: %w (%w)", method, shownURL(c.url), c.dialTimeout, ErrTimeout, ErrDial)
	}
	if err == nil {
		resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: acancel}
		return resp, nil
	}
	acancel()
	if ctx.Err() != nil {
		if c.ctx.Err() != nil {
			if method == methodPost && unwritten(err) {
				// The connection ended (another request's failure ended
				// it) before this request was written: it never reached
				// the server (jsonrpc.ErrNotSent).
				return nil, jsonrpc.NotSent(c.closedErr())
			}
			return nil, c.closedErr()
		}
		return nil, ctx.Err()
	}
	if errors.Is(err, errRedirect) {
		return nil, c.dialErr(printf.Errorf("%w: %s %s: %w", ErrProtocol, method, shownURL(c.url), err), "")
	}
	hint := "is the server up and the URL right?"
	if inBrowser() {
		hint = "is the server up and the URL right? In a browser a CORS refusal fails the same way: the server must allow this page's Origin, the methods GET, POST and DELETE, the headers Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, the Mcp-Param-… headers of its tools' x-mcp-header parameters and Last-Event-ID, and expose Mcp-Session-Id"
	}
	if !established {
		return nil, withAdvice(printf.Errorf("mcplive: %s %s: %w (%w)", method, shownURL(c.url), err, ErrDial), hint)
	}
	if method == methodGet {
		// The event stream is optional: a proxy that allows POST only, a
		// CORS refusal of GET, a redirect loop fail it alone (reopen).
		return nil, withAdvice(printf.Errorf("mcplive: %s %s: %w", method, shownURL(c.url), err), hint)
	}
	// The server is out of reach: the connection ends, as a dropped
	// WebSocket does, and the client reconnects.
	cause := err
	err = withAdvice(printf.Errorf("mcplive: %s %s: %w: %w", method, shownURL(c.url), ErrClosed, err), hint)
	c.fail(err)
	if serverUnreachable(cause) || writeRefused(cause) || unwritten(cause) {
		// This request certainly never reached the server: its caller
		// may send it again on the next connection (jsonrpc.ErrNotSent).
		return nil, jsonrpc.NotSent(err)
	}
	return nil, err
}

// cancelOnClose ends a request's context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) detach() { detach(b.ReadCloser) }

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// errRedirect reports a redirect the transport does not follow: one that
// would turn a POST into a GET (301, 302, 303), one to another origin, a
// loop, too many.
var errRedirect = errors.New("redirect not followed")

// maxRedirects bounds the redirects of one request.
const maxRedirects = 10

// followRedirects sends r through once (one request to url, redirects not
// followed) and follows the redirects of its answers as the transport
// does: 307 and 308 keep the method and the body, and 301, 302 and 303 do
// for a GET; a POST redirected with 301, 302 or 303 (which would become a
// GET) fails, naming the redirect and its target. A redirect to another
// origin is not followed: the app's headers, the session id and the token
// are for the MCP server's origin alone. A loop is reported as one.
// resolve makes a Location absolute against the URL it answered.
func followRedirects(r *httpRequest, once func(url string) (*httpResponse, error), resolve func(base, ref string) (string, error)) (*httpResponse, error) {
	cur := r.URL
	seen := []string{cur}
	for {
		resp, err := once(cur)
		if err != nil {
			return nil, err
		}
		code, loc := resp.StatusCode, resp.Header.Get("Location")
		if code != 301 && code != 302 && code != 303 && code != 307 && code != 308 || loc == "" {
			resp.Request = r
			return resp, nil
		}
		resp.Body.Close()
		next, err := resolve(cur, loc)
		if err != nil {
			return nil, printf.Errorf("%w: the server redirected the %s to a bad URL %q: %v", errRedirect, r.Method, loc, err)
		}
		switch {
		case !strings.EqualFold(originOf(next), originOf(cur)):
			return nil, printf.Errorf("%w: the server redirected the %s with %d to another origin, %s; mcplive does not follow it (the app's headers, the session id and the token are for the MCP server's origin alone): use that URL if it is the MCP endpoint",
				errRedirect, r.Method, code, redactURL(next))
		case code < 307 && r.Method != methodGet:
			return nil, printf.Errorf("%w: the server redirected a %s to %s with %d, which turns it into a GET; use the URL it redirects to",
				errRedirect, r.Method, redactURL(next), code)
		case slices.Contains(seen, next):
			return nil, printf.Errorf("%w: a redirect loop: %s → %s", errRedirect, strings.Join(mapStrings(seen, redactURL), " → "), redactURL(next))
		case len(seen) > maxRedirects:
			return nil, printf.Errorf("%w: stopped after %d redirects (last to %s)", errRedirect, maxRedirects, redactURL(next))
		}
		seen = append(seen, next)
		cur = next
	}
}

// originOf returns the scheme and authority of an absolute URL, lower-cased
// ("https://example.com:8443").
func originOf(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:] // no user info
	}
	return strings.ToLower(scheme + "://" + rest)
}

// redactURL drops the user info (a password) of a URL, for error texts.
func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	end := len(rest)
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		end = i
	}
	if i := strings.LastIndexByte(rest[:end], '@'); i >= 0 {
		return scheme + "://" + rest[i+1:]
	}
	return u
}

func mapStrings(ss []string, fn func(string) string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fn(s)
	}
	return out
}

// httpRequest is one request as the transport sends it, and
// httpResponse one answer: net/http's types would do, but under
// WebAssembly they link Go's TLS and X.509 code into the binary (about
// 40 KB compressed) for nothing: the browser twin (http_js.go) speaks
// fetch without them.
type httpRequest struct {
	ctx    context.Context
	Method string
	URL    string
	Header Header
	Body   []byte
}

type httpResponse struct {
	StatusCode    int
	Status        string // "404 Not Found"
	Header        Header
	ContentLength int64 // -1 when unknown
	Body          io.ReadCloser
	Request       *httpRequest // the request sent (its headers)
}

// roundTripper sends one request (natively through net/http, in browsers
// and Node through fetch), following redirects that keep the method.
type roundTripper interface {
	roundTrip(*httpRequest) (*httpResponse, error)
}

// mediaType returns the media type of a Content-Type value, lower-cased,
// without its parameters (mime.ParseMediaType, without package mime in the
// wasm).
func mediaType(ct string) string {
	t, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// encodeHeaderValue returns s as it may travel in Mcp-Name: as it is when
// it is plain ASCII, in the "=?base64?…?=" form otherwise (2026-07-28).
func encodeHeaderValue(s string) string {
	plain := s != "" && s[0] != ' ' && s[0] != '\t' && s[len(s)-1] != ' ' && s[len(s)-1] != '\t' &&
		!(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?="))
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7E
	}
	if plain {
		return s
	}
	b := append(make([]byte, 0, len("=?base64?")+(len(s)+2)/3*4+len("?=")), "=?base64?"...)
	return string(append(appendBase64(b, s), "?="...))
}

// appendBase64 appends s in standard base64 with padding (RFC 4648 §4), as
// base64.StdEncoding encodes it: the one base64 the wasm writes, without
// package encoding/base64 and its tables in the wasm.
func appendBase64(b []byte, s string) []byte {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for ; len(s) >= 3; s = s[3:] {
		v := uint(s[0])<<16 | uint(s[1])<<8 | uint(s[2])
		b = append(b, alphabet[v>>18&63], alphabet[v>>12&63], alphabet[v>>6&63], alphabet[v&63])
	}
	switch len(s) {
	case 1:
		v := uint(s[0]) << 16
		b = append(b, alphabet[v>>18&63], alphabet[v>>12&63], '=', '=')
	case 2:
		v := uint(s[0])<<16 | uint(s[1])<<8
		b = append(b, alphabet[v>>18&63], alphabet[v>>12&63], alphabet[v>>6&63], '=')
	}
	return b
}
