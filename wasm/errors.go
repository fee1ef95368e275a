//go:build js && wasm

package main

import (
	"context"
	"errors"
	"github.com/mcplive/mcplive/internal/redact"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/wire"

	"github.com/mcplive/mcplive/internal/jsontext"
)

// errorInfo is how an error crosses to JS, both as a rejection and inside
// list messages; js/src/errors.js builds the Error (in JS, so its stack is
// JS frames, not wasm ones).
type errorInfo struct {
	Name    string             `json:"name"`
	Message string             `json:"message"`
	Code    *int64             `json:"code,omitempty"`
	Data    mcplive.RawMessage `json:"data,omitempty"`
	// An AuthError's: the HTTP status and the challenge's parameters.
	Status           int    `json:"status,omitempty"`
	ResourceMetadata string `json:"resourceMetadata,omitempty"`
	Scope            string `json:"scope,omitempty"`
	WWWAuthenticate  string `json:"wwwAuthenticate,omitempty"`
	// The challenge's error and error_description (RFC 6750: invalid_token,
	// insufficient_scope, ...): what an OAuth client acts on.
	Error            string `json:"error,omitempty"`
	ErrorDescription string `json:"errorDescription,omitempty"`
	// DPoPNonce: the server's DPoP-Nonce (RFC 9449), for the next proof.
	DPoPNonce string `json:"dpopNonce,omitempty"`
	// Cause is the system's error under a failed request (Node's fetch:
	// code "ECONNREFUSED"), the JS Error's cause.
	Cause *causeInfo `json:"cause,omitempty"`
}

// causeInfo describes an Error's cause: {message, code}.
type causeInfo struct {
	Message string
	Code    string
}

// fetchFailure is a rejected fetch (the root package's fetchError).
type fetchFailure interface{ FetchMessage() string }

// systemCause is an error whose cause is the system's (fetch in Node).
type systemCause interface {
	SystemCode() string
	CauseMessage() string
}

// MarshalJSON writes e as encoding/json writes the struct, its fields in
// order (wire.Marshal writes it through this: the wasm has no encoder of
// encoding/json).
func (e *errorInfo) MarshalJSON() (b []byte, err error) {
	b = append(b, '{')
	if b, err = member(b, "name", e.Name); err != nil {
		return nil, err
	}
	if b, err = member(b, "message", e.Message); err != nil {
		return nil, err
	}
	if e.Code != nil {
		if b, err = member(b, "code", *e.Code); err != nil {
			return nil, err
		}
	}
	if len(e.Data) > 0 {
		if b, err = member(b, "data", e.Data); err != nil {
			return nil, err
		}
	}
	if e.Status != 0 {
		if b, err = member(b, "status", e.Status); err != nil {
			return nil, err
		}
	}
	for _, f := range [...]struct{ name, v string }{
		{"resourceMetadata", e.ResourceMetadata}, {"scope", e.Scope}, {"wwwAuthenticate", e.WWWAuthenticate},
		{"error", e.Error}, {"errorDescription", e.ErrorDescription}, {"dpopNonce", e.DPoPNonce},
	} {
		if f.v != "" {
			if b, err = member(b, f.name, f.v); err != nil {
				return nil, err
			}
		}
	}
	if e.Cause != nil {
		c := append([]byte(nil), '{')
		if c, err = member(c, "message", e.Cause.Message); err != nil {
			return nil, err
		}
		if c, err = member(c, "code", e.Cause.Code); err != nil {
			return nil, err
		}
		if b, err = member(b, "cause", mcplive.RawMessage(append(c, '}'))); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// member appends "name":v (wire.Marshal's JSON of v) to an object's
// members in b, after a comma unless it is the first. Not inlined: the
// calls above are an error's path, and each inlined copy is wasm bytes.
//
//go:noinline
func member(b []byte, name string, v any) ([]byte, error) {
	j, err := wire.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return append(b, j...), nil
}

// errArgs reports arguments from JS that the binding cannot use; JS checks
// them first, so it only guards against a caller that bypasses the package.
var errArgs = errors.New("bad arguments")

// describe classifies err for JS. The name lets JS code tell the kinds
// apart without parsing messages; an RPC error also carries code and data.
// The message is worded for a JS developer (see jsMessage).
func describe(err error) *errorInfo {
	if err == nil {
		return nil
	}
	info := &errorInfo{Name: "Error", Message: jsMessage(err)}
	var sys systemCause
	var fe fetchFailure
	switch {
	case errors.As(err, &sys) && (sys.SystemCode() != "" || sys.CauseMessage() != ""):
		info.Cause = &causeInfo{Message: sys.CauseMessage(), Code: sys.SystemCode()}
	case errors.As(err, &fe) && fe.FetchMessage() != "":
		// A browser's fetch says little ("Failed to fetch"), but that
		// little is the cause.
		info.Cause = &causeInfo{Message: fe.FetchMessage()}
	}
	var rpc *mcplive.RPCError
	var auth *mcplive.AuthError
	switch {
	case errors.As(err, &auth):
		info.Name = "AuthError"
		info.Status, info.ResourceMetadata, info.Scope, info.WWWAuthenticate = auth.StatusCode, auth.ResourceMetadata, auth.Scope, auth.WWWAuthenticate
		info.Error, info.ErrorDescription, info.DPoPNonce = auth.Code, auth.Description, auth.DPoPNonce
	case errors.As(err, &rpc):
		info.Name = "RPCError"
		code := rpc.Code
		info.Code = &code
		if len(rpc.Data) > 0 && jsontext.Check(rpc.Data) == nil {
			info.Data = rpc.Data
		}
	case errors.Is(err, errArgs):
		info.Name = "TypeError"
	case errors.Is(err, mcplive.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		// Before ErrDial: a connect that got no answer within the dial
		// timeout is a TimeoutError over every transport.
		info.Name = "TimeoutError"
	case errors.Is(err, mcplive.ErrDial):
		info.Name = "DialError"
	case errors.Is(err, context.Canceled):
		info.Name = "AbortError"
	case errors.Is(err, mcplive.ErrClosed):
		info.Name = "ClosedError"
	case errors.Is(err, mcplive.ErrUnsupported):
		info.Name = "UnsupportedError"
	case errors.Is(err, mcplive.ErrProtocol), errors.Is(err, mcplive.ErrIncompleteResult):
		info.Name = "ProtocolError"
	}
	return info
}

// timeoutError is a call's own timeout (timeoutMs) expiring: the root
// package reports only the context's deadline, worded for Go.
func timeoutError(method string, d time.Duration) error {
	return &wordedError{
		msg: method + ": no answer within " + human(d),
		err: mcplive.ErrTimeout,
	}
}

// dialError words a failed dial for a web developer: the browser hides
// why a WebSocket handshake failed, so the message lists the likely causes.
// Over Streamable HTTP an answer the client could read (an HTTP status, a
// refused token, a timeout, a body that is not MCP) says why itself; a
// request that failed without one (fetch's TypeError) may be CORS, and the
// message says what the server must send.
func dialError(url string, ws bool, dialTimeout time.Duration, err error) error {
	var auth *mcplive.AuthError
	var status *mcplive.HTTPError
	causes := dialCausesHTTP
	if errors.Is(err, mcplive.ErrTimeout) {
		// The same words over both transports, whichever step went
		// unanswered (the handshake, the probe, initialize).
		if dialTimeout <= 0 {
			dialTimeout = mcplive.DefaultDialTimeout
		}
		return &wordedError{msg: "could not connect to " + url + ": no answer within " + human(dialTimeout) + " (dialTimeoutMs)", err: err}
	}
	var alt interface{ StreamableHTTPURL() string }
	var sys systemCause
	switch {
	case ws && errors.As(err, &alt) && alt.StreamableHTTPURL() != "":
		u := alt.StreamableHTTPURL()
		causes = ": the server answered a Streamable HTTP POST to " + u + " as an MCP endpoint does: it may speak Streamable HTTP and not WebSocket; try " + u
	case errors.As(err, &sys) && sys.SystemCode() != "":
		// Node: the system says why (no CORS there).
		causes = ": " + sys.CauseMessage() + " (" + sys.SystemCode() + "): is the server up and the URL right?"
	case ws && inBrowser():
		causes = dialCausesWS
	case ws:
		causes = dialCausesWSNode
	case errors.As(err, &auth) || errors.As(err, &status) || errors.Is(err, mcplive.ErrProtocol) || !inBrowser():
		causes = ": " + jsMessage(err)
	default:
		// A browser's failed fetch: what it said first, then the likely
		// causes it does not tell.
		var fe fetchFailure
		if errors.As(err, &fe) && fe.FetchMessage() != "" {
			causes = ": " + fe.FetchMessage() + "; that is: " + strings.TrimPrefix(dialCausesHTTP, ": ")
		}
	}
	return &wordedError{msg: "could not connect to " + url + causes, err: err}
}

// inBrowser reports a JS runtime with the browser's rules (CORS, hidden
// failure reasons): not Node, Deno or Bun. A variable: tests of the
// browser's words run under Node.
var inBrowser = func() bool {
	g := js.Global()
	if p := g.Get("process"); p.Type() == js.TypeObject {
		if v := p.Get("versions"); v.Type() == js.TypeObject && v.Get("node").Type() == js.TypeString {
			return false
		}
	}
	return g.Get("Deno").Type() == js.TypeUndefined && g.Get("Bun").Type() == js.TypeUndefined
}

const (
	dialCausesWS = ": the server is down or unreachable, the URL's path is wrong, the server refused this page's Origin, " +
		"or it refused the token or credentials in the URL (a browser does not tell scripts the HTTP status of a failed WebSocket handshake)"
	// Node's WebSocket does not tell why a handshake failed either, but
	// there is no Origin to refuse.
	dialCausesWSNode = ": the server is down or unreachable, the URL's path is wrong, or the server refused the handshake " +
		"or the token or credentials in the URL (the WebSocket does not tell the HTTP status of a failed handshake)"
	// The request headers are those Streamable HTTP sends in either revision.
	dialCausesHTTP = ": the server is down or unreachable, the URL is wrong, or the server refused this page's cross-origin " +
		"request (CORS): a browser does not tell scripts why a request failed, and a refused connection, a CORS refusal and a " +
		"bad certificate look alike. For CORS the server must answer the preflight (OPTIONS) and every response with " +
		"Access-Control-Allow-Origin for this page's origin, allow the methods GET, POST and DELETE and the request headers " +
		"Content-Type, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name and Last-Event-ID, and " +
		"expose Mcp-Session-Id (Access-Control-Expose-Headers)"
)

// wordedError keeps err for errors.Is and As but replaces its text.
type wordedError struct {
	msg string
	err error
}

func (e *wordedError) Error() string { return e.msg }
func (e *wordedError) Unwrap() error { return e.err }

// goPhrases are parts of Go error texts that mean nothing to a JS
// developer (they name Go's or coder/websocket's internals); a ": "
// separated part of a message that contains one is dropped.
var goPhrases = []string{
	"use of closed network connection",
	"failed to ",
	"unclean connection close",
	"context canceled",
	"WebSocket closed",
	"status = ",
}

// jsMessage words err for JS: no "mcplive: " prefixes (the error's name
// says where it comes from), no Go internals, the server's own message for
// an RPC error, durations as "30 s" instead of Go's "30s".
func jsMessage(err error) string {
	var w *wordedError
	if errors.As(err, &w) && w == err {
		return w.msg
	}
	s := err.Error()
	var rpc *mcplive.RPCError
	if errors.As(err, &rpc) {
		text := rpc.Message
		if text == "" {
			text = "the server answered with error " + strconv.FormatInt(rpc.Code, 10) + " and no message"
		}
		s = strings.Replace(s, rpc.Error(), text, 1)
	}
	// A sentinel at the end only repeats what the name says.
	for _, e := range []error{mcplive.ErrTimeout, mcplive.ErrDial} {
		s = strings.ReplaceAll(s, ": "+e.Error(), "")
		s = strings.ReplaceAll(s, " ("+e.Error()+")", "")
	}
	s = strings.ReplaceAll(s, "mcplive: ", "")
	s = strings.ReplaceAll(s, "(OnUnauthorized: ", "(")
	s = strings.ReplaceAll(s, "Options.OnElicit is not set", "connect was given no onElicit")
	s = strings.ReplaceAll(s, "context deadline exceeded", "timed out")
	parts := strings.Split(s, ": ")
	kept := parts[:0]
	for _, p := range parts {
		// The same prefix twice ("initialize: initialize: ") says nothing new.
		if p == "" || containsAny(p, goPhrases) || len(kept) > 0 && kept[len(kept)-1] == p {
			continue
		}
		kept = append(kept, p)
	}
	if len(kept) == 0 {
		kept = append(kept, "failed")
	}
	return humanDurations(strings.Join(kept, ": "))
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// humanDurations rewrites Go durations in s ("30s", "1m0s", "250ms", as
// time.Duration's String writes them) the way a person writes them ("30 s",
// "60 s", "250 ms"). Numbers without a unit and words that merely start
// with a digit stay as they are. (Hand-written: time.ParseDuration and
// strconv's float formatting cost the wasm 15 KB.)
func humanDurations(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' || (i > 0 && isWordByte(s[i-1])) {
			b.WriteByte(s[i])
			i++
			continue
		}
		d, n := parseDuration(s[i:])
		if n > 0 {
			b.WriteString(human(d))
			i += n
			continue
		}
		for i < len(s) && (isWordByte(s[i]) || s[i] == '.') {
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// parseDuration reads a Go duration ("1m30.5s") at the start of s and
// returns it and its length; 0 when s does not start with one that ends
// at a word boundary.
func parseDuration(s string) (time.Duration, int) {
	var total time.Duration
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		var whole, frac, scale int64 = 0, 0, 1
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			whole = whole*10 + int64(s[i]-'0')
		}
		if i < len(s) && s[i] == '.' {
			for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
				if scale < 1e9 {
					frac, scale = frac*10+int64(s[i]-'0'), scale*10
				}
			}
		}
		var unit time.Duration
		switch {
		case strings.HasPrefix(s[i:], "ms"):
			unit, i = time.Millisecond, i+2
		case strings.HasPrefix(s[i:], "ns"):
			unit, i = time.Nanosecond, i+2
		case strings.HasPrefix(s[i:], "µs"):
			unit, i = time.Microsecond, i+len("µs")
		case strings.HasPrefix(s[i:], "h"):
			unit, i = time.Hour, i+1
		case strings.HasPrefix(s[i:], "m"):
			unit, i = time.Minute, i+1
		case strings.HasPrefix(s[i:], "s"):
			unit, i = time.Second, i+1
		default:
			return 0, 0
		}
		total += time.Duration(whole)*unit + time.Duration(frac)*unit/time.Duration(scale)
	}
	if i == 0 || (i < len(s) && isWordByte(s[i])) {
		return 0, 0
	}
	return total, i
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// human writes d as "30 s", "1.5 s" or "250 ms".
func human(d time.Duration) string {
	unit, name := time.Second, " s"
	if d < time.Second {
		unit, name = time.Millisecond, " ms"
	}
	out := strconv.FormatInt(int64(d/unit), 10)
	if rest := int64(d%unit) * 1000 / int64(unit); rest > 0 {
		frac := strconv.FormatInt(1000+rest, 10)[1:] // three digits
		for frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
		out += "." + frac
	}
	return out + name
}

// shownURL is a URL as errors and log lines show it (redact.URL): no
// userinfo, and "?…" for its query and fragment.
func shownURL(u string) string { return redact.URL(u) }
