package mcplive

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Reading the answers of the Streamable HTTP transport: a JSON body, or an
// event stream (a request's, or the standalone GET stream) with its
// resumption after a drop.

// readJSON reads a request's JSON answer and queues it.
func (c *httpConn) readJSON(ctx context.Context, resp *httpResponse, m outgoing) {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.limit+1))
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return // the caller stopped waiting, or Close
		}
		// The connection broke (the server went away): the client's
		// connection ends, as a dropped WebSocket's.
		c.fail(fmt.Errorf("%w: the connection broke while reading the answer to %s: %v", ErrClosed, m.method, err))
	case int64(len(b)) > c.limit:
		c.fail(fmt.Errorf("%w: the answer to %s is larger than the read limit of %d bytes", ErrProtocol, m.method, c.limit))
	default:
		c.settle(m.id) // answered before the caller can see it
		c.push(b)
	}
}

// failRequest answers request id in the server's stead with an error: its
// answer cannot come any more (the stream ended without it, and cannot be
// resumed). The connection carries on.
func (c *httpConn) failRequest(id json.RawMessage, why string) {
	b, err := marshalJSON(&wireMessage{JSONRPC: "2.0", ID: id, Error: &RPCError{Code: CodeInternalError, Message: "mcplive: " + why}})
	if err == nil {
		c.settle(id)
		c.push(b)
	}
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
// stream (id set) it stops at the response to that request; the
// standalone stream (id nil, resp nil: opened here) runs until Close.
// When the stream drops it is resumed with a GET carrying Last-Event-ID
// (or, for the standalone stream without an event id, opened anew), after
// the server's retry time.
func (c *httpConn) follow(ctx context.Context, resp *httpResponse, id json.RawMessage, what string) {
	if id == nil {
		defer c.signalGET()
	}
	var (
		lastID   string
		retry    time.Duration
		failures int
		opened   = resp != nil // a stream was open before
	)
	for {
		if resp == nil {
			var err error
			resp, err = c.reopen(ctx, id, what, lastID, retry, failures, opened)
			if resp == nil {
				if err != nil {
					// A server error: try again, without end for the
					// standalone stream (it comes back with the server).
					failures++
					if id == nil || failures < maxReopenFailures {
						continue
					}
					c.streamLost(id, what, err)
				}
				return
			}
			if id == nil && opened && lastID == "" {
				// Nothing could be resumed: what the server said while the
				// stream was down is lost. The session re-lists everything.
				c.enqueue(inbound{gap: true})
			}
			if id == nil {
				c.signalGET()
			}
			opened = true
		}
		sr := newSSEReader(resp.Body, c.limit)
		progress, done, err := c.readEvents(sr, id)
		resp.Body.Close()
		resp = nil
		if sr.lastID != "" {
			lastID = sr.lastID
		}
		if sr.retry > 0 {
			retry = sr.retry
		}
		if done || ctx.Err() != nil {
			return
		}
		if errors.Is(err, errEventTooLarge) {
			c.fail(fmt.Errorf("%w: %s: %s", ErrProtocol, what, describeSSEError(err, c.limit)))
			return
		}
		if progress {
			failures = 0
		} else {
			failures = min(failures+1, 8) // an empty stream: poll more slowly
		}
		c.log.Info("mcplive: event stream ended", "stream", what, "why", describeSSEError(err, c.limit), "lastEventId", lastID)
		if id != nil && lastID == "" {
			if sr.broken() {
				// The connection broke (the server went away): the
				// client's connection ends, as a dropped WebSocket's.
				c.fail(fmt.Errorf("%w: the connection broke while reading the answer to %s: %v", ErrClosed, what, err))
				return
			}
			c.failRequest(id, fmt.Sprintf("the server ended the event stream of %s without answering, and gave no event id to resume it from (%s)", what, describeSSEError(err, c.limit)))
			return
		}
	}
}

// readEvents queues the messages of one stream. It reports whether any
// event came, and whether the response to request id came (the stream is
// then done).
func (c *httpConn) readEvents(sr *sseReader, id json.RawMessage) (progress, done bool, err error) {
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
			c.settle(id) // answered before the caller can see it
			c.push(ev.data)
			return true, true, nil
		}
		c.push(ev.data)
	}
}

// isResponseTo reports whether msg is the response to request id. It
// reads msg's members only until that is settled: a response's result,
// which may be a 26 KB list page, is then read once, by the read loop
// (which also rejects what is not valid JSON-RPC; a message with both a
// method and a result may pass here and fails there).
func isResponseTo(msg []byte, id json.RawMessage) bool {
	want := bytes.TrimSpace(id)
	idOK, answered, is := false, false, false
	walkMembersUntil(msg, func(key []byte, i int) bool {
		// A null method or error counts as none, and so does an empty
		// method (decodeMessage's rule); a null result is a result.
		isNull := msg[i] == 'n'
		emptyString := i+1 < len(msg) && msg[i] == '"' && msg[i+1] == '"'
		switch {
		case isKey(key, "method") && !isNull && !emptyString:
			return true // a request or a notification
		case isKey(key, "result") || (isKey(key, "error") && !isNull):
			is = idOK
			answered = true
			return is
		}
		return false
	}, func(key, val []byte) bool {
		if isKey(key, "id") {
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
func (c *httpConn) reopen(ctx context.Context, id json.RawMessage, what, lastID string, retry time.Duration, failures int, opened bool) (*httpResponse, error) {
	if opened || failures > 0 {
		delay := reopenDelay
		if retry > 0 {
			delay = retry
		}
		for i := 1; i < failures && delay < maxReopenDelay; i++ {
			delay *= 2
		}
		delay = min(delay, maxReopenDelay)
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, nil
		}
	}
	resp, err := c.send(ctx, methodGet, nil, outgoing{}, lastID)
	if err != nil {
		if ctx.Err() == nil {
			// Out of reach (send ended the connection), or no token.
			c.fail(fmt.Errorf("%s: %w", what, err))
		}
		return nil, nil
	}
	ct := mediaType(resp.Header.Get("Content-Type"))
	switch code := resp.StatusCode; {
	case code >= 200 && code <= 299 && ct == "text/event-stream":
		return resp, nil
	case code >= 200 && code <= 299:
		resp.Body.Close()
		c.streamLost(id, what, fmt.Errorf("%w: the server answered the GET with Content-Type %q, not text/event-stream", ErrProtocol, resp.Header.Get("Content-Type")))
		return nil, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if c.sessionGone(resp) != nil {
		return nil, nil
	}
	switch code := resp.StatusCode; {
	case code == statusMethodNotAllowed && id == nil && !opened:
		c.log.Info("mcplive: the server offers no standalone event stream (GET answered 405); list changes arrive only with answers to requests", "url", c.url)
		c.mu.Lock()
		c.noPush = true
		c.mu.Unlock()
		return nil, nil
	case isAuthChallenge(resp):
		c.fail(fmt.Errorf("%s: %w", what, c.authError(resp, methodGet)))
		return nil, nil
	case code >= 500 || code == statusTooManyRequests || code == statusRequestTimeout:
		return nil, &HTTPError{Method: methodGet, URL: c.url, StatusCode: code, Status: resp.Status, Body: bodySnippet(body)}
	default:
		c.streamLost(id, what, &HTTPError{Method: methodGet, URL: c.url, StatusCode: code, Status: resp.Status, Body: bodySnippet(body)})
		return nil, nil
	}
}

// streamLost gives a stream up: a request's stream fails its request; the
// standalone stream ends with a warning (the session carries on, but
// list changes arrive only with answers to requests).
func (c *httpConn) streamLost(id json.RawMessage, what string, err error) {
	if id != nil {
		c.failRequest(id, fmt.Sprintf("the event stream of %s could not be resumed: %v", what, err))
		return
	}
	c.log.Warn("mcplive: the standalone event stream is gone; list changes arrive only with answers to requests", "url", c.url, "err", err)
}
