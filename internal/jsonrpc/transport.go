package jsonrpc

import (
	"bytes"
	"context"
	"strconv"

	"github.com/mcplive/mcplive/internal/jsontext"
)

// The transport contract: what a Connection asks of the transport under
// it (Conn), and the optional interfaces through which a transport that
// needs more tells or is told more. The transports (the root package's
// websocket*.go and http*.go) implement it and import nothing above it.

// Conn is one open connection that carries one JSON-RPC message per Read
// and Write.
//
// Concurrency contract: Read is called from one goroutine at a time; Write
// may be called concurrently with Read and with other Writes; Close may be
// called at any time, more than once, concurrently with both, and must
// unblock a pending Read and Write, which then return an error.
type Conn interface {
	// Read returns the next message: one complete JSON-RPC message.
	Read(ctx context.Context) ([]byte, error)
	// Write sends one complete JSON-RPC message.
	Write(ctx context.Context, msg []byte) error
	// Close closes the connection with a normal closure.
	Close() error
}

// SessionInfo is what a session negotiated, for a Conn that needs it: the
// Streamable HTTP transport sends the protocol version on every request
// after initialize.
type SessionInfo struct {
	ProtocolVersion string
}

// SessionUpdater is implemented by a Conn that must learn what its session
// negotiated (as go-sdk's sessionUpdated). The session calls it once
// initialize has succeeded, before any other request.
type SessionUpdater interface {
	SessionUpdated(SessionInfo)
}

// Pusher is implemented by a Conn that can tell whether the server can
// reach the client between requests (Streamable HTTP: whether its
// standalone stream is up); a Conn without it always can (WebSocket).
type Pusher interface {
	Pushes() bool
}

// Outgoing is what the JSON-RPC layer tells a transport of a message it
// writes (DescribedWriter), so that the transport need not read the
// message again.
type Outgoing struct {
	ID      jsontext.RawMessage // a request's id; nil for notifications and responses
	Method  string
	Version string // the protocol version in the request's _meta, if any
	Name    string // params.name or params.uri, for Mcp-Name
}

// IsRequest reports whether m is a request's.
func (m Outgoing) IsRequest() bool { return m.ID != nil }

// What names m in an error: its method, or "a response".
func (m Outgoing) What() string {
	if m.Method != "" {
		return m.Method
	}
	return "a response"
}

// DescribedWriter is implemented by a Conn that needs to know what it
// sends (Streamable HTTP: its headers name the method, the tool, the
// version): the JSON-RPC layer writes through WriteDescribed, handing it
// the message's Outgoing description with its bytes.
type DescribedWriter interface {
	WriteDescribed(ctx context.Context, msg []byte, m Outgoing) error
}

// EntryReader is implemented by a Conn that tells more of its messages
// than their bytes (the Streamable HTTP transport): ReadEntry is Read that
// also reports, in order with the messages, "events may have been missed
// here" (a gap: its standalone stream of 2025-11-25 re-opened without an
// event id to resume from; the session then invalidates every list),
// which request's POST carried a message, and a request whose answer
// cannot come (its stream broke). Read itself skips the gaps and failures.
type EntryReader interface {
	ReadEntry(ctx context.Context) (Inbound, error)
}

// Inbound is one message a transport read, with what it knows of it.
type Inbound struct {
	Msg []byte
	Gap bool
	// ForID is the id of the request whose POST carried Msg (its JSON
	// body, or an event of its stream); nil on a standalone stream.
	ForID jsontext.RawMessage
	// Sole: Msg is the request's whole answer (a JSON body), which must
	// be the response to it.
	Sole bool
	// Fail, with ForID, fails that request: its answer cannot come.
	Fail error
	// Liveness: whether the server can tell of changes between requests
	// changed (the standalone stream went down or came back: pushes).
	Liveness bool
}

// ParamsWriter is params that write their own JSON, which MarshalMessage
// puts in the message as they write it (the root package's list page,
// subscriptions/listen and pre-encoded params). Any other params go
// through the Marshal func the Connection is handed.
type ParamsWriter interface {
	WriteParams(b *bytes.Buffer) error
}

// ParamsDescriber is params that tell the transport more of their message
// than its id and method (Outgoing: the request's name, its _meta's
// version).
type ParamsDescriber interface {
	Describe(m *Outgoing)
}

// Describe returns what the transport is told of a request (id set) or a
// notification with params.
func Describe(id *int64, method string, params any) Outgoing {
	m := Outgoing{Method: method}
	if id != nil {
		m.ID = jsontext.RawMessage(strconv.FormatInt(*id, 10))
	}
	if d, ok := params.(ParamsDescriber); ok {
		d.Describe(&m)
	}
	return m
}
