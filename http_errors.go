package mcplive

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/printf"
)

// The errors of the Streamable HTTP transport: what an HTTP status, a
// refused credential or a failed dial becomes.

// closedErr is the error of a request that Close (or a failure) cut off.
func (c *httpConn) closedErr() error {
	if err := c.failure(); err != nil {
		return err
	}
	return printf.Errorf("%w by the client", ErrClosed)
}

// dialErr adds ErrDial to err while no message has been answered yet: the
// server at this URL does not speak Streamable HTTP as it should.
func (c *httpConn) dialErr(err error, hint string) error {
	c.mu.Lock()
	established := c.established
	c.mu.Unlock()
	if established {
		return err
	}
	return withAdvice(printf.Errorf("%w: %w", ErrDial, err), hint)
}

// refused handles a POST answered with an HTTP error status.
func (c *httpConn) refused(resp *httpResponse, m jsonrpc.Outgoing) error {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err := c.sessionGone(resp); err != nil {
		return err
	}
	if m.IsRequest() {
		if rpcErr := jsonRPCErrorBody(body); rpcErr != nil {
			// The server's answer to the request, in JSON-RPC terms
			// (both parts valid JSON: the id is the request's own, the
			// error was read above).
			b := make([]byte, 0, 32+len(m.ID)+len(rpcErr))
			b = append(b, `{"jsonrpc":"2.0","id":`...)
			b = append(b, m.ID...)
			b = append(b, `,"error":`...)
			b = append(b, rpcErr...)
			b = append(b, '}')
			c.enqueue(jsonrpc.Inbound{Msg: b, ForID: m.ID, Sole: true})
			return nil
		}
	}
	if isAuthChallenge(resp) {
		aerr := c.authError(resp, methodPost)
		return aerr
	}
	herr := &HTTPError{Method: methodPost, URL: c.url, StatusCode: resp.StatusCode, Status: resp.Status, Body: bodySnippet(body), RetryAfter: retryAfter(resp)}
	c.mu.Lock()
	established, sid := c.established, c.sessionID
	c.mu.Unlock()
	if !established {
		herr.err = ErrDial
	}
	if inBrowser() && established && sid == "" && resp.StatusCode == statusBadRequest {
		// A browser hides a response header unless the server exposes it.
		herr.hint = "if the server assigned a session id, it must expose it to pages: Access-Control-Expose-Headers: Mcp-Session-Id"
	}
	return printf.Errorf("mcplive: %s: %w", m.What(), herr)
}

// sessionGone returns the error that ends the connection when resp is a
// 404 to a request that carried the session id: the server ended the
// session (expired, restarted, deleted), and the client must start a new
// one. It returns nil for any other answer.
func (c *httpConn) sessionGone(resp *httpResponse) error {
	sid := resp.Request.Header.Get(headerSessionID)
	if resp.StatusCode != statusNotFound || sid == "" {
		return nil
	}
	err := printf.Errorf("%w: the server ended session %q (%s %s answered 404 Not Found): a new session is needed", ErrClosed, sid, resp.Request.Method, shownURL(c.url))
	c.mu.Lock()
	c.expired = true
	c.mu.Unlock()
	c.fail(err)
	return err
}

// jsonRPCErrorBody returns the error member of body when body is one
// JSON-RPC error response.
func jsonRPCErrorBody(body []byte) RawMessage {
	var v struct {
		JSONRPC string
		Error   RawMessage
	}
	if jsontext.Decode(body, "body", []jsontext.Field{{Name: "jsonrpc", Dst: &v.JSONRPC}, {Name: "error", Dst: &v.Error}}) != nil || v.JSONRPC != "2.0" || len(v.Error) == 0 || v.Error[0] != '{' {
		return nil
	}
	var e RPCError
	if jsonrpc.DecodeError(v.Error, &e) != nil || e.Message == "" && e.Code == 0 {
		return nil
	}
	return v.Error
}

// bodySnippet is the start of an error answer's body, for a message: of
// an HTML page (a proxy's, a framework's error page) its title, or its
// first text when it has none, not its markup.
func bodySnippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if isHTML(s) {
		s = htmlText(s)
	}
	if len(s) > 200 {
		cut := 200
		for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// isHTML reports a body that is an HTML document or fragment.
func isHTML(s string) bool {
	if !strings.HasPrefix(s, "<") {
		return false
	}
	l := strings.ToLower(s[:min(len(s), 512)])
	for _, tag := range [...]string{"<!doctype html", "<html", "<head", "<title", "<body", "<h1", "<p>", "<pre", "<div"} {
		if strings.Contains(l, tag) {
			return true
		}
	}
	return false
}

// htmlText returns the text of page's <title>, or its first text outside
// tags, scripts and styles when the title is missing or empty.
func htmlText(page string) string {
	l := strings.ToLower(page)
	if i := strings.Index(l, "<title"); i >= 0 {
		if j := strings.IndexByte(l[i:], '>'); j >= 0 {
			start := i + j + 1
			if k := strings.Index(l[start:], "</title"); k >= 0 {
				if t := htmlUnescape(strings.Join(strings.Fields(page[start:start+k]), " ")); t != "" {
					return t
				}
			}
		}
	}
	var text strings.Builder
	for i := 0; i < len(page); {
		if page[i] != '<' {
			j := strings.IndexByte(page[i:], '<')
			if j < 0 {
				j = len(page) - i
			}
			if t := strings.Join(strings.Fields(page[i:i+j]), " "); t != "" {
				if text.Len() > 0 {
					text.WriteByte(' ')
				}
				text.WriteString(t)
				if text.Len() >= 200 {
					break
				}
			}
			i += j
			continue
		}
		// Skip a tag, and the whole of a script, a style or a comment.
		end := ">"
		switch {
		case strings.HasPrefix(l[i:], "<!--"):
			end = "-->"
		case strings.HasPrefix(l[i:], "<script"):
			end = "</script>"
		case strings.HasPrefix(l[i:], "<style"):
			end = "</style>"
		}
		j := strings.Index(l[i:], end)
		if j < 0 {
			break
		}
		i += j + len(end)
	}
	return htmlUnescape(text.String())
}

// htmlUnescape decodes the character references an error page's text
// commonly holds.
func htmlUnescape(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	for _, r := range [...][2]string{{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", `"`}, {"&#39;", "'"}, {"&#x27;", "'"}, {"&nbsp;", " "}, {"&amp;", "&"}} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}

// isAuthChallenge reports an answer that refuses the request's
// credentials: 401, or 403 with a Bearer challenge (insufficient scope).
// A 403 without one is a refused Origin or a plain denial.
func isAuthChallenge(resp *httpResponse) bool {
	return resp.StatusCode == statusUnauthorized ||
		(resp.StatusCode == statusForbidden && resp.Header.Get("WWW-Authenticate") != "")
}

func (c *httpConn) authError(resp *httpResponse, method string) *AuthError {
	h := strings.Join(resp.Header.Values("WWW-Authenticate"), ", ")
	params := parseAuthParams(h)
	e := &AuthError{
		StatusCode:       resp.StatusCode,
		URL:              c.url,
		WWWAuthenticate:  h,
		ResourceMetadata: params["resource_metadata"],
		Scope:            params["scope"],
		Code:             params["error"],
		Description:      params["error_description"],
		DPoPNonce:        resp.Header.Get("DPoP-Nonce"),
	}
	c.mu.Lock()
	if !c.established {
		e.err = ErrDial
	}
	c.mu.Unlock()
	return e
}

// parseAuthParams picks the auth-params (name=token or name="quoted") of
// the Bearer challenge out of a WWW-Authenticate value that may hold
// several challenges ("Basic realm=x, Bearer scope=y"): an OAuth client
// must read resource_metadata, scope and error from Bearer's, whichever
// scheme comes first. Without a Bearer challenge it takes every
// challenge's params, the first occurrence of a name winning. Names are
// lower-cased. Over 80 lines on purpose: one hand-written scanner whose position and state (i, afterComma, params, inBearer) every step moves.
func parseAuthParams(h string) map[string]string {
	all := map[string]string{}
	var bearer map[string]string
	params := all // where the current challenge's params go
	inBearer := false
	i := 0
	afterComma := true // at the start, or after a comma: a bare token is a scheme
	for i < len(h) {
		if h[i] == ',' {
			afterComma = true
			i++
			continue
		}
		// A name: a run of token characters followed by '='.
		j := i
		for j < len(h) && isTokenChar(h[j]) {
			j++
		}
		if j == i {
			if h[i] != ' ' && h[i] != '\t' {
				afterComma = false
			}
			i++
			continue
		}
		name := strings.ToLower(h[i:j])
		k := j
		for k < len(h) && (h[k] == ' ' || h[k] == '\t') {
			k++
		}
		if k >= len(h) || h[k] != '=' {
			// A scheme name (after a comma or at the start), or a token68.
			if afterComma {
				inBearer = name == "bearer" && bearer == nil
				params = all
				if inBearer {
					bearer = map[string]string{}
					params = bearer
				}
			}
			afterComma = false
			i = j
			continue
		}
		afterComma = false
		k++
		if k < len(h) && h[k] == '=' {
			// A token68 (base64 padding), not a name=value pair.
			for k < len(h) && h[k] == '=' {
				k++
			}
			i = k
			continue
		}
		for k < len(h) && (h[k] == ' ' || h[k] == '\t') {
			k++
		}
		var val strings.Builder
		if k < len(h) && h[k] == '"' {
			k++
			for k < len(h) && h[k] != '"' {
				if h[k] == '\\' && k+1 < len(h) {
					k++
				}
				val.WriteByte(h[k])
				k++
			}
			k++ // the closing quote
		} else {
			for k < len(h) && isTokenChar(h[k]) {
				val.WriteByte(h[k])
				k++
			}
		}
		if _, ok := params[name]; !ok {
			params[name] = val.String()
		}
		if inBearer {
			if _, ok := all[name]; !ok {
				all[name] = val.String()
			}
		}
		i = k
	}
	if bearer != nil {
		return bearer
	}
	return all
}

// isTokenChar reports a character of an RFC 9110 token.
func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// AuthError reports a request whose credentials the server refused: HTTP
// 401, or 403 with a Bearer challenge (insufficient scope). Get it with
// errors.As. ResourceMetadata is where an OAuth client starts (RFC 9728:
// the protected resource metadata names the authorization servers). Before
// the session was established it also matches ErrDial.
type AuthError struct {
	StatusCode int
	URL        string
	// WWWAuthenticate is the server's challenge as it sent it.
	WWWAuthenticate string
	// ResourceMetadata, Scope, Code (the "error" parameter, such as
	// invalid_token or insufficient_scope) and Description are the
	// challenge's parameters, when present.
	ResourceMetadata string
	Scope            string
	Code             string
	Description      string
	// DPoPNonce is the response's DPoP-Nonce header (RFC 9449: the nonce
	// the server wants in the next proof, with error use_dpop_nonce).
	DPoPNonce string

	err error
}

func (e *AuthError) Error() string {
	b := printf.Appendf(nil, "mcplive: %s refused the credentials (HTTP %d)", shownURL(e.URL), e.StatusCode)
	if e.Code != "" {
		b = printf.Appendf(b, ": %s", e.Code)
	}
	if e.Description != "" {
		b = printf.Appendf(b, " (%s)", e.Description)
	}
	if e.ResourceMetadata != "" {
		b = printf.Appendf(b, "; authorization: see %s", e.ResourceMetadata)
	}
	if e.Scope != "" {
		b = printf.Appendf(b, "; scope %q", e.Scope)
	}
	return string(b)
}

func (e *AuthError) Unwrap() error { return e.err }

// HTTPError reports an HTTP status where Streamable HTTP expects success,
// with the start of the body the server sent. Before the session was
// established it also matches ErrDial.
type HTTPError struct {
	Method     string
	URL        string
	StatusCode int
	Status     string
	Body       string

	// RetryAfter is the server's Retry-After of a 429 or 503, in whole
	// seconds, capped at maxRetryAfter; 0 when it gave none (or a date).
	RetryAfter time.Duration

	err  error
	hint string
}

// maxRetryAfter caps the wait a server's Retry-After asks for.
const maxRetryAfter = time.Minute

// retryAfter reads the Retry-After of a 429 or 503 answer: delay-seconds
// only (an HTTP-date would link time's parser into the wasm for a form
// servers rarely send), capped at maxRetryAfter.
func retryAfter(resp *httpResponse) time.Duration {
	if resp.StatusCode != statusTooManyRequests && resp.StatusCode != statusServiceUnavailable {
		return 0
	}
	n, err := strconv.ParseUint(strings.TrimSpace(resp.Header.Get("Retry-After")), 10, 32)
	if err != nil {
		return 0
	}
	return min(time.Duration(n)*time.Second, maxRetryAfter)
}

// retryAfterOf is the Retry-After that err carries (an *HTTPError's), or 0.
func retryAfterOf(err error) time.Duration {
	var herr *HTTPError
	if errors.As(err, &herr) {
		return herr.RetryAfter
	}
	return 0
}

// refusal reports whether the server refused the request itself (a 4xx
// other than 401 and 403: not a credentials matter): a transport's answer
// that the session's era logic reads as a server that does not speak the
// request's revision (era.go, transportRefused).
func (e *HTTPError) refusal() bool {
	return e.StatusCode >= 400 && e.StatusCode < 500 && e.StatusCode != 401 && e.StatusCode != 403
}

func (e *HTTPError) Error() string {
	s := printf.Sprintf("%s %s: the server answered %s", e.Method, e.URL, e.Status)
	if e.Body != "" {
		s += ": " + strconv.Quote(e.Body)
	}
	switch e.StatusCode {
	case statusNotFound, statusMethodNotAllowed:
		s += " (is the URL the server's MCP endpoint?)"
	case statusForbidden:
		s += " (does the server allow this Origin and these credentials?)"
	}
	if e.hint != "" {
		s += "; " + e.hint
	}
	if e.err != nil {
		return e.err.Error() + ": " + s
	}
	return s
}

func (e *HTTPError) Unwrap() error { return e.err }
