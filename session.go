package mcplive

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/printf"
)

// Session is one initialized MCP connection. It does not reconnect and
// keeps no lists: Client builds both on top of it. All methods are safe for
// concurrent use.
type Session struct {
	rpc  *jsonrpc.Connection
	opts Options
	init atomic.Pointer[InitializeResult] // set once initialize succeeded
	feed changeFeed                       // where invalidations go
	subs *resourceSubs                    // resource subscribers

	// closing is set by Close: what ends then (the listen stream) is not news.
	closing atomic.Bool

	// The era (era.go), set before the session is returned.
	modern bool
	// legacyFirst opens with initialize instead of the server/discover
	// probe: the Client's previous session found a legacy server
	// (era.go, open).
	legacyFirst bool
	meta        atomic.Pointer[requestMeta] // the modern era's _meta of every request
	// recheck gets the outcome of the server/discover asked beside the
	// first requests of a session opened from Options.Prior (era.go,
	// adopt); nil when none was asked.
	recheck chan error

	// The modern era's change feed (listen.go).
	feedMu   sync.Mutex // one (re)opening of the listen stream at a time
	listen   *listenStream
	listens  map[int64]*listenStream // by request id, for acknowledgments
	listenWG sync.WaitGroup          // the streams' goroutines
	// listenSerial: replace streams one after the other (listen.go,
	// relistenSerially).
	listenSerial atomic.Bool

	mu        sync.Mutex
	progress  map[string]*jsonrpc.Fifo[progressEvent] // by token: the calls that wait for their progress (withProgress)
	nextToken int64
}

// NewSession connects through t, runs initialize and sends
// notifications/initialized. On any failure the connection is closed.
// Options.ReadLimit and DialTimeout apply to a transport of this package
// that sets none of its own.
func NewSession(ctx context.Context, t Transport, opts *Options) (*Session, error) {
	if ct, ok := t.(configurable); ok && opts != nil {
		t = ct.configured(*opts)
	}
	subs := new(resourceSubs)
	return newSession(ctx, t, opts.withDefaults(), directFeed{subs}, subs, false)
}

// newSession connects through t and initializes. The session hands what it
// hears to feed and keeps its resource subscribers in subs (a Client's
// sessions share the Client's). legacyFirst: the server was found to be
// of the legacy era before (era.go, open). o has its defaults
// (Options.withDefaults: both callers default it).
//
// The whole opening (the dial, the probe, initialize, and a retry with
// initialize on a new connection) is bounded by o.DialTimeout, over every
// transport: a server that accepts and never answers fails after the dial
// timeout with ErrTimeout and ErrDial, not after a probe and a retry.
func newSession(ctx context.Context, t Transport, o Options, feed changeFeed, subs *resourceSubs, legacyFirst bool) (*Session, error) {
	octx, cancel := context.WithTimeoutCause(ctx, o.DialTimeout, errOpeningTimeout)
	defer cancel()
	s, err := openSession(octx, t, o, feed, subs, legacyFirst)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(octx), errOpeningTimeout) && !errors.Is(err, ErrDial) {
		return nil, printf.Errorf("mcplive: no answer within %v: %w (%w)", o.DialTimeout, ErrTimeout, ErrDial)
	}
	return s, err
}

// errOpeningTimeout is the cause of an opening's context that ran out of
// the dial timeout.
var errOpeningTimeout = errors.New("the dial timeout expired")

func openSession(ctx context.Context, t Transport, o Options, feed changeFeed, subs *resourceSubs, legacyFirst bool) (*Session, error) {
	if v := o.ProtocolVersion; v != "" && !slices.Contains(modernVersions, v) && !slices.Contains(supportedVersions, v) {
		return nil, printf.Errorf("mcplive: Options.ProtocolVersion %q: this client speaks %s, %s", v, ModernVersion, strings.Join(supportedVersions, ", "))
	}
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s := &Session{
		opts:     o,
		feed:     feed,
		subs:     subs,
		progress: make(map[string]*jsonrpc.Fifo[progressEvent]),
		listens:  make(map[int64]*listenStream),

		legacyFirst: legacyFirst,
	}
	s.rpc = jsonrpc.New(conn, jsonrpc.Options{Log: o.Logger, Observe: s.observe, Notify: s.handleNotification, Handlers: s.serverRequests(), Timeout: o.RequestTimeout, Marshal: marshalJSON})
	if err := s.open(ctx); err != nil {
		s.rpc.Close()
		if o.ProtocolVersion == "" && s.modern && ctx.Err() == nil &&
			(errors.Is(err, ErrClosed) || errors.Is(err, ErrTimeout)) {
			// A legacy server that hangs up on (or ignores) a request
			// before initialize: try it the legacy way on a new connection.
			logDebug(o.Logger, "mcplive: no answer to server/discover; trying initialize on a new connection", "err", err.Error())
			o.ProtocolVersion = ProtocolVersion
			return openSession(ctx, t, o, feed, subs, false)
		}
		return nil, err
	}
	if su, ok := conn.(jsonrpc.SessionUpdater); ok {
		su.SessionUpdated(SessionInfo{ProtocolVersion: s.InitializeResult().ProtocolVersion})
	}
	if !s.modern {
		if err := s.rpc.Notify(ctx, methods.NotifyInitialized, nil); err != nil {
			s.rpc.Close()
			// The session never opened: a failed dial, as initialize's
			// own failures are (err names the method already).
			if errors.Is(err, ErrDial) {
				return nil, err
			}
			return nil, printf.Errorf("%w (%w)", err, ErrDial)
		}
	}
	return s, nil
}

func (s *Session) initialize(ctx context.Context) error {
	version := ProtocolVersion
	if slices.Contains(supportedVersions, s.opts.ProtocolVersion) {
		version = s.opts.ProtocolVersion
	}
	raw, err := s.request(ctx, methods.Initialize, s.opts.initializeParams(version))
	if err != nil {
		return methodErr(methods.Initialize, err)
	}
	var res InitializeResult
	if err := decodeInitializeResult(raw, &res); err != nil {
		return printf.Errorf("mcplive: initialize: %w", jsonrpc.ProtocolError("bad initialize result: %v", err))
	}
	res.Raw = raw
	ok := false
	for _, v := range supportedVersions {
		if res.ProtocolVersion == v {
			ok = true
		}
	}
	if !ok {
		return printf.Errorf("mcplive: initialize: %w: the server speaks MCP %q, this client speaks %q (and accepts 2025-06-18, 2025-03-26)",
			ErrProtocol, res.ProtocolVersion, ProtocolVersion)
	}
	s.init.Store(&res)
	return nil
}

// InitializeResult returns what the server answered to initialize: its
// info, capabilities, instructions and the negotiated protocol version.
func (s *Session) InitializeResult() InitializeResult {
	if r := s.init.Load(); r != nil {
		return *r
	}
	return InitializeResult{}
}

// Close closes the connection. Requests in flight fail with ErrClosed.
func (s *Session) Close() error {
	// Under mu: a listen stream is started (listenWG.Add) before this or
	// not at all (startListen), never beside the Wait below.
	s.mu.Lock()
	s.closing.Store(true)
	s.mu.Unlock()
	err := s.rpc.Close()
	s.listenWG.Wait()
	return err
}

// Done is closed when the connection has ended, for whatever reason.
func (s *Session) Done() <-chan struct{} { return s.rpc.Done() }

// Err says why the connection ended; nil while it is open.
func (s *Session) Err() error { return s.rpc.Err() }

// request sends one request bounded by the request timeout and returns the
// raw result; in the modern era a result that asks for input is fulfilled
// (elicit.go) where the call allows it, and one that is not complete is an
// error. Errors name the method.
func (s *Session) request(ctx context.Context, method string, params any) (RawMessage, error) {
	raw, err := s.requestRaw(ctx, method, params)
	if p, ok := params.(map[string]any); ok && err == nil && s.modern && acceptsInput(method) {
		raw, err = s.fulfil(ctx, method, p, raw)
	}
	if err == nil && s.modern {
		err = checkResult(method, raw)
	}
	if err != nil {
		return nil, err
	}
	return raw, nil
}

// requestRaw is request without the check of the result's type, for a
// caller that checks it itself (a list page).
func (s *Session) requestRaw(ctx context.Context, method string, params any) (RawMessage, error) {
	params, err := s.withMeta(params) // as it is in the legacy era
	if err != nil {
		return nil, printf.Errorf("%s: %w", method, err)
	}
	return requestVia(ctx, s, method, params, s.rpc.Call)
}

// requestPage requests one page of a list, the first when cursor is nil;
// the walk validates the result itself (see jsonrpc.Decode): the whole
// response. Its params are made here, not by withMeta: a cursor, encoded
// without a map's sorting of keys (cursorParams), and in the modern era
// the session's _meta (listParams). afterSend, when not nil, runs once
// the request is written (see jsonrpc.Connection.CallUnchecked).
func (s *Session) requestPage(ctx context.Context, method string, cursor *string, afterSend func()) (*jsonrpc.Message, error) {
	var params any
	if mp := s.meta.Load(); s.modern && mp != nil {
		params = listParams{cursor: cursor, meta: mp.raw, version: mp.version}
	} else if cursor != nil {
		params = cursorParams{*cursor}
	}
	return requestVia(ctx, s, method, params, func(ctx context.Context, method string, params any) (*jsonrpc.Message, error) {
		return s.rpc.CallUnchecked(ctx, method, params, afterSend)
	})
}

// requestVia sends a request whose params are ready with the jsonrpc.Connection
// call given, and names its errors.
func requestVia[R any](ctx context.Context, s *Session, method string, params any, call func(context.Context, string, any) (R, error)) (R, error) {
	// The connection bounds the request by s.opts.RequestTimeout
	// (jsonrpc.New).
	raw, err := call(ctx, method, params)
	if err != nil {
		var none R
		return none, s.requestFailed(ctx, method, err)
	}
	return raw, nil
}

// requestFailed is requestVia's error, apart from it: once for every
// result type (each instantiation of a generic is wasm code of its own).
func (s *Session) requestFailed(ctx context.Context, method string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		// The request timeout, not a deadline of the caller's ctx (that
		// one is reported as the caller's context error, below).
		return printf.Errorf("%s: no answer within %v: %w", method, s.opts.RequestTimeout, ErrTimeout)
	}
	var rpcErr *RPCError
	if errors.As(err, &rpcErr) {
		return err
	}
	return namedFor(method, err)
}

// requestLong sends a long-lived request: no request timeout bounds it
// (a stream that lives as long as the session), ctx still cancels it, and
// the server is then told with notifications/cancelled.
func (s *Session) requestLong(ctx context.Context, method string, params any, onID func(int64)) (RawMessage, error) {
	params, err := s.withMeta(params)
	if err != nil {
		return nil, printf.Errorf("%s: %w", method, err)
	}
	raw, err := s.rpc.CallWith(ctx, method, params, onID)
	if err != nil {
		var rpcErr *RPCError
		if errors.As(err, &rpcErr) {
			return nil, err
		}
		return nil, namedFor(method, err)
	}
	return raw, nil
}

// requestInto sends a request and decodes its result into v, keeping the
// raw result in *raw when raw is not nil.
func (s *Session) requestInto(ctx context.Context, method string, params, v any, raw *RawMessage) error {
	res, err := s.request(ctx, method, params)
	if err != nil {
		return err
	}
	if err := decodeResult(res, v); err != nil {
		return printf.Errorf("%s: %w", method, jsonrpc.ProtocolError("bad result: %v", err))
	}
	if raw != nil {
		*raw = res
	}
	return nil
}

// need checks a capability before a call; it fails without sending.
func (s *Session) need(method string, ok bool, what string) error {
	if !ok {
		return printf.Errorf("%s: %w (the server did not declare the %s capability)", method, ErrUnsupported, what)
	}
	return nil
}

func (s *Session) caps() ServerCapabilities { return s.InitializeResult().Capabilities }

// abort ends the connection with reason (a dead peer found by the
// heartbeat); requests in flight fail with it.
func (s *Session) abort(reason error) { s.rpc.Shutdown(reason) }

// cursorParams are the params of a list request after the first page
// in the legacy era.
type cursorParams struct {
	Cursor string `json:"cursor"`
}

func (p cursorParams) WriteParams(b *bytes.Buffer) error {
	b.WriteString(`{"cursor":`)
	writeJSONString(b, p.Cursor)
	b.WriteByte('}')
	return nil
}

// listParams are the params of a list request in the modern era: the
// cursor, if any, and the request's _meta (already JSON). jsonrpc.MarshalMessage
// writes them without encoding/json.
type listParams struct {
	cursor  *string
	meta    RawMessage
	version string // the protocol version meta names
}

func (p listParams) Describe(m *jsonrpc.Outgoing) { m.Version = p.version }

// MarshalJSON is for any code that encodes listParams otherwise (a
// transport reading a request's params back): the same JSON as
// jsonrpc.MarshalMessage writes.
func (p listParams) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	err := p.WriteParams(&b)
	return b.Bytes(), err
}

func (p listParams) WriteParams(b *bytes.Buffer) error {
	b.WriteByte('{')
	if p.cursor != nil {
		b.WriteString(`"cursor":`)
		writeJSONString(b, *p.cursor)
		b.WriteByte(',')
	}
	b.WriteString(`"_meta":`)
	b.Write(p.meta)
	b.WriteByte('}')
	return nil
}
