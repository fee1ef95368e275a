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
			opened = true
		}
		sr := newSSEReader(resp.Body, c.limit)
		body := resp.Body
		progress, done, err := c.readEvents(sr, id, func() { detach(body) })
		if done {
			release(resp.Body)
			return
		}
		resp.Body.Close()
		resp = nil
		if (sr.broken() || p != nil) && c.closeIdle != nil {
			// The connection broke under a stream, or a request's stream
			// ended without its answer: the server may be going away,
			// and its kept-alive connections with it. They are dropped,
			// so that the next request dials: a refused dial proves that
			// request unsent (jsonrpc.ErrNotSent), a write on a dead connection
			// proves nothing.
			c.closeIdle()
		}
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
			if sr.broken() {
				c.lost(*p, printf.Errorf("%w: the connection broke while reading the answer to %s: %v", ErrClosed, what, err), 0)
				return
			}
			why := "and gave no event id to resume it from"
			if !c.legacy(p.m) {
				why = "(2026-07-28 streams are not resumed)"
			}
			c.lost(*p, printf.Errorf("%w: the event stream of %s ended without its answer %s (%s)", ErrProtocol, what, why, describeSSEError(err, c.limit)), 0)
			return
		}
	}
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

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	// id is the stream's last event ID once this event was dispatched (the
	// value to resume from), which an event may leave unchanged.
	id string
	// name is the event type; "" means "message".
	name string
	// data is the event's data, nil for an event without data (such as
	// the priming event a Streamable HTTP server sends with an id only).
	data []byte
}

// errEventTooLarge reports an event or line over the reader's limit.
var errEventTooLarge = errors.New("event larger than the read limit")

// sseReader parses a text/event-stream as the WHATWG HTML standard's
// "event stream interpretation" says (lines end in CRLF, LF or CR; a
// leading BOM is skipped; comments start with a colon; an event ends at an
// empty line), with one addition browsers lack: a limit on the size of one
// event, so that a server cannot make the client buffer without end (a
// line that never ends counts too).
type sseReader struct {
	r     io.Reader
	limit int // bytes of one event's data, and of one line

	buf        []byte // grows from minSSEBuf to maxSSEBuf while reads fill it
	start, end int
	full       bool  // the last read filled buf: the next one gets a larger buf
	rerr       error // the error that ended r, once it did
	skipLF     bool  // the last line ended in CR: a following LF is part of it
	started    bool  // the first line has been read (the BOM check is done)
	line       []byte

	// Parser state.
	idBuf  string        // the last event ID buffer
	lastID string        // the last event ID, as of the last dispatch
	retry  time.Duration // the reconnection time a retry field set; 0 if none
	name   string
	data   []byte
	hasAny bool // the current event has had a field
}

// The read buffer starts small: a stream is made for every request over
// Streamable HTTP, and most carry one short answer. A 32 KB buffer for each
// was a large allocation, zeroed, on every request. It doubles while reads
// fill it, up to maxSSEBuf.
const minSSEBuf, maxSSEBuf = 4 << 10, 32 << 10

func newSSEReader(r io.Reader, limit int64) *sseReader {
	l := int(min(limit, int64(int(^uint(0)>>1)-64)))
	return &sseReader{r: r, limit: l, buf: make([]byte, minSSEBuf)}
}

// next returns the next event. It returns io.EOF at a clean end of the
// stream, io.ErrUnexpectedEOF when it ended inside an event (an event is
// complete only with the empty line after it), errEventTooLarge past the
// limit, or the error of the underlying reader.
func (s *sseReader) next() (sseEvent, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && (s.hasAny || len(s.line) > 0) {
				err = io.ErrUnexpectedEOF
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if !s.hasAny {
				continue
			}
			ev := sseEvent{name: s.name}
			s.lastID = s.idBuf
			ev.id = s.lastID
			if len(s.data) > 0 {
				// The data buffer ends in the LF of its last line.
				ev.data = bytes.Clone(s.data[:len(s.data)-1])
			}
			s.name, s.data, s.hasAny = "", s.data[:0], false
			return ev, nil
		}
		if line[0] == ':' {
			continue // a comment, such as a keep-alive
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "event":
			s.name = string(value)
			s.hasAny = true
		case "data":
			if len(s.data)+len(value) > s.limit {
				return sseEvent{}, errEventTooLarge
			}
			s.data = append(s.data, value...)
			s.data = append(s.data, '\n')
			s.hasAny = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.idBuf = string(value)
			}
			s.hasAny = true
		case "retry":
			if ms, ok := parseDigits(value); ok {
				s.retry = time.Duration(ms) * time.Millisecond
			}
		}
		// Other fields are ignored, as the standard says.
	}
}

// broken reports a stream that ended with an error of its reader (a
// connection that broke), not at a clean end.
func (s *sseReader) broken() bool {
	return s.rerr != nil && s.rerr != io.EOF
}

// parseDigits parses a retry field: ASCII digits only, capped at a day.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < 86_400_000 {
			n = n*10 + int64(c-'0')
		}
	}
	return min(n, 86_400_000), true
}

// readLine returns the next line without its end. The line is valid until
// the next call.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		if s.start == s.end {
			if s.rerr != nil {
				return nil, s.rerr
			}
			if s.full && len(s.buf) < maxSSEBuf {
				s.buf = make([]byte, 2*len(s.buf))
			}
			n, err := s.r.Read(s.buf)
			s.start, s.end, s.full = 0, n, n == len(s.buf)
			if err != nil {
				s.rerr = err
			}
			if n == 0 && err == nil {
				continue
			}
			continue
		}
		chunk := s.buf[s.start:s.end]
		if s.skipLF {
			s.skipLF = false
			if chunk[0] == '\n' {
				s.start++
				continue
			}
		}
		i := bytes.IndexAny(chunk, "\r\n")
		if i < 0 {
			s.line = append(s.line, chunk...)
			s.start = s.end
			if len(s.line) > s.limit+64 { // room for the field name
				return nil, errEventTooLarge
			}
			continue
		}
		s.line = append(s.line, chunk[:i]...)
		s.skipLF = chunk[i] == '\r'
		s.start += i + 1
		if len(s.line) > s.limit+64 {
			return nil, errEventTooLarge
		}
		if !s.started {
			s.started = true
			s.line = bytes.TrimPrefix(s.line, []byte("\xEF\xBB\xBF"))
		}
		return s.line, nil
	}
}

// describeSSEError turns an error of next into words for an error message.
func describeSSEError(err error, limit int64) string {
	switch {
	case errors.Is(err, errEventTooLarge):
		return printf.Sprintf("an event (or a line of one) is larger than the read limit of %d bytes", limit)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the stream ended inside an event (an event ends with an empty line)"
	}
	return err.Error()
}
