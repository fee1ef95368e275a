package mcplive

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/printf"
)

// send makes one request with the session's headers: msg is the POST
// body, lastEventID resumes a GET stream. Before the server first answered,
// the wait for the answer is bounded by the dial timeout, and a failure
// wraps ErrDial. A 401 goes through OnUnauthorized, which may have the
// request sent once more.
func (c *httpConn) send(ctx context.Context, method string, msg []byte, m jsonrpc.Outgoing, lastEventID string) (*httpResponse, error) {
	for attempt := 0; ; attempt++ {
		resp, err := c.sendOnce(ctx, method, msg, m, lastEventID)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 400 || c.onUnauth == nil || attempt > 0 || !isAuthChallenge(resp) {
			return resp, nil
		}
		aerr := c.authError(resp, method)
		resp.Body.Close()
		if err := c.onUnauth(ctx, aerr); err != nil {
			return nil, printf.Errorf("%w (OnUnauthorized: %w)", aerr, err)
		}
	}
}

// sendOnce sends one request and returns its answer; a failure to get
// one is described by sendFailed.
func (c *httpConn) sendOnce(ctx context.Context, method string, msg []byte, m jsonrpc.Outgoing, lastEventID string) (*httpResponse, error) {
	req, established, err := c.newRequest(ctx, method, msg, m, lastEventID)
	if err != nil {
		return nil, err
	}

	// Before the server first answered, the wait for its answer is
	// bounded like a WebSocket's handshake (the dial timeout); the timer
	// stops once the answer has begun, and the body reads on in actx.
	actx, acancel := context.WithCancel(ctx)
	var timedOut atomic.Bool
	var timer *time.Timer // made only when it can fire: most requests need none
	if !established && method == methodPost {
		timer = time.AfterFunc(c.dialTimeout, func() { timedOut.Store(true); acancel() })
	}
	req.ctx = actx
	resp, err := c.rt.roundTrip(req)
	if timer != nil && !timer.Stop() && timedOut.Load() && ctx.Err() == nil {
		if err == nil {
			resp.Body.Close()
		}
		acancel()
		return nil, printf.Errorf("mcplive: %s %s: no answer within %v: %w (%w)", method, shownURL(c.url), c.dialTimeout, ErrTimeout, ErrDial)
	}
	if err == nil {
		resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: acancel}
		return resp, nil
	}
	acancel()
	return nil, c.sendFailed(ctx, method, established, err)
}

// newRequest builds a request with its headers: the app's, the
// credentials, the session's (id, protocol version), the 2026-07-28
// Mcp-Method and Mcp-Name, and Last-Event-ID. It reports whether the
// server had answered before (the session is established).
func (c *httpConn) newRequest(ctx context.Context, method string, msg []byte, m jsonrpc.Outgoing, lastEventID string) (*httpRequest, bool, error) {
	req := &httpRequest{Method: method, URL: c.url, Header: c.header.Clone(), Body: msg}
	if req.Header == nil {
		req.Header = Header{}
	}
	if err := c.authorize(ctx, method, req.Header); err != nil {
		return nil, false, err
	}
	c.mu.Lock()
	sid, version, established := c.sessionID, c.version, c.established
	c.mu.Unlock()
	if m.Version != "" {
		version = m.Version
	}
	switch method {
	case methodPost:
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	case methodGet:
		req.Header.Set("Accept", "text/event-stream")
	}
	if sid != "" {
		req.Header.Set(headerSessionID, sid)
	}
	if version != "" {
		req.Header.Set(headerProtocolVersion, version)
	}
	if version >= firstModernVersion && m.Method != "" && m.IsRequest() {
		req.Header.Set(headerMethod, m.Method)
		switch m.Method {
		case methods.CallTool, methods.GetPrompt, methods.ReadResource:
			if m.Name != "" {
				req.Header.Set(headerName, encodeHeaderValue(m.Name))
			}
			if m.Method == methods.CallTool {
				c.setParamHeaders(req.Header, m.Name, msg)
			}
		}
	}
	if lastEventID != "" {
		req.Header.Set(headerLastEventID, lastEventID)
	}
	return req, established, nil
}

// authorize sets the credentials of a request in h: the headers of the
// credentials callback, or the bearer token of the token callback.
func (c *httpConn) authorize(ctx context.Context, method string, h Header) error {
	if c.creds != nil {
		ch, err := c.creds(ctx, method, c.url)
		if err != nil {
			return printf.Errorf("mcplive: %s %s: get credentials: %w", method, shownURL(c.url), err)
		}
		for k, v := range ch {
			if len(v) > 0 {
				h.Set(k, v[0])
			}
		}
	} else if c.token != nil {
		tok, err := c.token(ctx)
		if err != nil {
			return printf.Errorf("mcplive: %s %s: get token: %w", method, shownURL(c.url), err)
		}
		if tok != "" {
			h.Set("Authorization", "Bearer "+tok)
		}
	}
	return nil
}

// sendFailed returns the error of a request that got no answer (err, from
// the round trip): the caller's cancellation, the connection's end, a
// redirect not followed, a server out of reach before the session (ErrDial)
// or after it (the connection ends; jsonrpc.ErrNotSent when the request
// certainly never reached the server). The optional event stream (GET)
// fails alone.
func (c *httpConn) sendFailed(ctx context.Context, method string, established bool, err error) error {
	if ctx.Err() != nil {
		if c.ctx.Err() != nil {
			if method == methodPost && unwritten(err) {
				// The connection ended (another request's failure ended
				// it) before this request was written: it never reached
				// the server (jsonrpc.ErrNotSent).
				return jsonrpc.NotSent(c.closedErr())
			}
			return c.closedErr()
		}
		return ctx.Err()
	}
	if closed, _ := closedUnder(err); closed {
		// Not the server's doing: the connection carries on (writePost
		// sends the message again or fails this request alone).
		return printf.Errorf("mcplive: %s %s: %w: %w", method, shownURL(c.url), ErrClosed, err)
	}
	if errors.Is(err, errRedirect) {
		return c.dialErr(printf.Errorf("%w: %s %s: %w", ErrProtocol, method, shownURL(c.url), err), "")
	}
	hint := "is the server up and the URL right?"
	if inBrowser() {
		hint = "is the server up and the URL right? In a browser a CORS refusal fails the same way: the server must allow this page's Origin, the methods GET, POST and DELETE, the headers Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, the Mcp-Param-… headers of its tools' x-mcp-header parameters and Last-Event-ID, and expose Mcp-Session-Id"
	}
	if !established {
		return withAdvice(printf.Errorf("mcplive: %s %s: %w (%w)", method, shownURL(c.url), err, ErrDial), hint)
	}
	if method == methodGet {
		// The event stream is optional: a proxy that allows POST only, a
		// CORS refusal of GET, a redirect loop fail it alone (reopen).
		return withAdvice(printf.Errorf("mcplive: %s %s: %w", method, shownURL(c.url), err), hint)
	}
	// The server is out of reach: the connection ends, as a dropped
	// WebSocket does, and the client reconnects.
	cause := err
	err = withAdvice(printf.Errorf("mcplive: %s %s: %w: %w", method, shownURL(c.url), ErrClosed, err), hint)
	c.fail(err)
	if serverUnreachable(cause) || writeRefused(cause) || unwritten(cause) {
		// This request certainly never reached the server: its caller
		// may send it again on the next connection (jsonrpc.ErrNotSent).
		return jsonrpc.NotSent(err)
	}
	return err
}

// cancelOnClose ends a request's context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) detach() { detach(b.ReadCloser) }

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// errRedirect reports a redirect the transport does not follow: one that
// would turn a POST into a GET (301, 302, 303), one to another origin, a
// loop, too many.
var errRedirect = errors.New("redirect not followed")

// maxRedirects bounds the redirects of one request.
const maxRedirects = 10

// followRedirects sends r through once (one request to url, redirects not
// followed) and follows the redirects of its answers as the transport
// does: 307 and 308 keep the method and the body, and 301, 302 and 303 do
// for a GET; a POST redirected with 301, 302 or 303 (which would become a
// GET) fails, naming the redirect and its target. A redirect to another
// origin is not followed: the app's headers, the session id and the token
// are for the MCP server's origin alone. A loop is reported as one.
// resolve makes a Location absolute against the URL it answered.
func followRedirects(r *httpRequest, once func(url string) (*httpResponse, error), resolve func(base, ref string) (string, error)) (*httpResponse, error) {
	cur := r.URL
	seen := []string{cur}
	for {
		resp, err := once(cur)
		if err != nil {
			return nil, err
		}
		code, loc := resp.StatusCode, resp.Header.Get("Location")
		if code != 301 && code != 302 && code != 303 && code != 307 && code != 308 || loc == "" {
			resp.Request = r
			return resp, nil
		}
		resp.Body.Close()
		next, err := resolve(cur, loc)
		if err != nil {
			return nil, printf.Errorf("%w: the server redirected the %s to a bad URL %q: %v", errRedirect, r.Method, loc, err)
		}
		switch {
		case !strings.EqualFold(originOf(next), originOf(cur)):
			return nil, printf.Errorf("%w: the server redirected the %s with %d to another origin, %s; mcplive does not follow it (the app's headers, the session id and the token are for the MCP server's origin alone): use that URL if it is the MCP endpoint",
				errRedirect, r.Method, code, redactURL(next))
		case code < 307 && r.Method != methodGet:
			return nil, printf.Errorf("%w: the server redirected a %s to %s with %d, which turns it into a GET; use the URL it redirects to",
				errRedirect, r.Method, redactURL(next), code)
		case slices.Contains(seen, next):
			return nil, printf.Errorf("%w: a redirect loop: %s → %s", errRedirect, strings.Join(mapStrings(seen, redactURL), " → "), redactURL(next))
		case len(seen) > maxRedirects:
			return nil, printf.Errorf("%w: stopped after %d redirects (last to %s)", errRedirect, maxRedirects, redactURL(next))
		}
		seen = append(seen, next)
		cur = next
	}
}

// originOf returns the scheme and authority of an absolute URL, lower-cased
// ("https://example.com:8443").
func originOf(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:] // no user info
	}
	return strings.ToLower(scheme + "://" + rest)
}

// redactURL drops the user info (a password) of a URL, for error texts.
func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	end := len(rest)
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		end = i
	}
	if i := strings.LastIndexByte(rest[:end], '@'); i >= 0 {
		return scheme + "://" + rest[i+1:]
	}
	return u
}

func mapStrings(ss []string, fn func(string) string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fn(s)
	}
	return out
}

// httpRequest is one request as the transport sends it, and
// httpResponse one answer: net/http's types would do, but under
// WebAssembly they link Go's TLS and X.509 code into the binary (about
// 40 KB compressed) for nothing: the browser twin (http_js.go) speaks
// fetch without them.
type httpRequest struct {
	ctx    context.Context
	Method string
	URL    string
	Header Header
	Body   []byte
}

type httpResponse struct {
	StatusCode    int
	Status        string // "404 Not Found"
	Header        Header
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
	b := append(make([]byte, 0, len("=?base64?")+(len(s)+2)/3*4+len("?=")), "=?base64?"...)
	return string(append(appendBase64(b, s), "?="...))
}

// appendBase64 appends s in standard base64 with padding (RFC 4648 §4), as
// base64.StdEncoding encodes it: the one base64 the wasm writes, without
// package encoding/base64 and its tables in the wasm.
func appendBase64(b []byte, s string) []byte {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for ; len(s) >= 3; s = s[3:] {
		v := uint(s[0])<<16 | uint(s[1])<<8 | uint(s[2])
		b = append(b, alphabet[v>>18&63], alphabet[v>>12&63], alphabet[v>>6&63], alphabet[v&63])
	}
	switch len(s) {
	case 1:
		v := uint(s[0]) << 16
		b = append(b, alphabet[v>>18&63], alphabet[v>>12&63], '=', '=')
	case 2:
		v := uint(s[0])<<16 | uint(s[1])<<8
		b = append(b, alphabet[v>>18&63], alphabet[v>>12&63], alphabet[v>>6&63], '=')
	}
	return b
}
