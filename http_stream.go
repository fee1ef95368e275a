package mcplive

import (
	"bytes"
	"context"
	"errors"
	"io"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/printf"
)

// Reading the answers of the Streamable HTTP transport: a JSON body, or an
// event stream (a request's, or the standalone GET stream) with its
// resumption after a drop.

// readJSON reads a request's JSON answer and queues it, as the sole
// answer to the request (the read loop fails the request at once when it
// is not the response to it). A body cut short fails this request alone,
// or is asked for again where that is safe (lost).
func (c *httpConn) readJSON(ctx context.Context, resp *httpResponse, p post) {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.limit+1))
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return // the caller stopped waiting, or Close
		}
		c.lost(p, printf.Errorf("%w: the connection broke while reading the answer to %s: %v", ErrClosed, p.m.Method, err), 0)
	case int64(len(b)) > c.limit:
		c.failID(p.m.ID, printf.Errorf("%w: the answer to %s is larger than the read limit of %d bytes", ErrProtocol, p.m.Method, c.limit))
	default:
		c.settle(p.m.ID) // answered before the caller can see it
		c.enqueue(jsonrpc.Inbound{Msg: b, ForID: p.m.ID, Sole: true})
	}
}

// post is a request as it was POSTed: what lost needs to send it again.
type post struct {
	ctx     context.Context // the Write's: it ends with the request
	msg     []byte
	m       jsonrpc.Outgoing
	resends int // how many times it was sent again
}

// maxResends bounds how many times a request whose answer was lost is
// sent again (lost).
const maxResends = 2

// resendable reports whether a request may be sent again when its answer
// was lost: one that changes nothing on the server (a list page, the
// discovery), so that a second run does no harm.
func resendable(method string) bool {
	switch method {
	case methods.Discover, methods.ListTools, methods.ListPrompts, methods.ListResources, methods.ListTemplates:
		return true
	}
	return false
}

// lost deals with a request whose answer was lost (its connection broke,
// its stream ended without it): a request that is safe to send again is
// sent again (up to maxResends times, after retryAfter when the server said
// when, else after a short delay); any other fails with why. The
// connection and every other request carry on.
func (c *httpConn) lost(p post, why error, retryAfter time.Duration) {
	if !resendable(p.m.Method) || p.resends >= maxResends || p.ctx.Err() != nil {
		c.failID(p.m.ID, why)
		return
	}
	c.log.Info("mcplive: the answer was lost; sending the request again", "method", p.m.Method, "why", why.Error())
	delay := backoffDelay(reopenDelay, maxReopenDelay, p.resends, false, 0)
	if retryAfter > 0 {
		delay = retryAfter
	}
	if !sleep(p.ctx, delay) {
		return
	}
	p.resends++
	if err := c.writePost(p); err != nil {
		c.failID(p.m.ID, err)
	}
}

// failID fails request id (when it is one) with err: its answer cannot
// come. The connection carries on.
func (c *httpConn) failID(id RawMessage, err error) {
	if id == nil {
		return
	}
	c.settle(id)
	c.enqueue(jsonrpc.Inbound{ForID: id, Fail: err})
}

// Stream resumption: an attempt waits the server's retry time, or
// reopenDelay (short: a session that the server ended is noticed at once;
// not zero: a server that closes every stream at once must not make a busy
// loop); from the second attempt in a row that brought nothing, each one
// doubles the wait, up to maxReopenDelay. A request's stream is given up
// after maxReopenFailures failed attempts in a row.
const (
	reopenDelay       = 100 * time.Millisecond
	maxReopenDelay    = 30 * time.Second
	maxReopenFailures = 5
)

// follow reads an event stream and queues its messages. For a request's
// stream (p set) it stops at the response to that request; the standalone
// stream (p nil, resp nil: opened here) runs until Close. In 2025-11-25 a
// stream that drops is resumed with a GET carrying Last-Event-ID (or, for
// the standalone stream without an event id, opened anew), after the
// server's retry time; 2026-07-28 has no resumption: a request's stream
// that ends without its answer is lost (sent again where that is safe, or
// failed).
func (c *httpConn) follow(ctx context.Context, resp *httpResponse, p *post, what string) {
	var id RawMessage
	if p != nil {
		id = p.m.ID
	} else {
		defer c.signalGET()
	}
	var (
		lastID   string
		retry    time.Duration
		hold     time.Duration // Retry-After of the last refusal
		failures int
		opened   = resp != nil // a stream was open before
	)
	for {
		if resp == nil {
			var err error
			resp, err = c.reopen(ctx, id, what, lastID, max(retry, hold), failures, opened)
			hold = retryAfterOf(err) // the server's Retry-After, for the next attempt
			if resp == nil {
				if err != nil {
					// A failure worth another attempt: try again, without
					// end for the standalone stream (it comes back with
					// the server).
					failures++
					if id == nil || failures < maxReopenFailures {
						continue
					}
					c.streamLost(id, what, err)
				}
				return
			}
			if id == nil {
				c.standaloneOpened(opened, lastID)
			}
			opened = true
		}
		sr, progress, done, err := c.readStream(resp, id, p != nil)
		if done {
			return
		}
		resp = nil
		if sr.lastID != "" {
			lastID = sr.lastID
		}
		if sr.retry > 0 {
			retry = sr.retry
		}
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, errEventTooLarge) {
			err := printf.Errorf("%w: %s: %s", ErrProtocol, what, describeSSEError(err, c.limit))
			if p != nil {
				c.failID(id, err)
				return
			}
			// The standalone stream: what the event held is lost; the
			// stream is opened anew (and everything re-listed).
			c.log.Warn("mcplive: the event stream (GET) sent an event over the read limit; opening it anew", "err", err.Error())
			lastID = ""
			failures++
			continue
		}
		if progress {
			failures = 0
		} else {
			failures = min(failures+1, 8) // an empty stream: poll more slowly
		}
		c.log.Info("mcplive: event stream ended", "stream", what, "why", describeSSEError(err, c.limit), "lastEventId", lastID)
		if p != nil && (lastID == "" || !c.legacy(p.m)) {
			c.lost(*p, c.unanswered(p.m, what, sr.broken(), err), 0)
			return
		}
	}
}

// readStream reads the event stream of resp and queues its messages (see
// readEvents); done, the response to request id came, and the rest of the
// body is drained. Otherwise the body is closed, and when the connection
// broke or a request's stream ended without its answer, the idle
// connections are dropped.
func (c *httpConn) readStream(resp *httpResponse, id RawMessage, request bool) (sr *sseReader, progress, done bool, err error) {
	sr = newSSEReader(resp.Body, c.limit)
	body := resp.Body
	progress, done, err = c.readEvents(sr, id, func() { detach(body) })
	if done {
		release(resp.Body)
		return sr, progress, true, err
	}
	resp.Body.Close()
	if (sr.broken() || request) && c.closeIdle != nil {
		// The connection broke under a stream, or a request's stream
		// ended without its answer: the server may be going away,
		// and its kept-alive connections with it. They are dropped,
		// so that the next request dials: a refused dial proves that
		// request unsent (jsonrpc.ErrNotSent), a write on a dead connection
		// proves nothing.
		c.closeIdle()
	}
	return sr, progress, false, err
}

// standaloneOpened notes that the standalone stream is open (again): when
// it had been open before or the server refused it (noPush) and nothing
// could be resumed, what the server said while it was down is lost and
// the session re-lists everything (Gap); a refused stream that opens
// proves the server alive (Liveness).
func (c *httpConn) standaloneOpened(opened bool, lastID string) {
	c.mu.Lock()
	wasDown := c.noPush
	c.noPush = false
	c.mu.Unlock()
	if (opened || wasDown) && lastID == "" {
		// Nothing could be resumed: what the server said while
		// the stream was down is lost. The session re-lists
		// everything.
		c.enqueue(jsonrpc.Inbound{Gap: true})
	}
	if wasDown {
		c.enqueue(jsonrpc.Inbound{Liveness: true})
	}
	c.signalGET()
}

// unanswered returns the error of request m (named what) whose stream
// ended, with err, without its answer and cannot be resumed: the
// connection broke, or the stream ended with no event id to resume it
// from, or it is a 2026-07-28 stream (never resumed).
func (c *httpConn) unanswered(m jsonrpc.Outgoing, what string, broken bool, err error) error {
	if broken {
		return printf.Errorf("%w: the connection broke while reading the answer to %s: %v", ErrClosed, what, err)
	}
	why := "and gave no event id to resume it from"
	if !c.legacy(m) {
		why = "(2026-07-28 streams are not resumed)"
	}
	return printf.Errorf("%w: the event stream of %s ended without its answer %s (%s)", ErrProtocol, what, why, describeSSEError(err, c.limit))
}

// readEvents queues the messages of one stream. It reports whether any
// event came, and whether the response to request id came (the stream is
// then done).
func (c *httpConn) readEvents(sr *sseReader, id RawMessage, answered func()) (progress, done bool, err error) {
	for {
		ev, err := sr.next()
		if err != nil {
			return progress, false, err
		}
		progress = true
		if len(ev.data) == 0 || (ev.name != "" && ev.name != "message") {
			continue // a priming event (an id only), or not a JSON-RPC message
		}
		if id != nil && isResponseTo(ev.data, id) {
			answered()   // the caller, done, must not abort the stream's end
			c.settle(id) // answered before the caller can see it
			c.enqueue(jsonrpc.Inbound{Msg: ev.data, ForID: id})
			return true, true, nil
		}
		c.enqueue(jsonrpc.Inbound{Msg: ev.data, ForID: id})
	}
}

// isResponseTo reports whether msg is the response to request id. It
// reads msg's members only until that is settled: a response's result,
// which may be a 26 KB list page, is then read once, by the read loop
// (which also rejects what is not valid JSON-RPC; a message with both a
// method and a result may pass here and fails there).
func isResponseTo(msg []byte, id RawMessage) bool {
	want := bytes.TrimSpace(id)
	idOK, answered, is := false, false, false
	jsontext.WalkMembersUntil(msg, func(key []byte, i int) bool {
		// A null method or error counts as none, and so does an empty
		// method (jsonrpc.Decode's rule); a null result is a result.
		isNull := msg[i] == 'n'
		emptyString := i+1 < len(msg) && msg[i] == '"' && msg[i+1] == '"'
		switch {
		case jsontext.IsKey(key, "method") && !isNull && !emptyString:
			return true // a request or a notification
		case jsontext.IsKey(key, "result") || (jsontext.IsKey(key, "error") && !isNull):
			is = idOK
			answered = true
			return is
		}
		return false
	}, func(key, val []byte) bool {
		if jsontext.IsKey(key, "id") {
			idOK = bytes.Equal(val, want)
			is = idOK && answered
		}
		return is
	})
	return is
}

// reopen waits and then sends the GET that (re)opens a stream. It returns
// the open stream; or nil and an error worth another attempt; or nil, nil
// when the stream is over (the cause is already dealt with).
func (c *httpConn) reopen(ctx context.Context, id RawMessage, what, lastID string, retry time.Duration, failures int, opened bool) (*httpResponse, error) {
	if opened || failures > 0 {
		base := reopenDelay
		if retry > 0 {
			base = retry // the stream's own retry: field, or a Retry-After
		}
		if !sleep(ctx, backoffDelay(base, maxReopenDelay, failures-1, false, min(retry, maxRetryAfter))) {
			return nil, nil
		}
	}
	resp, err := c.send(ctx, methodGet, nil, jsonrpc.Outgoing{}, lastID)
	if err != nil {
		if ctx.Err() != nil || c.failure() != nil {
			return nil, nil
		}
		if id != nil {
			return nil, err
		}
		if serverUnreachable(err) {
			// Not the stream's own failure: the server is out of reach
			// (a refused connection, an unknown host). The connection
			// ends, as a dropped WebSocket does, and the client
			// reconnects.
			c.fail(printf.Errorf("%s: %w: %w", what, ErrClosed, err))
			return nil, nil
		}
		// The standalone stream is optional: its failure (a GET cut
		// without an answer, refused by CORS, redirected in a loop) is
		// its alone, as a 405 is. The lists are listed but do not
		// follow changes until it opens; it is tried again, backing off.
		c.pushLost(err)
		return nil, err
	}
	ct := mediaType(resp.Header.Get("Content-Type"))
	switch code := resp.StatusCode; {
	case code >= 200 && code <= 299 && ct == "text/event-stream":
		return resp, nil
	case code >= 200 && code <= 299:
		resp.Body.Close()
		c.streamLost(id, what, printf.Errorf("%w: the server answered the GET with Content-Type %q, not text/event-stream", ErrProtocol, resp.Header.Get("Content-Type")))
		return nil, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if c.sessionGone(resp) != nil {
		return nil, nil
	}
	if id == nil && !(code5xx(resp.StatusCode) || resp.StatusCode == statusMethodNotAllowed || isAuthChallenge(resp)) {
		// Any other refusal of the standalone stream: as a failure, the
		// stream is tried again, backing off.
		err := &HTTPError{Method: methodGet, URL: c.url, StatusCode: resp.StatusCode, Status: resp.Status, Body: bodySnippet(body)}
		c.pushLost(err)
		return nil, err
	}
	switch code := resp.StatusCode; {
	case code == statusMethodNotAllowed && id == nil && !opened:
		c.log.Info("mcplive: the server offers no standalone event stream (GET answered 405); list changes arrive only with answers to requests", "url", shownURL(c.url))
		c.mu.Lock()
		c.noPush = true
		c.mu.Unlock()
		return nil, nil
	case isAuthChallenge(resp):
		c.fail(printf.Errorf("%s: %w", what, c.authError(resp, methodGet)))
		return nil, nil
	case code5xx(code):
		if id == nil {
			c.pushLost(nil)
		}
		return nil, &HTTPError{Method: methodGet, URL: c.url, StatusCode: code, Status: resp.Status, Body: bodySnippet(body), RetryAfter: retryAfter(resp)}
	default:
		c.streamLost(id, what, &HTTPError{Method: methodGet, URL: c.url, StatusCode: code, Status: resp.Status, Body: bodySnippet(body)})
		return nil, nil
	}
}

// streamLost gives a stream up: a request's stream fails its request; the
// standalone stream ends with a warning (the session carries on, but
// list changes arrive only with answers to requests).
func (c *httpConn) streamLost(id RawMessage, what string, err error) {
	if id != nil {
		c.failID(id, printf.Errorf("%w: the event stream of %s could not be resumed: %w", ErrClosed, what, err))
		return
	}
	c.log.Warn("mcplive: the standalone event stream is gone; list changes arrive only with answers to requests", "url", shownURL(c.url), "err", err)
}

// code5xx reports a status worth another attempt: a server error, 429 or
// 408.
func code5xx(code int) bool {
	return code >= 500 || code == statusTooManyRequests || code == statusRequestTimeout
}

// pushLost notes that the standalone stream is not open (it failed with
// err, when not nil): the lists do not follow changes until it is (follow
// clears it).
func (c *httpConn) pushLost(err error) {
	c.mu.Lock()
	first := !c.noPush
	c.noPush = true
	c.mu.Unlock()
	if first {
		if err != nil {
			c.log.Warn("mcplive: the event stream (GET) failed; the lists do not follow changes until it opens again (retrying)", "url", shownURL(c.url), "err", err.Error())
		}
		c.enqueue(jsonrpc.Inbound{Liveness: true})
	}
	c.signalGET()
}

// detach frees body from the context of its request (fetchBody in
// wasm): a caller that has its answer ends that context, which must not
// abort the body's end (release reads it).
func detach(body io.ReadCloser) {
	if d, ok := body.(interface{ detach() }); ok {
		d.detach()
	}
}

// A request's stream after its answer: read on for up to drainWait and
// drainLimit bytes (release).
const (
	drainWait  = time.Second
	drainLimit = 64 << 10
)

// release ends a request's stream once its answer came: it reads on to the
// stream's end (a server closes it after the response), so that the
// request completes instead of being aborted (a browser shows an aborted
// request as failed); a stream that goes on past drainWait or drainLimit
// is closed.
func release(body io.ReadCloser) {
	detach(body)
	t := time.AfterFunc(drainWait, func() { body.Close() })
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainLimit))
	t.Stop()
	body.Close()
}

// errEventTooLarge reports an event or line over the reader's limit.
var errEventTooLarge = errors.New("event larger than the read limit")

// The read buffer starts small: a stream is made for every request over
// Streamable HTTP, and most carry one short answer. A 32 KB buffer for each
// was a large allocation, zeroed, on every request. It doubles while reads
// fill it, up to maxSSEBuf.
const minSSEBuf, maxSSEBuf = 4 << 10, 32 << 10
