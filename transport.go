package mcplive

import (
	"context"
	"strings"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/printf"
)

// Transport opens connections that carry one JSON-RPC message per Read and
// Write. NewTransport picks the one for a URL's scheme; tests and embedders
// may bring their own (Options.Transport).
type Transport interface {
	// Connect opens a new connection. It must return within the deadline
	// of ctx.
	Connect(ctx context.Context) (Conn, error)
}

// Conn is one open connection that carries one JSON-RPC message per Read
// and Write.
//
// Concurrency contract: Read is called from one goroutine at a time; Write
// may be called concurrently with Read and with other Writes; Close may be
// called at any time, more than once, concurrently with both, and must
// unblock a pending Read and Write, which then return an error.
type Conn = jsonrpc.Conn

// SessionInfo is what a session negotiated, for a Conn that needs it: the
// Streamable HTTP transport sends the protocol version on every request
// after initialize.
type SessionInfo = jsonrpc.SessionInfo

// paramMirror is implemented by a Conn that mirrors tools' x-mcp-header
// parameters into Mcp-Param headers (SEP-2243; Streamable HTTP,
// http_params.go). A session of 2026-07-28 hands it every tools list it
// walks, and shows the tools it returns (those whose marks are invalid left
// out); tools/call retries a call the server found mismatched with such a
// transport. Nothing else of the feature is outside its transport.
type paramMirror interface {
	toolsListed(tools itemSlice, log Logger) itemSlice
}

// noteSlots is implemented by the item slices of a list (rawEntries,
// entries[T]): one slot per item, nil until a transport's paramMirror keeps
// there what it read of the item; a re-list that reuses an unchanged item
// reuses its slot, so the transport reads each item once. Nothing else
// reads or writes the slots, and a transport without the feature leaves
// them empty. note returns nil for an item kind without one.
type noteSlots interface {
	note(i int) *any
}

// Defaults used where an option is zero.
const (
	DefaultReadLimit      = 16 << 20
	DefaultDialTimeout    = 10 * time.Second
	DefaultRequestTimeout = 30 * time.Second
	DefaultMaxPages       = 1000
)

// NewTransport returns the transport for rawURL's scheme: ws:// and wss://
// dial a WebSocket (WebSocketTransport), http:// and https:// speak
// Streamable HTTP. opts supplies the transport's limits (ReadLimit,
// DialTimeout); nil means defaults.
func NewTransport(rawURL string, opts *Options) (Transport, error) {
	o := opts.withDefaults()
	scheme, _, ok := strings.Cut(rawURL, "://")
	if !ok {
		return nil, printf.Errorf("mcplive: server URL %q has no scheme: use ws://, wss://, http:// or https://", rawURL)
	}
	switch strings.ToLower(scheme) {
	case "ws", "wss":
		return (&WebSocketTransport{URL: rawURL}).configured(o), nil
	case "http", "https":
		return (&HTTPTransport{URL: rawURL}).configured(o), nil
	default:
		return nil, printf.Errorf("mcplive: server URL %q: unsupported scheme %q (use ws://, wss://, http:// or https://)", rawURL, scheme)
	}
}

// configurable is implemented by a transport of this package that takes
// Options.ReadLimit and DialTimeout where it sets none of its own.
type configurable interface {
	configured(Options) Transport
}
