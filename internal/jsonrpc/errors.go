package jsonrpc

import (
	"errors"
	"strconv"

	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/printf"
)

// The errors of this layer. The root package gives them their public
// names (mcplive.ErrClosed, mcplive.ErrProtocol, mcplive.RPCError) and
// their documentation.
var (
	// ErrClosed reports a connection that is closed.
	ErrClosed = errors.New("mcplive: connection closed")
	// ErrProtocol reports a peer that broke the protocol.
	ErrProtocol = errors.New("mcplive: protocol violation")
	// ErrNotSent matches the error of a request that never reached the
	// server (the connection to it could not be made or written): sending
	// it again on a new connection cannot run it twice.
	ErrNotSent = errors.New("mcplive: the request was not sent")
)

// JSON-RPC error codes this layer answers with.
const (
	CodeMethodNotFound = -32601
	CodeInternalError  = -32603
)

// RPCError is an error response from the server. Use errors.As to get it.
type RPCError struct {
	Code    int64               `json:"code"`
	Message string              `json:"message"`
	Data    jsontext.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	// Not fmt: a legacy server's answer to the modern probe is such an
	// error, and formatting it would be fmt's first use in a cold start.
	return "mcplive: server error " + strconv.FormatInt(e.Code, 10) + ": " + e.Message
}

// ProtocolError wraps ErrProtocol with what was wrong.
func ProtocolError(format string, args ...any) error {
	return printf.Errorf("%w: %s", ErrProtocol, printf.Sprintf(format, args...))
}

// NotSent marks err as the error of a request that never reached the
// server (ErrNotSent).
func NotSent(err error) error { return &notSent{err} }

type notSent struct{ err error }

func (e *notSent) Error() string   { return e.err.Error() }
func (e *notSent) Unwrap() []error { return []error{e.err, ErrNotSent} }

// ConnLost wraps the reason a connection ended so that the caller's error
// says so and still matches ErrClosed.
func ConnLost(reason error) error {
	if reason == nil {
		return printf.Errorf("%w", ErrClosed)
	}
	if errors.Is(reason, ErrClosed) {
		return reason
	}
	return printf.Errorf("%w: %w", ErrClosed, reason)
}
