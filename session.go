package mcplive

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
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

	// The modern era's change feed (listen.go).
	feedMu   sync.Mutex // one (re)opening of the listen stream at a time
	listen   *listenStream
	listens  map[int64]*listenStream // by request id, for acknowledgments
	listenWG sync.WaitGroup          // the streams' goroutines

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
	var none R
	// The connection bounds the request by s.opts.RequestTimeout
	// (jsonrpc.New).
	raw, err := call(ctx, method, params)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			// The request timeout, not a deadline of the caller's ctx
			// (that one is reported as the caller's context error,
			// below).
			return none, printf.Errorf("%s: no answer within %v: %w", method, s.opts.RequestTimeout, ErrTimeout)
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
	params["_meta"] = map[string]any{"progressToken": RawMessage(token)}
	var err error
	go func() {
		err = call()
		q.Push(progressEvent{end: true})
	}()
	for {
		ev, _ := q.Pop()
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

func (s *Session) addProgress() (string, *jsonrpc.Fifo[progressEvent]) {
	q := new(jsonrpc.Fifo[progressEvent])
	q.Init()
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
func (s *Session) abort(reason error) { s.rpc.Shutdown(reason) }

// The change feed: a session turns what it hears into invalidations, "kind
// K may have changed" and "resource U was updated", and hands them to its
// feed. A Client's feed re-lists (syncer.trigger) and calls resource
// subscribers; a bare Session's feed calls its resource subscribers only.
// Today's source is the 2025-11-25 notifications below; every other source
// (a subscriptions/listen stream, an HTTP event stream) ends in the same
// two calls.
type changeFeed interface {
	// listChanged says that kinds may have changed; at is when the news
	// arrived.
	listChanged(kinds []Kind, at time.Time)
	// resourceUpdated says that the contents of uri changed.
	resourceUpdated(uri string)
}

// notificationHandlers maps each server notification this package acts on
// to its handler, as go-sdk's clientMethodInfos. Handlers run on the
// session's dispatcher, in arrival order, before Options.OnNotification.
// The list_changed notifications come from the kind registry (kindTable).
var notificationHandlers = map[string]func(s *Session, m *jsonrpc.Message){
	methods.NotifyMessage:          (*Session).onLog,
	methods.NotifyResourceUpdated:  (*Session).onResourceUpdated,
	methods.NotifyToolsChanged:     (*Session).onListChanged,
	methods.NotifyPromptsChanged:   (*Session).onListChanged,
	methods.NotifyResourcesChanged: (*Session).onListChanged,
	methods.NotifyAcknowledged:     (*Session).onAcknowledged,
}

// livenessFeed is a feed that records which lists are live (a Client):
// told when the transport's way of telling changes went or came back.
type livenessFeed interface{ livenessChanged(s *Session) }

// handleNotification runs on the dispatcher goroutine, in arrival order.
func (s *Session) handleNotification(m *jsonrpc.Message) {
	if m.Liveness {
		if f, ok := s.feed.(livenessFeed); ok {
			f.livenessChanged(s)
		}
		return
	}
	if m.Gap {
		s.onEventsMissed(m)
		return
	}
	if h := notificationHandlers[m.Method]; h != nil {
		h(s, m)
	}
	if s.opts.OnNotification != nil {
		s.opts.OnNotification(m.Method, m.Params)
	}
}

// observe runs on the read loop for every notification, in order with the
// responses: it routes a notifications/progress to the call that waits for
// it (withProgress). It must not block.
func (s *Session) observe(m *jsonrpc.Message) {
	if m.Method != methods.NotifyProgress {
		return
	}
	var token RawMessage
	var p Progress
	if decodeProgress(m.Params, &token, &p) != nil {
		return
	}
	s.mu.Lock()
	q := s.progress[string(token)]
	s.mu.Unlock()
	if q != nil {
		q.Push(progressEvent{p: p})
	}
}

func (s *Session) onLog(m *jsonrpc.Message) {
	if s.opts.OnLog == nil {
		return
	}
	var lm LogMessage
	if decodeLogMessage(m.Params, &lm) == nil {
		s.opts.OnLog(lm)
	}
}

func (s *Session) onResourceUpdated(m *jsonrpc.Message) {
	var uri string
	if jsontext.Decode(m.Params, "params", []jsontext.Field{{Name: "uri", Dst: &uri}}) == nil {
		s.feed.resourceUpdated(uri)
	}
}

// onListChanged invalidates the kinds of a list_changed. It is honoured
// even when the server did not declare listChanged, as long as it offers
// the kind at all (servers forget the flag).
func (s *Session) onListChanged(m *jsonrpc.Message) {
	kinds := kindsInvalidatedBy(m.Method)
	caps := s.caps()
	for _, k := range kinds {
		if spec, _ := specOf(k); !spec.offered(caps) {
			// The kinds of one notification share their capability
			// (resources and templates): log the notification once.
			s.opts.Logger.Warn("mcplive: ignored a list_changed for a kind the server does not offer", "method", m.Method)
			return
		}
	}
	s.feed.listChanged(kinds, m.ArrivedAt())
}

// onEventsMissed turns a gap in the transport's messages (jsonrpc.EntryReader) into
// the invalidation of every kind: each list_changed of the kind registry
// is handled as if it had arrived at the gap (Options.OnNotification sees
// it too).
func (s *Session) onEventsMissed(gap *jsonrpc.Message) {
	var seen []string
	for _, spec := range kindTable {
		if slices.Contains(seen, spec.notification) {
			continue
		}
		seen = append(seen, spec.notification)
		s.handleNotification(&jsonrpc.Message{JSONRPC: "2.0", Method: spec.notification, Arrived: gap.Arrived})
	}
}

// directFeed is the feed of a Session used on its own: no lists to
// re-list; resource subscribers are called on the dispatcher.
type directFeed struct{ subs *resourceSubs }

func (directFeed) listChanged([]Kind, time.Time) {}

func (f directFeed) resourceUpdated(uri string) {
	for _, fn := range f.subs.fns(uri) {
		fn(uri)
	}
}

// Kind names one of the four lists a server may offer.
type Kind string

// The four list kinds.
const (
	KindTools             Kind = "tools"
	KindPrompts           Kind = "prompts"
	KindResources         Kind = "resources"
	KindResourceTemplates Kind = "resourceTemplates"
)

// Kinds lists every kind, in a fixed order.
var Kinds = []Kind{KindTools, KindPrompts, KindResources, KindResourceTemplates}

// kindSpec is everything this package knows about one kind of list, in one
// place: how to list it, how to read its pages, what identifies an item,
// whether a server offers it, and which notification invalidates it.
type kindSpec struct {
	kind         Kind
	method       string // the list method
	field        string // the items' member in a page
	key          string // the member that identifies an item, for error texts
	capability   string // the capability that offers it, for error texts
	offered      func(ServerCapabilities) bool
	notification string // the list_changed that invalidates it
	listenField  string // what subscriptions/listen asks for to get it
	// newLive makes the kind's List, with its syncer (list.go).
	newLive func(kindSpec, liveEnv) liveList
}

func offersTools(c ServerCapabilities) bool     { return c.Tools != nil }
func offersPrompts(c ServerCapabilities) bool   { return c.Prompts != nil }
func offersResources(c ServerCapabilities) bool { return c.Resources != nil }

// kindTable is the kind registry, in Kinds order. resources/list_changed
// invalidates both resources and resource templates.
var kindTable = []kindSpec{
	{KindTools, methods.ListTools, "tools", "name", "tools", offersTools, methods.NotifyToolsChanged, "toolsListChanged", newLive[Tool]},
	{KindPrompts, methods.ListPrompts, "prompts", "name", "prompts", offersPrompts, methods.NotifyPromptsChanged, "promptsListChanged", newLive[Prompt]},
	{KindResources, methods.ListResources, "resources", "uri", "resources", offersResources, methods.NotifyResourcesChanged, "resourcesListChanged", newLive[Resource]},
	{KindResourceTemplates, methods.ListTemplates, "resourceTemplates", "uriTemplate", "resources", offersResources, methods.NotifyResourcesChanged, "resourcesListChanged", newLive[ResourceTemplate]},
}

// specOf returns the registry entry of k.
func specOf(k Kind) (kindSpec, bool) {
	for _, s := range kindTable {
		if s.kind == k {
			return s, true
		}
	}
	return kindSpec{}, false
}

// kindsInvalidatedBy returns the kinds a list_changed notification
// invalidates, in Kinds order; none for any other method.
func kindsInvalidatedBy(method string) []Kind {
	var out []Kind
	for _, s := range kindTable {
		if s.notification == method {
			out = append(out, s.kind)
		}
	}
	return out
}

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
