//go:build !js

package mcplive

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
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

// roundTrip sends r, following redirects that keep the method (307, 308)
// up to 10 times; one that would turn a POST into a GET (301, 302, 303)
// is an error.
func (n netRoundTripper) roundTrip(r *httpRequest) (*httpResponse, error) {
	u, err := url.Parse(r.URL)
	if err != nil {
		return nil, err
	}
	header := r.Header.Clone()
	for hops := 0; ; hops++ {
		req, err := http.NewRequestWithContext(r.ctx, r.Method, u.String(), nil)
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
		req.Header = header
		resp, err := n.rt.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		loc := resp.Header.Get("Location")
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			if loc != "" {
				break
			}
			fallthrough
		default:
			return &httpResponse{StatusCode: resp.StatusCode, Status: resp.Status, Header: resp.Header,
				ContentLength: resp.ContentLength, Body: resp.Body, Request: r}, nil
		}
		resp.Body.Close()
		next, err := u.Parse(loc)
		if err != nil {
			return nil, fmt.Errorf("the server redirected to a bad URL %q: %v", loc, err)
		}
		if hops >= 10 {
			return nil, errors.New("stopped after 10 redirects")
		}
		if resp.StatusCode < http.StatusTemporaryRedirect && r.Method != http.MethodGet {
			return nil, fmt.Errorf("%w: the server redirected a %s to %s with %d, which turns it into a GET; use the URL it redirects to",
				errRedirectMethod, r.Method, next.Redacted(), resp.StatusCode)
		}
		if next.Host != u.Host {
			// Credentials stay with the host they were meant for.
			header = header.Clone()
			header.Del("Authorization")
			header.Del("Cookie")
		}
		u = next
	}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// inBrowser: a native program has no browser rules (CORS).
func inBrowser() bool { return false }
