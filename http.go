package mcplive

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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
// before the response; a standalone GET event stream carries what the
// server says between calls (list changes). It keeps the session id the
// server assigns, resumes dropped event streams with Last-Event-ID, and
// ends the session with DELETE on Close.
//
// Natively the requests go through a transport of the connection's own,
// a clone of http.DefaultTransport (its proxy and TLS settings apply).
// Compiled to WebAssembly they go through the JavaScript fetch API with
// streamed bodies, in browsers and in Node (http_js.go); a page's server
// must allow its origin (see the README on CORS). Redirects that keep the
// method (307, 308) are followed; one that would turn a POST into a GET
// (301, 302, 303) fails with an error that says so (fetch follows
// redirects itself).
//
// A zero field means its default. The transport may be shared by many
// connections, and must not be modified once in use.
type HTTPTransport struct {
	// URL is the http:// or https:// MCP endpoint.
	URL string
	// Header holds extra headers for every request (the transport's own
	// headers win over these).
	Header http.Header
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

func (t *HTTPTransport) withDialTimeout(d time.Duration) Transport {
	c := *t
	c.DialTimeout = d
	return &c
}

func (t *HTTPTransport) dialTimeout() time.Duration { return t.DialTimeout }

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
		wake:        make(chan struct{}, 1),
	}
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
	header      http.Header
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
	queue       [][]byte // messages for Read, in arrival order per stream
	err         error    // why the connection ended, once it did
	closed      bool
	sessionID   string
	version     string // negotiated protocol version, from sessionUpdated
	established bool   // the server has answered a message as it should
	expired     bool   // the server ended the session (404)
	getStarted  bool
	inflight    map[string]struct{} // ids of requests sent and not answered
	wake        chan struct{}       // signals Read: a message or the end

	closeOnce sync.Once
}

// Read returns the next message from any of the connection's streams.
func (c *httpConn) Read(ctx context.Context) ([]byte, error) {
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return m, nil
		}
		err := c.err
		c.mu.Unlock()
		if err != nil {
			return nil, err
		}
		select {
		case <-c.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *httpConn) push(msg []byte) {
	c.mu.Lock()
	if !c.closed {
		c.queue = append(c.queue, msg)
	}
	c.mu.Unlock()
	c.signal()
}

func (c *httpConn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
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
	c.signal()
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

// outgoing is what Write needs to know of a message.
type outgoing struct {
	id      json.RawMessage // a request's id; nil for notifications and responses
	method  string
	version string // the protocol version in the request's _meta, if any
	name    string // params.name or params.uri, for Mcp-Name
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
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(msg, &env); err != nil {
		return outgoing{}, fmt.Errorf("mcplive: write: not one JSON-RPC message: %v", err)
	}
	m := outgoing{method: env.Method}
	if env.Method != "" && len(env.ID) > 0 && string(env.ID) != "null" {
		m.id = env.ID
	}
	if len(env.Params) > 0 && env.Params[0] == '{' {
		var p struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
			Meta struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal(env.Params, &p) // best effort: the headers are extras
		m.version = p.Meta.Version
		m.name = p.Name
		if m.name == "" {
			m.name = p.URI
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
func (c *httpConn) Write(ctx context.Context, msg []byte) (err error) {
	m, err := parseOutgoing(msg)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil && m.isRequest() && c.failure() != nil {
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
	if m.method == "notifications/cancelled" && !c.legacy(m) {
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

	resp, err := c.send(reqCtx, http.MethodPost, msg, m, "")
	if err != nil {
		if ctx.Err() != nil && m.isRequest() && c.legacy(m) {
			// The request may have reached the server: tell it to stop,
			// as the spec asks (a dropped POST does not cancel).
			c.cancelLater(m.id)
		}
		return err
	}
	c.noteSession(resp)

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		err := c.refused(resp, m)
		if err != nil && !m.isRequest() && m.method != "notifications/initialized" && !errors.Is(err, ErrClosed) {
			// One refused notification or response (a cancellation of
			// a request the server forgot, say) is no broken
			// connection: HTTP carries on.
			c.log.Warn("mcplive: the server refused a message", "message", m.what(), "err", err)
			return nil
		}
		return err
	}
	if !m.isRequest() {
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusNoContent {
			c.log.Info("mcplive: the server answered a notification or response with a status other than 202", "status", resp.Status, "message", m.what())
		}
		c.setEstablished()
		if m.method == "notifications/initialized" {
			// For a session that does not call sessionUpdated: the
			// standalone stream opens once the session is initialized.
			c.startGET()
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
			c.readJSON(reqCtx, resp, m)
		})
	case "text/event-stream":
		c.setEstablished()
		handedOff = c.goTracked(func() {
			defer c.settle(m.id)
			defer stop()
			defer cancel()
			c.follow(reqCtx, resp, m.id, m.method)
		})
	default:
		resp.Body.Close()
		what := fmt.Sprintf("Content-Type %q", resp.Header.Get("Content-Type"))
		if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent || resp.ContentLength == 0 {
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
	b, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]any{"requestId": id, "reason": "cancelled by the client"},
	})
	if err != nil {
		return
	}
	c.goTracked(func() {
		ctx, cancel := context.WithTimeout(c.ctx, c.dialTimeout)
		defer cancel()
		_ = c.Write(ctx, b)
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

func (c *httpConn) isEstablished() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.established
}

func (c *httpConn) setEstablished() {
	c.mu.Lock()
	c.established = true
	c.mu.Unlock()
}

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
func (c *httpConn) send(ctx context.Context, method string, msg []byte, m outgoing, lastEventID string) (*httpResponse, error) {
	for attempt := 0; ; attempt++ {
		resp, err := c.sendOnce(ctx, method, msg, m, lastEventID)
		if err != nil {
			return nil, err
		}
		if !isAuthChallenge(resp) || c.onUnauth == nil || attempt > 0 {
			return resp, nil
		}
		aerr := c.authError(resp, method)
		resp.Body.Close()
		if err := c.onUnauth(ctx, aerr); err != nil {
			return nil, fmt.Errorf("%w (OnUnauthorized: %w)", aerr, err)
		}
	}
}

func (c *httpConn) sendOnce(ctx context.Context, method string, msg []byte, m outgoing, lastEventID string) (*httpResponse, error) {
	req := &httpRequest{Method: method, URL: c.url, Header: c.header.Clone(), Body: msg}
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if c.token != nil {
		tok, err := c.token(ctx)
		if err != nil {
			return nil, fmt.Errorf("mcplive: %s %s: get token: %w", method, c.url, err)
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
	}
	c.mu.Lock()
	sid, version, established := c.sessionID, c.version, c.established
	c.mu.Unlock()
	if m.version != "" {
		version = m.version
	}
	switch method {
	case http.MethodPost:
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	case http.MethodGet:
		req.Header.Set("Accept", "text/event-stream")
	}
	if sid != "" {
		req.Header.Set(headerSessionID, sid)
	}
	if version != "" {
		req.Header.Set(headerProtocolVersion, version)
	}
	if version >= modernVersion && m.method != "" && m.isRequest() {
		req.Header.Set(headerMethod, m.method)
		switch m.method {
		case "tools/call", "prompts/get", "resources/read":
			if m.name != "" {
				req.Header.Set(headerName, encodeHeaderValue(m.name))
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
	timer := time.AfterFunc(c.dialTimeout, func() { timedOut.Store(true); acancel() })
	if established || method != http.MethodPost {
		timer.Stop()
	}
	req.ctx = actx
	resp, err := c.rt.roundTrip(req)
	if !timer.Stop() && timedOut.Load() && ctx.Err() == nil {
		if err == nil {
			resp.Body.Close()
		}
		acancel()
		return nil, fmt.Errorf("mcplive: %s %s: no answer within %v: %w (%w)", method, c.url, c.dialTimeout, ErrTimeout, ErrDial)
	}
	if err == nil {
		resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: acancel}
		return resp, nil
	}
	acancel()
	if ctx.Err() != nil {
		if c.ctx.Err() != nil {
			return nil, c.closedErr()
		}
		return nil, ctx.Err()
	}
	if errors.Is(err, errRedirectMethod) {
		return nil, c.dialErr(fmt.Errorf("%w: %s %s: %v", ErrProtocol, method, c.url, err), "")
	}
	hint := "is the server up and the URL right?"
	if runtime.GOOS == "js" {
		hint = "is the server up and the URL right? In a browser a CORS refusal fails the same way: the server must allow this page's Origin, the methods GET, POST and DELETE, the headers Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name and Last-Event-ID, and expose Mcp-Session-Id"
	}
	if !established {
		return nil, fmt.Errorf("mcplive: %s %s: %w (%v); %s", method, c.url, ErrDial, err, hint)
	}
	// The server is out of reach: the connection ends, as a dropped
	// WebSocket does, and the client reconnects.
	err = fmt.Errorf("mcplive: %s %s: %w: %v; %s", method, c.url, ErrClosed, err, hint)
	c.fail(err)
	return nil, err
}

// cancelOnClose ends a request's context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// errRedirectMethod reports a redirect that would change a request's method.
var errRedirectMethod = errors.New("redirect changes the method")

// httpRequest is one request as the transport sends it, and
// httpResponse one answer: net/http's types would do, but under
// WebAssembly they link Go's TLS and X.509 code into the binary (about
// 40 KB compressed) for nothing: the browser twin (http_js.go) speaks
// fetch without them.
type httpRequest struct {
	ctx    context.Context
	Method string
	URL    string
	Header http.Header
	Body   []byte
}

type httpResponse struct {
	StatusCode    int
	Status        string // "404 Not Found"
	Header        http.Header
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

// closedErr is the error of a request that Close (or a failure) cut off.
func (c *httpConn) closedErr() error {
	if err := c.failure(); err != nil {
		return err
	}
	return fmt.Errorf("%w by the client", ErrClosed)
}

// dialErr adds ErrDial to err while no message has been answered yet: the
// server at this URL does not speak Streamable HTTP as it should.
func (c *httpConn) dialErr(err error, hint string) error {
	c.mu.Lock()
	established := c.established
	c.mu.Unlock()
	if established {
		return err
	}
	if hint != "" {
		return fmt.Errorf("%w: %w; %s", ErrDial, err, hint)
	}
	return fmt.Errorf("%w: %w", ErrDial, err)
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
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// refused handles a POST answered with an HTTP error status.
func (c *httpConn) refused(resp *httpResponse, m outgoing) error {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err := c.sessionGone(resp); err != nil {
		return err
	}
	if m.isRequest() {
		if rpcErr := jsonRPCErrorBody(body); rpcErr != nil {
			// The server's answer to the request, in JSON-RPC terms.
			b, err := json.Marshal(struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   json.RawMessage `json:"error"`
			}{"2.0", m.id, rpcErr})
			if err == nil {
				c.push(b)
				return nil
			}
		}
	}
	if isAuthChallenge(resp) {
		aerr := c.authError(resp, http.MethodPost)
		return aerr
	}
	herr := &HTTPError{Method: http.MethodPost, URL: c.url, StatusCode: resp.StatusCode, Status: resp.Status, Body: bodySnippet(body)}
	c.mu.Lock()
	established, sid := c.established, c.sessionID
	c.mu.Unlock()
	if !established {
		herr.err = ErrDial
	}
	if runtime.GOOS == "js" && established && sid == "" && resp.StatusCode == http.StatusBadRequest {
		// A browser hides a response header unless the server exposes it.
		herr.hint = "if the server assigned a session id, it must expose it to pages: Access-Control-Expose-Headers: Mcp-Session-Id"
	}
	return fmt.Errorf("mcplive: %s: %w", m.what(), herr)
}

// sessionGone returns the error that ends the connection when resp is a
// 404 to a request that carried the session id: the server ended the
// session (expired, restarted, deleted), and the client must start a new
// one. It returns nil for any other answer.
func (c *httpConn) sessionGone(resp *httpResponse) error {
	sid := resp.Request.Header.Get(headerSessionID)
	if resp.StatusCode != http.StatusNotFound || sid == "" {
		return nil
	}
	err := fmt.Errorf("%w: the server ended session %q (%s %s answered 404 Not Found): a new session is needed", ErrClosed, sid, resp.Request.Method, c.url)
	c.mu.Lock()
	c.expired = true
	c.mu.Unlock()
	c.fail(err)
	return err
}

// jsonRPCErrorBody returns the error member of body when body is one
// JSON-RPC error response.
func jsonRPCErrorBody(body []byte) json.RawMessage {
	var v struct {
		JSONRPC string          `json:"jsonrpc"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil || v.JSONRPC != "2.0" || len(v.Error) == 0 || v.Error[0] != '{' {
		return nil
	}
	var e RPCError
	if json.Unmarshal(v.Error, &e) != nil || e.Message == "" && e.Code == 0 {
		return nil
	}
	return v.Error
}

func bodySnippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// readJSON reads a request's JSON answer and queues it.
func (c *httpConn) readJSON(ctx context.Context, resp *httpResponse, m outgoing) {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.limit+1))
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return // the caller stopped waiting, or Close
		}
		// The connection broke (the server went away): the client's
		// connection ends, as a dropped WebSocket's.
		c.fail(fmt.Errorf("%w: the connection broke while reading the answer to %s: %v", ErrClosed, m.method, err))
	case int64(len(b)) > c.limit:
		c.fail(fmt.Errorf("%w: the answer to %s is larger than the read limit of %d bytes", ErrProtocol, m.method, c.limit))
	default:
		c.push(b)
	}
}

// failRequest answers request id in the server's stead with an error: its
// answer cannot come any more (the stream ended without it, and cannot be
// resumed). The connection carries on.
func (c *httpConn) failRequest(id json.RawMessage, why string) {
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   RPCError        `json:"error"`
	}{"2.0", id, RPCError{Code: CodeInternalError, Message: "mcplive: " + why}})
	if err == nil {
		c.push(b)
	}
}

// Stream resumption: an attempt waits the server's retry time, or
// reopenDelay (short: a session that the server ended is noticed at once;
// not zero: a server that closes every stream at once must not make a busy
// loop); from the second attempt in a row that brought nothing, each one
// doubles the wait, up to maxReopenDelay. A request's stream is given up
// after maxReopenFailures failed attempts in a row.
const (
	reopenDelay       = 100 * time.Millisecond
	maxReopenDelay    = 30 * time.Second
	maxReopenFailures = 5
)

// follow reads an event stream and queues its messages. For a request's
// stream (id set) it stops at the response to that request; the
// standalone stream (id nil, resp nil: opened here) runs until Close.
// When the stream drops it is resumed with a GET carrying Last-Event-ID
// (or, for the standalone stream without an event id, opened anew), after
// the server's retry time.
func (c *httpConn) follow(ctx context.Context, resp *httpResponse, id json.RawMessage, what string) {
	var (
		lastID   string
		retry    time.Duration
		failures int
		opened   = resp != nil // a stream was open before
	)
	for {
		if resp == nil {
			var err error
			resp, err = c.reopen(ctx, id, what, lastID, retry, failures, opened)
			if resp == nil {
				if err != nil {
					// A server error: try again, without end for the
					// standalone stream (it comes back with the server).
					failures++
					if id == nil || failures < maxReopenFailures {
						continue
					}
					c.streamLost(id, what, err)
				}
				return
			}
			if id == nil && opened && lastID == "" {
				// Nothing could be resumed: what the server said while the
				// stream was down is lost. Re-list everything.
				c.invalidateAll()
			}
			opened = true
		}
		sr := newSSEReader(resp.Body, c.limit)
		progress, done, err := c.readEvents(sr, id)
		resp.Body.Close()
		resp = nil
		if sr.lastID != "" {
			lastID = sr.lastID
		}
		if sr.retry > 0 {
			retry = sr.retry
		}
		if done || ctx.Err() != nil {
			return
		}
		if errors.Is(err, errEventTooLarge) {
			c.fail(fmt.Errorf("%w: %s: %s", ErrProtocol, what, describeSSEError(err, c.limit)))
			return
		}
		if progress {
			failures = 0
		} else {
			failures = min(failures+1, 8) // an empty stream: poll more slowly
		}
		c.log.Info("mcplive: event stream ended", "stream", what, "why", describeSSEError(err, c.limit), "lastEventId", lastID)
		if id != nil && lastID == "" {
			if sr.broken() {
				// The connection broke (the server went away): the
				// client's connection ends, as a dropped WebSocket's.
				c.fail(fmt.Errorf("%w: the connection broke while reading the answer to %s: %v", ErrClosed, what, err))
				return
			}
			c.failRequest(id, fmt.Sprintf("the server ended the event stream of %s without answering, and gave no event id to resume it from (%s)", what, describeSSEError(err, c.limit)))
			return
		}
	}
}

// readEvents queues the messages of one stream. It reports whether any
// event came, and whether the response to request id came (the stream is
// then done).
func (c *httpConn) readEvents(sr *sseReader, id json.RawMessage) (progress, done bool, err error) {
	for {
		ev, err := sr.next()
		if err != nil {
			return progress, false, err
		}
		progress = true
		if len(ev.data) == 0 || (ev.name != "" && ev.name != "message") {
			continue // a priming event (an id only), or not a JSON-RPC message
		}
		c.push(ev.data)
		if id != nil && isResponseTo(ev.data, id) {
			return true, true, nil
		}
	}
}

// isResponseTo reports whether msg is the response to request id.
func isResponseTo(msg []byte, id json.RawMessage) bool {
	m, err := parseEnvelope(msg)
	return err == nil && m.Method == "" && (m.Result != nil || m.Error != nil) && bytes.Equal(bytes.TrimSpace(m.ID), bytes.TrimSpace(id))
}

// invalidateAll queues the list_changed notifications of every kind, so
// that the lists are fetched anew after a gap in which changes may have
// been missed.
func (c *httpConn) invalidateAll() {
	for _, m := range []string{"notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed"} {
		c.push([]byte(`{"jsonrpc":"2.0","method":"` + m + `"}`))
	}
}

// reopen waits and then sends the GET that (re)opens a stream. It returns
// the open stream; or nil and an error worth another attempt; or nil, nil
// when the stream is over (the cause is already dealt with).
func (c *httpConn) reopen(ctx context.Context, id json.RawMessage, what, lastID string, retry time.Duration, failures int, opened bool) (*httpResponse, error) {
	if opened || failures > 0 {
		delay := reopenDelay
		if retry > 0 {
			delay = retry
		}
		for i := 1; i < failures && delay < maxReopenDelay; i++ {
			delay *= 2
		}
		delay = min(delay, maxReopenDelay)
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, nil
		}
	}
	resp, err := c.send(ctx, http.MethodGet, nil, outgoing{}, lastID)
	if err != nil {
		if ctx.Err() == nil {
			// Out of reach (send ended the connection), or no token.
			c.fail(fmt.Errorf("%s: %w", what, err))
		}
		return nil, nil
	}
	ct := mediaType(resp.Header.Get("Content-Type"))
	switch code := resp.StatusCode; {
	case code >= 200 && code <= 299 && ct == "text/event-stream":
		return resp, nil
	case code >= 200 && code <= 299:
		resp.Body.Close()
		c.streamLost(id, what, fmt.Errorf("%w: the server answered the GET with Content-Type %q, not text/event-stream", ErrProtocol, resp.Header.Get("Content-Type")))
		return nil, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if c.sessionGone(resp) != nil {
		return nil, nil
	}
	switch code := resp.StatusCode; {
	case code == http.StatusMethodNotAllowed && id == nil && !opened:
		c.log.Info("mcplive: the server offers no standalone event stream (GET answered 405); list changes arrive only with answers to requests", "url", c.url)
		return nil, nil
	case isAuthChallenge(resp):
		c.fail(fmt.Errorf("%s: %w", what, c.authError(resp, http.MethodGet)))
		return nil, nil
	case code >= 500 || code == http.StatusTooManyRequests || code == http.StatusRequestTimeout:
		return nil, &HTTPError{Method: http.MethodGet, URL: c.url, StatusCode: code, Status: resp.Status, Body: bodySnippet(body)}
	default:
		c.streamLost(id, what, &HTTPError{Method: http.MethodGet, URL: c.url, StatusCode: code, Status: resp.Status, Body: bodySnippet(body)})
		return nil, nil
	}
}

// streamLost gives a stream up: a request's stream fails its request; the
// standalone stream ends with a warning (the session carries on, but
// list changes arrive only with answers to requests).
func (c *httpConn) streamLost(id json.RawMessage, what string, err error) {
	if id != nil {
		c.failRequest(id, fmt.Sprintf("the event stream of %s could not be resumed: %v", what, err))
		return
	}
	c.log.Warn("mcplive: the standalone event stream is gone; list changes arrive only with answers to requests", "url", c.url, "err", err)
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
		c.queue = nil
		sid, expired, version := c.sessionID, c.expired, c.version
		var inflight []json.RawMessage
		for id := range c.inflight {
			inflight = append(inflight, json.RawMessage(id))
		}
		c.mu.Unlock()
		c.signal()
		c.cancel()
		if sid != "" && !expired {
			ctx, cancel := context.WithTimeout(context.Background(), min(c.dialTimeout, 5*time.Second))
			if version < modernVersion {
				// A dropped request goes on running on the server (the
				// spec of 2025-11-25); a server may also hold the DELETE
				// until its requests end (go-sdk does). Cancel them.
				for _, id := range inflight {
					b, err := json.Marshal(map[string]any{
						"jsonrpc": "2.0", "method": "notifications/cancelled",
						"params": map[string]any{"requestId": id, "reason": "the client closed the connection"},
					})
					if err != nil {
						continue
					}
					if resp, err := c.sendOnce(ctx, http.MethodPost, b, outgoing{method: "notifications/cancelled"}, ""); err == nil {
						resp.Body.Close()
					}
				}
			}
			if resp, err := c.sendOnce(ctx, http.MethodDelete, nil, outgoing{}, ""); err == nil {
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

// isAuthChallenge reports an answer that refuses the request's
// credentials: 401, or 403 with a Bearer challenge (insufficient scope).
// A 403 without one is a refused Origin or a plain denial.
func isAuthChallenge(resp *httpResponse) bool {
	return resp.StatusCode == http.StatusUnauthorized ||
		(resp.StatusCode == http.StatusForbidden && resp.Header.Get("WWW-Authenticate") != "")
}

func (c *httpConn) authError(resp *httpResponse, method string) *AuthError {
	h := strings.Join(resp.Header.Values("WWW-Authenticate"), ", ")
	params := parseAuthParams(h)
	e := &AuthError{
		StatusCode:       resp.StatusCode,
		URL:              c.url,
		WWWAuthenticate:  h,
		ResourceMetadata: params["resource_metadata"],
		Scope:            params["scope"],
		Code:             params["error"],
		Description:      params["error_description"],
	}
	c.mu.Lock()
	if !c.established {
		e.err = ErrDial
	}
	c.mu.Unlock()
	return e
}

// parseAuthParams picks the auth-params (name=token or name="quoted")
// out of WWW-Authenticate challenges. Names are lower-cased; the first
// occurrence of a name wins.
func parseAuthParams(h string) map[string]string {
	out := map[string]string{}
	i := 0
	for i < len(h) {
		// A name: a run of token characters followed by '='.
		j := i
		for j < len(h) && isTokenChar(h[j]) {
			j++
		}
		if j == i {
			i++
			continue
		}
		name := strings.ToLower(h[i:j])
		k := j
		for k < len(h) && (h[k] == ' ' || h[k] == '\t') {
			k++
		}
		if k >= len(h) || h[k] != '=' {
			i = j // a scheme name or a token68 part
			continue
		}
		k++
		if k < len(h) && h[k] == '=' {
			// A token68 (base64 padding), not a name=value pair.
			for k < len(h) && h[k] == '=' {
				k++
			}
			i = k
			continue
		}
		for k < len(h) && (h[k] == ' ' || h[k] == '\t') {
			k++
		}
		var val strings.Builder
		if k < len(h) && h[k] == '"' {
			k++
			for k < len(h) && h[k] != '"' {
				if h[k] == '\\' && k+1 < len(h) {
					k++
				}
				val.WriteByte(h[k])
				k++
			}
			k++ // the closing quote
		} else {
			for k < len(h) && isTokenChar(h[k]) {
				val.WriteByte(h[k])
				k++
			}
		}
		if _, ok := out[name]; !ok {
			out[name] = val.String()
		}
		i = k
	}
	return out
}

// isTokenChar reports a character of an RFC 9110 token.
func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// AuthError reports a request whose credentials the server refused: HTTP
// 401, or 403 with a Bearer challenge (insufficient scope). Get it with
// errors.As. ResourceMetadata is where an OAuth client starts (RFC 9728:
// the protected resource metadata names the authorization servers). Before
// the session was established it also matches ErrDial.
type AuthError struct {
	StatusCode int
	URL        string
	// WWWAuthenticate is the server's challenge as it sent it.
	WWWAuthenticate string
	// ResourceMetadata, Scope, Code (the "error" parameter, such as
	// invalid_token or insufficient_scope) and Description are the
	// challenge's parameters, when present.
	ResourceMetadata string
	Scope            string
	Code             string
	Description      string

	err error
}

func (e *AuthError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcplive: %s refused the credentials (HTTP %d)", e.URL, e.StatusCode)
	if e.Code != "" {
		fmt.Fprintf(&b, ": %s", e.Code)
	}
	if e.Description != "" {
		fmt.Fprintf(&b, " (%s)", e.Description)
	}
	if e.ResourceMetadata != "" {
		fmt.Fprintf(&b, "; authorization: see %s", e.ResourceMetadata)
	}
	if e.Scope != "" {
		fmt.Fprintf(&b, "; scope %q", e.Scope)
	}
	return b.String()
}

func (e *AuthError) Unwrap() error { return e.err }

// HTTPError reports an HTTP status where Streamable HTTP expects success,
// with the start of the body the server sent. Before the session was
// established it also matches ErrDial.
type HTTPError struct {
	Method     string
	URL        string
	StatusCode int
	Status     string
	Body       string

	err  error
	hint string
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("%s %s: the server answered %s", e.Method, e.URL, e.Status)
	if e.Body != "" {
		s += ": " + strconv.Quote(e.Body)
	}
	switch e.StatusCode {
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		s += " (is the URL the server's MCP endpoint?)"
	case http.StatusForbidden:
		s += " (does the server allow this Origin and these credentials?)"
	}
	if e.hint != "" {
		s += "; " + e.hint
	}
	if e.err != nil {
		return e.err.Error() + ": " + s
	}
	return s
}

func (e *HTTPError) Unwrap() error { return e.err }
