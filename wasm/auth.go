//go:build js && wasm

package main

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/jsfetch"
)

// configureHTTP gives a Streamable HTTP transport the connect options that
// only HTTP has: extra request headers, the app's fetch (hooks.fetch), and
// the token hook (hooks.token),
// which JS sets when the app passed a token callback. JS refuses both for
// WebSocket URLs (a browser cannot set a WebSocket's headers).
func configureHTTP(t mcplive.Transport, headers mcplive.Header, h *hooks) {
	ht, ok := t.(*mcplive.HTTPTransport)
	if !ok {
		return
	}
	ht.Header = headers
	if h.fetchFn.Type() == safejs.TypeFunction {
		// The app's fetch (the fetch option) sends every request of this
		// server; the URL stays the server's.
		id, release := jsfetch.Register(safejs.Unsafe(h.fetchFn))
		h.releaseFetch = release
		ht.Header = headers.Clone()
		if ht.Header == nil {
			ht.Header = mcplive.Header{}
		}
		ht.Header.Set(jsfetch.Header, id)
	}
	if h.tokenFn.Type() == safejs.TypeFunction {
		s := &tokenSource{fn: h.tokenFn}
		ht.Credentials, ht.OnUnauthorized = s.credentials, s.refused
	}
}

// tokenSource asks the app's token callback (through JS, which awaits it
// and hands back a string) for the bearer token of each request. After a
// refusal (401) it asks again with the AuthError, so the app can get a new
// token (its OAuth flow); the transport then sends the request once more
// with that token.
type tokenSource struct {
	fn safejs.Value

	mu       sync.Mutex
	fresh    string // the token the app gave after a refusal, for the retry
	hasFresh bool
}

// errNoToken is what the retry after a refusal fails with when the app
// has no new token (its callback gave none).
var errNoToken = errors.New("the token callback gave no new token")

// credentials gives the headers of one request: "Authorization: Bearer
// <token>", or, for a DPoP-bound token (JS answered "d:<token>\n<proof>"),
// "Authorization: DPoP <token>" and the proof for this method and URL.
func (s *tokenSource) credentials(ctx context.Context, method, url string) (mcplive.Header, error) {
	s.mu.Lock()
	if s.hasFresh {
		t := s.fresh
		s.fresh, s.hasFresh = "", false
		s.mu.Unlock()
		return bearer(t), nil
	}
	s.mu.Unlock()
	r, err := s.ask(ctx, nil, method, url)
	if err != nil {
		return nil, err
	}
	if d, ok := strings.CutPrefix(r, "d:"); ok {
		tok, proof, _ := strings.Cut(d, "\n")
		return mcplive.Header{"Authorization": {"DPoP " + tok}, "Dpop": {proof}}, nil
	}
	return bearer(strings.TrimPrefix(r, "t:")), nil
}

func bearer(t string) mcplive.Header {
	if t == "" {
		return nil
	}
	return mcplive.Header{"Authorization": {"Bearer " + t}}
}

func (s *tokenSource) refused(ctx context.Context, e *mcplive.AuthError) error {
	r, err := s.ask(ctx, jsError(e), "", "")
	if err != nil {
		return err
	}
	if r == "t:" || r == "d:" || r == "" {
		return errNoToken
	}
	// A DPoP proof is for one request: the retry asks for its own.
	if t, ok := strings.CutPrefix(r, "t:"); ok {
		s.mu.Lock()
		s.fresh, s.hasFresh = t, true
		s.mu.Unlock()
	}
	return nil
}

// ask calls the token hook as token(done, refusal?, method, url) and waits
// for JS to call done("t:<token>"), done("d:<token>\n<DPoP proof>") or
// done("e:<message>") once the app's callback
// settled, without blocking the JS event loop: this goroutine sleeps on a
// channel that done fills. A context that ends first ends the wait; the
// late answer is then dropped. (One callback and a string, not the
// Promise's then with two: every Go function costs the wasm kilobytes.)
func (s *tokenSource) ask(ctx context.Context, refusal any, method, url string) (string, error) {
	_, ch, err := invokeWithDone(s.fn, refusal, method, url)
	if err != nil {
		return "", err
	}
	select {
	case r := <-ch:
		if strings.HasPrefix(r, "t:") || strings.HasPrefix(r, "d:") {
			return r, nil
		}
		return "", errors.New("the token callback failed: " + strings.TrimPrefix(r, "e:"))
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
