package mcplive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcplive/mcplive/internal/methods"
)

// Session is one initialized MCP connection. It does not reconnect and
// keeps no lists: Client builds both on top of it. All methods are safe for
// concurrent use.
type Session struct {
	rpc  *rpcConn
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

	// The modern era's change feed (listen.go).
	feedMu   sync.Mutex // one (re)opening of the listen stream at a time
	listen   *listenStream
	listens  map[int64]*listenStream // by request id, for acknowledgments
	listenWG sync.WaitGroup          // the streams' goroutines

	mu        sync.Mutex
	progress  map[string]*fifo[progressEvent] // by token: the calls that wait for their progress (withProgress)
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
// of the legacy era before (era.go, open).
//
// The whole opening (the dial, the probe, initialize, and a retry with
// initialize on a new connection) is bounded by o.DialTimeout, over every
// transport: a server that accepts and never answers fails after the dial
// timeout with ErrTimeout and ErrDial, not after a probe and a retry.
func newSession(ctx context.Context, t Transport, o Options, feed changeFeed, subs *resourceSubs, legacyFirst bool) (*Session, error) {
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	octx, cancel := context.WithTimeoutCause(ctx, o.DialTimeout, errOpeningTimeout)
	defer cancel()
	s, err := openSession(octx, t, o, feed, subs, legacyFirst)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(octx), errOpeningTimeout) && !errors.Is(err, ErrDial) {
		return nil, fmt.Errorf("mcplive: no answer within %v: %w (%w)", o.DialTimeout, ErrTimeout, ErrDial)
	}
	return s, err
}

// errOpeningTimeout is the cause of an opening's context that ran out of
// the dial timeout.
var errOpeningTimeout = errors.New("the dial timeout expired")

func openSession(ctx context.Context, t Transport, o Options, feed changeFeed, subs *resourceSubs, legacyFirst bool) (*Session, error) {
	if v := o.ProtocolVersion; v != "" && !slices.Contains(modernVersions, v) && !slices.Contains(supportedVersions, v) {
		return nil, fmt.Errorf("mcplive: Options.ProtocolVersion %q: this client speaks %s, %s", v, ModernVersion, strings.Join(supportedVersions, ", "))
	}
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s := &Session{
		opts:     o,
		feed:     feed,
		subs:     subs,
		progress: make(map[string]*fifo[progressEvent]),
		listens:  make(map[int64]*listenStream),

		legacyFirst: legacyFirst,
	}
	s.rpc = newRPCConn(conn, o.Logger, s.observe, s.handleNotification, s.serverRequests(), o.RequestTimeout)
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
	if su, ok := conn.(sessionUpdater); ok {
		su.sessionUpdated(SessionInfo{ProtocolVersion: s.InitializeResult().ProtocolVersion})
	}
	if !s.modern {
		if err := s.rpc.notifyWrite(ctx, methods.NotifyInitialized, nil); err != nil {
			s.rpc.Close()
			// The session never opened: a failed dial, as initialize's
			// own failures are (err names the method already).
			if errors.Is(err, ErrDial) {
				return nil, err
			}
			return nil, fmt.Errorf("%w (%w)", err, ErrDial)
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
		return fmt.Errorf("mcplive: initialize: %w", protocolError("bad initialize result: %v", err))
	}
	res.Raw = raw
	ok := false
	for _, v := range supportedVersions {
		if res.ProtocolVersion == v {
			ok = true
		}
	}
	if !ok {
		return fmt.Errorf("mcplive: initialize: %w: the server speaks MCP %q, this client speaks %q (and accepts 2025-06-18, 2025-03-26)",
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
	s.closing.Store(true)
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
func (s *Session) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
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
func (s *Session) requestRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return requestVia(ctx, s, method, params, s.rpc.call)
}

// requestPage is requestRaw for a list page, whose result the walk
// validates itself (see parseEnvelope): the whole response. afterSend,
// when not nil, runs once the request is written (see callUnchecked).
func (s *Session) requestPage(ctx context.Context, method string, params any, afterSend func()) (*wireMessage, error) {
	return requestVia(ctx, s, method, params, func(ctx context.Context, method string, params any) (*wireMessage, error) {
		return s.rpc.callUnchecked(ctx, method, params, afterSend)
	})
}

// requestVia is requestRaw with the rpcConn call that sends the request.
func requestVia[R any](ctx context.Context, s *Session, method string, params any, call func(context.Context, string, any) (R, error)) (R, error) {
	var none R
	if s.modern { // a legacy request is sent as it is
		var err error
		if params, err = s.withMeta(params); err != nil {
			return none, fmt.Errorf("%s: %w", method, err)
		}
	}
	// The connection bounds the request by s.opts.RequestTimeout
	// (newRPCConn; deadline.go).
	raw, err := call(ctx, method, params)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			// The request timeout, not a deadline of the caller's ctx
			// (that one is reported as the caller's context error,
			// below).
			return none, fmt.Errorf("%s: no answer within %v: %w", method, s.opts.RequestTimeout, ErrTimeout)
		}
		var rpcErr *RPCError
		if errors.As(err, &rpcErr) {
			return none, err
		}
		return none, namedFor(method, err)
	}
	return raw, nil
}

// requestLong sends a long-lived request: no request timeout bounds it
// (a stream that lives as long as the session), ctx still cancels it, and
// the server is then told with notifications/cancelled.
func (s *Session) requestLong(ctx context.Context, method string, params any, onID func(int64)) (json.RawMessage, error) {
	params, err := s.withMeta(params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	raw, err := s.rpc.callWith(ctx, method, params, onID)
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
func (s *Session) requestInto(ctx context.Context, method string, params, v any, raw *json.RawMessage) error {
	res, err := s.request(ctx, method, params)
	if err != nil {
		return err
	}
	if err := decodeResult(res, v); err != nil {
		return fmt.Errorf("%s: %w", method, protocolError("bad result: %v", err))
	}
	if raw != nil {
		*raw = res
	}
	return nil
}

// need checks a capability before a call; it fails without sending.
func (s *Session) need(method string, ok bool, what string) error {
	if !ok {
		return fmt.Errorf("%s: %w (the server did not declare the %s capability)", method, ErrUnsupported, what)
	}
	return nil
}

func (s *Session) caps() ServerCapabilities { return s.InitializeResult().Capabilities }

// Ping checks that the server answers: ping in the legacy era,
// server/discover in the modern one (which has no ping).
func (s *Session) Ping(ctx context.Context) error {
	method := methods.Ping
	if s.modern {
		method = methods.Discover
	}
	_, err := s.request(ctx, method, nil)
	return err
}

// heartbeat is Ping bounded by ctx alone, not by the request timeout.
func (s *Session) heartbeat(ctx context.Context) error {
	method := methods.Ping
	if s.modern {
		method = methods.Discover
	}
	_, err := s.requestLong(ctx, method, nil, nil)
	return err
}

// CallToolOptions are optional settings of CallTool.
type CallToolOptions struct {
	// OnProgress receives the server's notifications/progress for this
	// call, in order, on the goroutine that called CallTool: every one the
	// server sent before the result has run when CallTool returns.
	OnProgress func(Progress)
}

// CallTool calls a tool. args is encoded as the arguments object (nil sends
// none). A tool that ran and failed returns a result with IsError, not an
// error.
func (s *Session) CallTool(ctx context.Context, name string, args any, opts *CallToolOptions) (*CallToolResult, error) {
	if err := s.need(methods.CallTool, s.caps().Tools != nil, "tools"); err != nil {
		return nil, err
	}
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	var res CallToolResult
	var err error
	if opts != nil && opts.OnProgress != nil {
		err = s.withProgress(params, opts.OnProgress, func() error {
			return s.requestInto(ctx, methods.CallTool, params, &res, &res.Raw)
		})
	} else {
		err = s.requestInto(ctx, methods.CallTool, params, &res, &res.Raw)
	}
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// progressEvent is one notifications/progress of a call, or the end of
// the call (end).
type progressEvent struct {
	p   Progress
	end bool
}

// withProgress runs call with a progress token in params' _meta, on a
// goroutine of its own, and runs fn on this one for each notifications/
// progress of the token. The read loop routes them (observe) in order with
// the responses, so the call's end is queued after every one the server
// sent before its result: nothing waits on the dispatcher, which may be
// this goroutine (a notification handler that calls a tool).
func (s *Session) withProgress(params map[string]any, fn func(Progress), call func() error) error {
	token, q := s.addProgress()
	defer s.removeProgress(token)
	params["_meta"] = map[string]any{"progressToken": json.RawMessage(token)}
	var err error
	go func() {
		err = call()
		q.push(progressEvent{end: true})
	}()
	for {
		ev, _ := q.pop()
		if ev.end {
			return err // written before the end was pushed
		}
		s.safeProgress(fn, ev.p)
	}
}

// safeProgress runs an OnProgress callback; a panic in it is logged, and
// the call goes on.
func (s *Session) safeProgress(fn func(Progress), p Progress) {
	defer func() {
		if r := recover(); r != nil {
			s.opts.Logger.Error("mcplive: OnProgress panicked", "panic", r)
		}
	}()
	fn(p)
}

// GetPrompt renders a prompt with its arguments.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (*GetPromptResult, error) {
	if err := s.need(methods.GetPrompt, s.caps().Prompts != nil, "prompts"); err != nil {
		return nil, err
	}
	params := map[string]any{"name": name}
	if len(args) > 0 {
		params["arguments"] = args
	}
	var res GetPromptResult
	if err := s.requestInto(ctx, methods.GetPrompt, params, &res, &res.Raw); err != nil {
		return nil, err
	}
	return &res, nil
}

// ReadResource reads the contents of a resource.
func (s *Session) ReadResource(ctx context.Context, uri string) (*ReadResourceResult, error) {
	if err := s.need(methods.ReadResource, s.caps().Resources != nil, "resources"); err != nil {
		return nil, err
	}
	var res ReadResourceResult
	ctx = context.WithValue(ctx, retriedKey{}, &res.Retried)
	if err := s.requestInto(ctx, methods.ReadResource, map[string]any{"uri": uri}, &res, &res.Raw); err != nil {
		return nil, err
	}
	return &res, nil
}

// Complete asks the server for completion values of an argument.
func (s *Session) Complete(ctx context.Context, params CompleteParams) (*CompleteResult, error) {
	if err := s.need(methods.Complete, s.caps().Completions != nil, "completions"); err != nil {
		return nil, err
	}
	var res CompleteResult
	if err := s.requestInto(ctx, methods.Complete, params, &res, &res.Raw); err != nil {
		return nil, err
	}
	return &res, nil
}

// SetLoggingLevel asks the server to send notifications/message at level
// and above (debug, info, notice, warning, error, critical, alert,
// emergency). They reach Options.OnLog.
func (s *Session) SetLoggingLevel(ctx context.Context, level string) error {
	if err := s.need(methods.SetLevel, s.caps().Logging != nil, "logging"); err != nil {
		return err
	}
	if s.modern {
		// The modern era has no logging/setLevel: the level travels in
		// the _meta of every request from now on.
		s.setMeta(ModernVersion, level)
		return nil
	}
	_, err := s.request(ctx, methods.SetLevel, map[string]any{"level": level})
	return err
}

// SubscribeResource subscribes to changes of one resource: fn is called with
// the URI on each notifications/resources/updated for it (then read the
// resource again). unsubscribe removes fn and, for the last subscriber of
// the URI, sends resources/unsubscribe.
func (s *Session) SubscribeResource(ctx context.Context, uri string, fn func(uri string)) (unsubscribe func(context.Context) error, err error) {
	if err := s.need(methods.Subscribe, s.caps().Resources != nil && s.caps().Resources.Subscribe, "resources.subscribe"); err != nil {
		return nil, err
	}
	return s.subs.subscribe(ctx, uri, fn,
		func(ctx context.Context) error { return s.subscribeSend(ctx, uri) },
		func(ctx context.Context) error { return s.unsubscribeSend(ctx, uri) })
}

func (s *Session) addProgress() (string, *fifo[progressEvent]) {
	q := new(fifo[progressEvent])
	q.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextToken++
	token := strconv.FormatInt(s.nextToken, 10)
	s.progress[token] = q
	return token, q
}

func (s *Session) removeProgress(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.progress, token)
}

// abort ends the connection with reason (a dead peer found by the
// heartbeat); requests in flight fail with it.
func (s *Session) abort(reason error) { s.rpc.shutdown(reason) }
