//go:build js && wasm

package mcplive

// The Streamable HTTP transport's browser twin (as coder/websocket's
// ws_js.go): requests go through the JavaScript fetch API. Go's own
// http.Transport uses fetch too, but refuses it under Node (it checks
// process.argv0, for Go's tests), and linking it brings Go's TCP, TLS and
// HTTP/2 client along (about 1.2 MB compressed) that a page never runs.
// Modelled on net/http's roundtrip_js.go.

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"syscall/js"

	"github.com/mcplive/mcplive/internal/jsfetch"
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/printf"
)

func defaultRoundTripper() (roundTripper, func()) { return fetchTransport{}, nil }

// fetchTransport sends a request with fetch (which follows redirects
// itself) and streams the answer's body. The request's context aborts the
// fetch, the body's reading included.
type fetchTransport struct{}

func (fetchTransport) roundTrip(req *httpRequest) (resp *httpResponse, err error) {
	// A JavaScript exception surfaces as a Go panic; it must not end the
	// runtime of the whole page.
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, printf.Errorf("fetch %s: %v", req.URL, r)
		}
	}()
	if inBrowser() {
		// A page cannot see a redirect (fetch's "manual" hides its status
		// and target): the browser follows it, and an answer that came
		// from another origin is refused (fetchOnce).
		return fetchOnce(req, req.URL, "follow")
	}
	// Node, Deno, Bun: the redirects are followed here, as natively
	// (Node's fetch cannot send a request body again on a 307 or 308).
	return followRedirects(req, func(u string) (*httpResponse, error) {
		return fetchOnce(req, u, "manual")
	}, func(base, ref string) (string, error) {
		return js.Global().Get("URL").New(ref, base).Get("href").String(), nil
	})
}

// fetchOnce sends req to url with fetch's redirect mode. Over 80 lines on purpose: a split cost the wasm +330 B of brotli (issue 46).
func fetchOnce(req *httpRequest, url, redirect string) (*httpResponse, error) {
	fetch := js.Global().Get("fetch")
	body := req.Body
	ctx := req.ctx
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	opt := js.Global().Get("Object").New()
	opt.Set("method", req.Method)
	opt.Set("cache", "no-store")
	opt.Set("redirect", redirect)
	headers := js.Global().Get("Headers").New()
	for k, vs := range req.Header {
		switch strings.ToLower(k) {
		case "js.fetch:credentials":
			opt.Set("credentials", vs[0]) // "include" sends cookies cross-origin
			continue
		case "js.fetch:mode":
			opt.Set("mode", vs[0])
			continue
		case jsfetch.Header:
			// The app's fetch for this server (the fetch option).
			if fn, ok := jsfetch.Get(vs[0]); ok {
				fetch = fn
			}
			continue
		}
		for _, v := range vs {
			headers.Call("append", k, v)
		}
	}
	if fetch.Type() != js.TypeFunction {
		return nil, errors.New("this JavaScript environment has no fetch")
	}
	opt.Set("headers", headers)
	if len(body) > 0 {
		buf := js.Global().Get("Uint8Array").New(len(body))
		js.CopyBytesToJS(buf, body)
		opt.Set("body", buf)
	}
	ac := js.Global().Get("AbortController")
	if ac.Type() == js.TypeFunction {
		ac = ac.New()
		opt.Set("signal", ac.Get("signal"))
	} else {
		ac = js.Undefined()
	}
	abort := func() {
		if !ac.IsUndefined() {
			ac.Call("abort")
		}
	}

	result, err := await(ctx, fetch.Invoke(url, opt), abort)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, printf.Errorf("fetch: %w", err)
	}
	if redirect == "follow" && result.Get("redirected").Truthy() {
		if final := result.Get("url").String(); !strings.EqualFold(originOf(final), originOf(url)) {
			abort()
			return nil, printf.Errorf("%w: the server redirected the %s to another origin, %s; mcplive does not take its answer (the app's headers, the session id and the token are for the MCP server's origin alone): use that URL if it is the MCP endpoint",
				errRedirect, req.Method, redactURL(final))
		}
	}

	header := responseHeader(result.Get("headers"))
	code := result.Get("status").Int()
	length := int64(-1)
	if cl, err := strconv.ParseInt(header.Get("Content-Length"), 10, 64); err == nil && cl >= 0 {
		length = cl
	}
	if header.Get("Content-Encoding") != "" {
		// fetch decoded the body already.
		header.Del("Content-Encoding")
		header.Del("Content-Length")
		length = -1
	}
	rb := &fetchBody{abort: abort}
	if b := result.Get("body"); b.Type() == js.TypeObject {
		rb.reader = b.Call("getReader")
	} else {
		// No streamed body (an old engine): the whole body at once.
		rb.whole = result.Call("arrayBuffer")
	}
	// The context keeps its hold on the body: ending it aborts a read
	// (not a body read to its end: that request is complete).
	rb.stop = context.AfterFunc(ctx, rb.cancel)
	return &httpResponse{
		StatusCode:    code,
		Status:        strings.TrimSpace(strconv.Itoa(code) + " " + result.Get("statusText").String()), // HTTP/2 has no reason phrase
		Header:        header,
		ContentLength: length,
		Body:          rb,
		Request:       req,
	}, nil
}

// responseHeader reads a fetch Headers object in four calls into JS (one
// JSON text of its entries) where iterating it took about seven per header,
// each making values with finalizers: ~50 crossings per response. A
// Headers object yields each name once, its values joined with ", ".
func responseHeader(h js.Value) Header {
	header := Header{}
	global := js.Global()
	text := global.Get("JSON").Call("stringify", global.Get("Object").Call("fromEntries", h)).String()
	_, _ = jsontext.ForEachMember([]byte(text), func(k string, v []byte) error {
		if len(v) > 0 && v[0] == '"' {
			key := canonicalHeaderKey(k)
			header[key] = append(header[key], jsontext.Unquote(v))
		}
		return nil
	})
	return header
}

// await waits for promise, or for ctx to end (then it calls abort and
// still waits for the promise to settle, so that no callback outlives
// its js.Func).
func await(ctx context.Context, promise js.Value, abort func()) (js.Value, error) {
	type outcome struct {
		v   js.Value
		err error
	}
	ch := make(chan outcome, 1)
	var onOK, onErr js.Func
	onOK = js.FuncOf(func(_ js.Value, args []js.Value) any {
		onOK.Release()
		onErr.Release()
		ch <- outcome{v: args[0]}
		return nil
	})
	onErr = js.FuncOf(func(_ js.Value, args []js.Value) any {
		onOK.Release()
		onErr.Release()
		ch <- outcome{err: jsError(args[0])}
		return nil
	})
	promise.Call("then", onOK, onErr)
	select {
	case o := <-ch:
		return o.v, o.err
	case <-ctx.Done():
		abort()
		<-ch
		return js.Undefined(), ctx.Err()
	}
}

// jsError turns a rejection's reason into a Go error.
func jsError(v js.Value) error {
	if v.Type() != js.TypeObject {
		return errors.New(v.String())
	}
	e := &fetchError{msg: v.Call("toString").String()}
	if c := v.Get("cause"); c.Type() == js.TypeObject && c.Get("toString").Type() == js.TypeFunction {
		e.causeMsg = c.Call("toString").String()
		e.msg += ": " + e.causeMsg
		if m := c.Get("message"); m.Type() == js.TypeString {
			e.causeMsg = m.String()
		}
		// A system error's code (ECONNREFUSED, ENOTFOUND), not a
		// library's (ERR_SSL_WRONG_VERSION_NUMBER).
		if code := c.Get("code"); code.Type() == js.TypeString && isSystemCode(code.String()) {
			e.code = code.String()
		}
	} else if c.Type() == js.TypeString {
		e.msg += ": " + c.String()
	}
	return e
}

// fetchError is a rejected fetch: in Node its cause is the system's error
// (code ECONNREFUSED, ENOTFOUND, ...), which browsers hide.
type fetchError struct{ msg, code, causeMsg string }

func (e *fetchError) Error() string { return e.msg }

// SystemCode is the code of the failure's cause (Node: "ECONNREFUSED"); "" in browsers.
func (e *fetchError) SystemCode() string { return e.code }

// CauseMessage is the message of the failure's cause ("connect ECONNREFUSED 127.0.0.1:1").
func (e *fetchError) CauseMessage() string { return e.causeMsg }

// FetchMessage is what fetch said, its cause included ("TypeError: Failed
// to fetch"; in Node "TypeError: fetch failed: …").
func (e *fetchError) FetchMessage() string { return e.msg }

// fetchBody streams a response's body from its ReadableStream reader.
type fetchBody struct {
	reader js.Value // a ReadableStreamDefaultReader, or undefined
	whole  js.Value // the arrayBuffer promise when there is no reader
	abort  func()
	stop   func() bool

	pending []byte
	err     error

	mu       sync.Mutex
	canceled bool
	finished bool // read to its end
}

var errBodyClosed = errors.New("body closed")

func (b *fetchBody) cancel() {
	b.mu.Lock()
	already := b.canceled || b.finished
	b.canceled = true
	b.mu.Unlock()
	if !already {
		// Only a body not read to its end is aborted: a browser shows an
		// aborted request as failed, and a complete answer is not one.
		b.abort()
	}
}

func (b *fetchBody) Read(p []byte) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = 0, printf.Errorf("read: %v", r)
			b.err = err
		}
	}()
	if len(b.pending) == 0 && b.err == nil {
		b.fill()
	}
	if len(b.pending) > 0 {
		n = copy(p, b.pending)
		b.pending = b.pending[n:]
		return n, nil
	}
	return 0, b.err
}

// fill waits for the next chunk. An aborted fetch rejects the pending
// read, which ends the wait.
func (b *fetchBody) fill() {
	if !b.whole.IsUndefined() && b.reader.IsUndefined() {
		v, err := await(context.Background(), b.whole, func() {})
		b.whole = js.Undefined()
		if err != nil {
			b.err = err
			return
		}
		arr := js.Global().Get("Uint8Array").New(v)
		b.pending = make([]byte, arr.Get("byteLength").Int())
		js.CopyBytesToGo(b.pending, arr)
		b.err = io.EOF
		b.mu.Lock()
		b.finished = true
		b.mu.Unlock()
		return
	}
	if b.reader.IsUndefined() {
		b.err = io.EOF
		return
	}
	v, err := await(context.Background(), b.reader.Call("read"), func() {})
	b.mu.Lock()
	canceled := b.canceled
	b.mu.Unlock()
	switch {
	case canceled:
		b.err = errBodyClosed
	case err != nil:
		b.err = err
	case v.Get("done").Bool():
		b.err = io.EOF
		b.mu.Lock()
		b.finished = true
		b.mu.Unlock()
	default:
		chunk := v.Get("value")
		b.pending = make([]byte, chunk.Get("byteLength").Int())
		js.CopyBytesToGo(b.pending, chunk)
	}
}

// detach stops the request's context from aborting the body (detach in
// http_stream.go); Close still aborts a body not read to its end.
func (b *fetchBody) detach() { b.stop() }

func (b *fetchBody) Close() error {
	b.stop()
	b.cancel()
	if b.err == nil {
		b.err = errBodyClosed
	}
	return nil
}

// inBrowser reports a JS runtime with the browser's rules (CORS, hidden
// failure reasons): not Node, Deno or Bun, which have process.versions.node
// or their own global and no CORS.
func inBrowser() bool {
	g := js.Global()
	if p := g.Get("process"); p.Type() == js.TypeObject {
		if v := p.Get("versions"); v.Type() == js.TypeObject && v.Get("node").Type() == js.TypeString {
			return false
		}
	}
	return g.Get("Deno").Type() == js.TypeUndefined && g.Get("Bun").Type() == js.TypeUndefined
}

// serverUnreachable reports a request that failed because the server is out of
// reach: the system says so (Node: a refused connection, an unknown host,
// no route). A browser does not tell: there, no failure counts (a CORS
// refusal looks the same), and the heartbeat finds a server that is gone.
func serverUnreachable(err error) bool {
	var fe *fetchError
	if !errors.As(err, &fe) {
		return false
	}
	switch fe.code {
	case "ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN":
		return true
	}
	return false
}

// writeRefused: fetch does not tell a refused write from any other failure.
func writeRefused(error) bool { return false }

// unwritten: fetch does not tell whether a failed request was sent.
func unwritten(error) bool { return false }

// closedUnder: fetch does not close one request's connection for
// another's cancellation.
func closedUnder(error) (closed, written bool) { return false, false }

// isSystemCode reports an errno name: E and capital letters.
func isSystemCode(s string) bool {
	if len(s) < 2 || s[0] != 'E' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
