package mcplive

import (
	"context"
	"time"
)

// Options configure a Client (Connect) or a single Session (NewSession).
// A nil *Options means all defaults; zero fields mean their default.
type Options struct {
	// ClientInfo is sent in initialize, or in every request's _meta in the
	// modern era. Default {Name: "mcplive"}.
	ClientInfo Implementation
	// ProtocolVersion pins the protocol revision: ModernVersion
	// (2026-07-28) or a legacy one (2025-11-25, 2025-06-18, 2025-03-26,
	// asked for in initialize). Empty tries ModernVersion first and falls
	// back to initialize with 2025-11-25 when the server does not speak it;
	// a Client's reconnects to a server found to be 2025-11-25 then open
	// with initialize, and probe again only if the server refuses it.
	ProtocolVersion string
	// RequestTimeout bounds each request (default 30 s). A request that
	// times out is cancelled on the server with notifications/cancelled.
	RequestTimeout time.Duration
	// DialTimeout bounds each connection's opening (default 10 s).
	// ReadLimit caps one incoming message in bytes (default 16 MiB). Both
	// apply to the transport NewTransport picks for a Client and, in
	// NewSession, to a transport of this package that sets none of its
	// own; other transports ignore them.
	DialTimeout time.Duration
	ReadLimit   int64
	// MaxPages caps the pages of one list walk (default 1000).
	MaxPages int
	// HeartbeatInterval is how often a Client pings the server (default
	// 15 s; negative disables). HeartbeatTimeout is how long an answer may
	// take before the connection counts as dead (default 10 s).
	HeartbeatInterval time.Duration
	HeartbeatTimeout  time.Duration
	// Reconnect configures how a Client reconnects after a drop.
	Reconnect ReconnectOptions
	// Logger receives diagnostics (dropped responses, reconnects). A
	// *slog.Logger fits. Nil discards them.
	Logger Logger
	// Transport overrides the transport a Client dials, which NewTransport
	// otherwise picks by the URL's scheme.
	Transport Transport
	// OnNotification sees every server notification, in arrival order,
	// on one goroutine that is not the read loop. It must not block long:
	// notifications queue up behind it.
	OnNotification func(method string, params RawMessage)
	// OnLog receives notifications/message (see SetLoggingLevel), in order.
	OnLog func(LogMessage)
	// OnElicit answers a server's request for user input (elicitation,
	// form mode): show req.Message and a form for req.RequestedSchema,
	// return what the user chose. Setting it declares the elicitation
	// capability; without it a server cannot ask (elicitation/create is
	// answered with -32601, and a 2026-07-28 call that needs input fails
	// with ErrIncompleteResult). Properties an accepted result leaves out
	// get the schema's defaults. An error is sent to the server (an
	// *RPCError as it is); in 2026-07-28 the call fails with it.
	//
	// It runs on a goroutine of its own and may take as long as the user
	// does. Its ctx ends when the server cancels the request or the
	// connection ends (2025-11-25), or with the call's ctx (2026-07-28,
	// where the request timeout bounds each round trip but not the wait
	// for the user; in 2025-11-25 the call is one request, and its timeout
	// covers the user's time too).
	OnElicit func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error)
	// RawItems makes a Client's live lists keep each item as its key and
	// its raw JSON only: a walk reads the key with this package's scanner
	// and decodes nothing else, and Snapshot and Subscribe decode the
	// items they return on every call. For code that reads the raw JSON
	// (ListView, Entries.RawJSON) rather than the Go types: the wasm
	// binding sets it, since encoding/json is slow in wasm and a decoded
	// list is many more objects for the garbage collector to scan. An
	// item's other members are then not checked against the schema's
	// types (a typed walk refuses a page where one does not decode).
	RawItems bool
	// RevisionHint is the protocol revision the server spoke last time,
	// as the app remembers it across runs (the JS package keeps it per
	// URL): a legacy revision opens the first session with initialize,
	// without the server/discover probe. A server that has moved on and
	// refuses initialize is probed again, as after a reconnect (era.go).
	RevisionHint string
	// Seeds are lists kept from an earlier run (the JS package's catalog
	// cache). At the first sync, a kind whose seed is still fresh (the
	// server offers the kind and now < Received + TTL) is taken from it
	// without a walk; any other kind is walked as usual. A notification,
	// a re-opened change feed, a reconnect or Refresh walks it.
	Seeds []Seed
	// Prior is the server's server/discover result kept from an earlier
	// run (the JS package keeps it with the catalog cache), as TypeScript
	// SDK v2's connect({ prior }): the first session, unless a legacy
	// RevisionHint or ProtocolVersion says otherwise, adopts it instead of
	// asking first, so that its first requests go out at once
	// (server/discover is optional in 2026-07-28). While its ttlMs lasts,
	// from Received, nothing is asked. Otherwise server/discover goes out
	// beside the first requests, and Connect returns once it has answered:
	// a server whose capabilities differ from the kept ones, or that no
	// longer speaks 2026-07-28, is opened again as without a Prior. Keep it
	// per server and authorization context, as its cacheScope says.
	Prior *Prior
}

// Prior is a server/discover result kept from an earlier session
// (Options.Prior): InitializeResult.Raw of a 2026-07-28 session, and when
// it came (or, to be safe, when it was asked for).
type Prior struct {
	Discover RawMessage
	Received time.Time
}

// Seed is one list kept from an earlier walk: its items as a JSON array,
// as the server sent them, and the walk's caching hints (the smallest
// ttlMs of its pages, their cacheScope, and when its first page came).
type Seed struct {
	Kind     Kind
	Items    RawMessage
	TTL      time.Duration
	Scope    string
	Received time.Time
}

// fresh reports whether the seed may stand for a walk at now: a TTL of 0
// (absent, negative or zero in the server's pages) is never fresh, nor is
// a seed received after now (a clock set back).
func (s *Seed) fresh(now time.Time) bool {
	return s != nil && s.TTL > 0 && len(s.Items) > 0 && !s.Received.After(now) && now.Before(s.Received.Add(s.TTL))
}

// ReconnectOptions configure reconnection with exponential backoff and full
// jitter: the n-th wait is random in [0, min(MaxDelay, InitialDelay·2ⁿ)].
type ReconnectOptions struct {
	Disabled     bool
	InitialDelay time.Duration // default 250 ms
	MaxDelay     time.Duration // default 30 s
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.ClientInfo.Name == "" {
		r.ClientInfo = Implementation{Name: "mcplive", Version: Version}
	}
	if r.ClientInfo.Version == "" {
		r.ClientInfo.Version = "0"
	}
	if r.RequestTimeout <= 0 {
		r.RequestTimeout = DefaultRequestTimeout
	}
	if r.DialTimeout <= 0 {
		r.DialTimeout = DefaultDialTimeout
	}
	if r.ReadLimit <= 0 {
		r.ReadLimit = DefaultReadLimit
	}
	if r.MaxPages <= 0 {
		r.MaxPages = DefaultMaxPages
	}
	if r.HeartbeatInterval == 0 {
		r.HeartbeatInterval = 15 * time.Second
	}
	if r.HeartbeatTimeout <= 0 {
		r.HeartbeatTimeout = 10 * time.Second
	}
	if r.Reconnect.InitialDelay <= 0 {
		r.Reconnect.InitialDelay = 250 * time.Millisecond
	}
	if r.Reconnect.MaxDelay <= 0 {
		r.Reconnect.MaxDelay = 30 * time.Second
	}
	if r.Logger == nil {
		r.Logger = nopLogger{}
	}
	return r
}

// fillLimits sets a transport's read limit and dial timeout from o where
// the transport sets none of its own: the one place a transport of this
// package takes them (NewTransport, NewSession; see configurable).
func (o Options) fillLimits(readLimit *int64, dialTimeout *time.Duration) {
	if *readLimit <= 0 {
		*readLimit = o.ReadLimit
	}
	if *dialTimeout <= 0 {
		*dialTimeout = o.DialTimeout
	}
}

// Logger receives the client's diagnostics. *slog.Logger satisfies it; the
// package does not import log/slog itself, which keeps it out of the wasm.
// A Logger that also has Debug(msg string, args ...any) gets the records of
// what happens when all is well (such as a fallback to 2025-11-25); one
// without it does not.
type Logger interface {
	Info(msg string, args ...any)
	Warn(msg string, args ...any)
	Error(msg string, args ...any)
}

// logDebug logs at the debug level through l when l has a Debug method
// (as *slog.Logger has); otherwise the record is dropped: what happens
// when all is well (a fallback to the older revision) is not news.
func logDebug(l Logger, msg string, args ...any) {
	if d, ok := l.(interface{ Debug(string, ...any) }); ok {
		d.Debug(msg, args...)
	}
}

type nopLogger struct{}

func (nopLogger) Info(string, ...any)  {}
func (nopLogger) Warn(string, ...any)  {}
func (nopLogger) Error(string, ...any) {}

// Version is this package's version, sent as the default client version.
const Version = "0.1.0"
