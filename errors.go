package mcplive

import (
	"errors"
	"strings"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/printf"
)

var (
	// ErrClosed reports a connection or client that is closed: by Close, by
	// the server, or by a network failure. Requests in flight when the
	// connection drops fail with an error that wraps it.
	ErrClosed = jsonrpc.ErrClosed

	// ErrProtocol reports a server that broke the protocol: a frame that is
	// not one JSON-RPC message, a binary frame, a batch, a bad initialize
	// result, an endless pagination cursor.
	ErrProtocol = jsonrpc.ErrProtocol

	// ErrUnsupported reports a call the server's declared capabilities do
	// not allow (for example resources/subscribe on a server without
	// resources.subscribe). It fails at once, nothing is sent.
	ErrUnsupported = errors.New("mcplive: not supported by the server")

	// ErrDial reports a connection that could not be opened: the server
	// is down, the URL's host, port or path is wrong, the server refused
	// the page's Origin or the credentials, or it does not speak MCP at
	// that URL. In browsers the reason is hidden from scripts (a failed
	// WebSocket handshake reports no HTTP status), so the error can only
	// list the likely causes.
	ErrDial = errors.New("mcplive: could not connect")

	// ErrTimeout reports a request that got no answer within its timeout.
	// The request was cancelled with notifications/cancelled.
	ErrTimeout = errors.New("mcplive: request timed out")
)

// JSON-RPC and MCP error codes.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = jsonrpc.CodeMethodNotFound
	CodeInvalidParams    = -32602
	CodeInternalError    = jsonrpc.CodeInternalError
	CodeResourceNotFound = -32002
)

// RPCError is an error response from the server. Use errors.As to get it.
type RPCError = jsonrpc.RPCError

// methodErr says that method failed with err, naming the method once:
// errors of a request already start with its method.
func methodErr(method string, err error) error {
	if err = namedFor(method, err); strings.HasPrefix(err.Error(), "mcplive: ") {
		return err
	}
	return printf.Errorf("mcplive: %w", err)
}

// namedFor prefixes err with method unless it names the method already
// (the transport's errors do: "mcplive: initialize: POST …").
func namedFor(method string, err error) error {
	if msg := strings.TrimPrefix(err.Error(), "mcplive: "); strings.HasPrefix(msg, method+":") {
		return err
	}
	return printf.Errorf("%s: %w", method, err)
}

// advised is err with advice for the person who reads it (what to check or
// what the server must allow), after "; ". A log line per reconnect
// attempt carries the cause alone (withoutAdvice); the advice comes once.
type advised struct {
	err    error
	advice string
}

func (e *advised) Error() string { return e.err.Error() + "; " + e.advice }
func (e *advised) Unwrap() error { return e.err }

// withAdvice adds advice to err.
func withAdvice(err error, advice string) error {
	if advice == "" {
		return err
	}
	return &advised{err: err, advice: advice}
}

// withoutAdvice is err's text without the advice it carries.
func withoutAdvice(err error) string {
	s := err.Error()
	for e := err; ; {
		var a *advised
		if !errors.As(e, &a) {
			return s
		}
		s = strings.Replace(s, "; "+a.advice, "", 1)
		e = a.err
	}
}
