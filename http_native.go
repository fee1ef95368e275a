//go:build !js

package mcplive

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
)

// defaultRoundTripper returns a transport of a connection's own, with
// http.DefaultTransport's settings, so that closing the connection can
// release its idle connections without touching anyone else's.
func defaultRoundTripper() (roundTripper, func()) {
	t := &http.Transport{}
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	}
	return netRoundTripper{t}, t.CloseIdleConnections
}

// netRoundTripper sends requests through a net/http RoundTripper,
// following redirects as http.Client would.
type netRoundTripper struct{ rt http.RoundTripper }

// roundTrip sends r, following redirects as followRedirects says.
func (n netRoundTripper) roundTrip(r *httpRequest) (*httpResponse, error) {
	return followRedirects(r, func(u string) (*httpResponse, error) {
		req, err := http.NewRequestWithContext(r.ctx, r.Method, u, nil)
		if err != nil {
			return nil, err
		}
		if r.Body != nil {
			req.Body = http.NoBody
			if len(r.Body) > 0 {
				req.Body = readCloser{bytes.NewReader(r.Body)}
			}
			req.ContentLength = int64(len(r.Body))
		}
		req.Header = r.Header.Clone()
		var wrote atomic.Bool
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			WroteRequest: func(i httptrace.WroteRequestInfo) { wrote.Store(i.Err == nil) },
		}))
		resp, err := n.rt.RoundTrip(req)
		if err != nil {
			if r.ctx.Err() == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
				return nil, &closedUnderError{err: err, written: wrote.Load()}
			}
			if !wrote.Load() || closedIdle(err) {
				return nil, &unwrittenError{err}
			}
			return nil, err
		}
		return &httpResponse{StatusCode: resp.StatusCode, Status: resp.Status, Header: resp.Header,
			ContentLength: resp.ContentLength, Body: resp.Body}, nil
	}, func(base, ref string) (string, error) {
		b, err := url.Parse(base)
		if err != nil {
			return "", err
		}
		next, err := b.Parse(ref)
		if err != nil {
			return "", err
		}
		return next.String(), nil
	})
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// serverUnreachable reports a request that failed because the server is out of
// reach (a refused connection, an unknown host, no route), not because
// of the answer (cut, refused) or a proxy in between.
func serverUnreachable(err error) bool {
	var op *net.OpError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &op) && op.Op == "dial"
}

// writeRefused reports a request whose writing the peer refused (a broken
// pipe: it had closed the connection): the server did not get it whole.
func writeRefused(err error) bool { return errors.Is(err, syscall.EPIPE) }

// unwrittenError is the error of a request that failed before it was
// written whole (no connection, a dial cut off, a write that failed): the
// server cannot have run it. Its text is err's.
type unwrittenError struct{ err error }

func (e *unwrittenError) Error() string { return e.err.Error() }
func (e *unwrittenError) Unwrap() error { return e.err }

// closedUnderError is the error of a request written on a kept-alive
// connection that net/http then closed because of another request's
// cancellation: net/http puts a connection back among the idle ones as
// soon as an answer without a body has been read, before the request it
// answered has seen it; when that request's context ends in between, its
// cancellation closes the connection, which by then carries the next
// request, and that request fails with the other one's context error
// (Go 1.26). The server is fine, and may have got the request if it was
// written.
type closedUnderError struct {
	err     error
	written bool
}

func (e *closedUnderError) Error() string {
	return "the HTTP connection was closed under the request by another request's cancellation (" + e.err.Error() + ")"
}

// closedUnder reports a request whose connection net/http closed because
// of another request's cancellation (closedUnderError), and whether it had
// been written.
func closedUnder(err error) (closed, written bool) {
	var u *closedUnderError
	if errors.As(err, &u) {
		return true, u.written
	}
	return false, false
}

// closedIdle reports net/http's errServerClosedIdle (unexported): the
// server had closed the kept-alive connection the request was written on
// (its FIN crossed the request), so the server never read the request.
func closedIdle(err error) bool {
	return strings.Contains(err.Error(), "http: server closed idle connection")
}

// unwritten reports a request that was never written whole (see
// unwrittenError).
func unwritten(err error) bool {
	var u *unwrittenError
	return errors.As(err, &u)
}

// inBrowser: a native program has no browser rules (CORS).
func inBrowser() bool { return false }
