package mcplive

import (
	"context"
	"errors"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/printf"
)

func parseOutgoing(msg []byte) (jsonrpc.Outgoing, error) {
	// By hand, as encoding/json would read them (jsonwire.go).
	var env struct {
		ID     RawMessage
		Method string
		Params RawMessage
	}
	if err := jsontext.Decode(msg, "message", []jsontext.Field{{Name: "id", Dst: &env.ID}, {Name: "method", Dst: &env.Method}, {Name: "params", Dst: &env.Params}}); err != nil {
		return jsonrpc.Outgoing{}, printf.Errorf("mcplive: write: not one JSON-RPC message: %v", err)
	}
	m := jsonrpc.Outgoing{Method: env.Method}
	if env.Method != "" && len(env.ID) > 0 && string(env.ID) != "null" {
		m.ID = env.ID
	}
	if len(env.Params) > 0 && env.Params[0] == '{' {
		var name, uri string
		// Best effort: the headers are extras.
		_ = jsontext.Decode(env.Params, "params", []jsontext.Field{{Name: "name", Dst: &name}, {Name: "uri", Dst: &uri}, {Name: "_meta", Dst: func(v []byte) error {
			return jsontext.DecodeFields(v, "_meta", []jsontext.Field{{Name: metaProtocolVersion, Dst: &m.Version}})
		}}})
		m.Name = name
		if m.Name == "" {
			m.Name = uri
		}
	}
	return m, nil
}

// Write POSTs msg and returns once the server's answer has begun: a
// request's response arrives later through Read, so a long answer holds no
// caller. An HTTP error fails this message only, except a 404 on a known
// session (the server ended it: the connection ends with an error wrapping
// ErrClosed, and the client starts a new session) and a network failure
// (the connection ends too). When the connection has ended, a request's
// Write returns nil: Read reports the end, and the request fails with the
// connection. A JSON-RPC error the server sends with an HTTP error status
// is the request's response.
func (c *httpConn) Write(ctx context.Context, msg []byte) error {
	m, err := parseOutgoing(msg)
	if err != nil {
		return err
	}
	return c.WriteDescribed(ctx, msg, m)
}

// WriteDescribed is Write of a message that the JSON-RPC layer describes
// (jsonrpc.DescribedWriter): what parseOutgoing would read of it is m.
func (c *httpConn) WriteDescribed(ctx context.Context, msg []byte, m jsonrpc.Outgoing) error {
	return c.writePost(post{ctx: ctx, msg: msg, m: m})
}

// writePost sends p (anew, when p.resends > 0: lost).
func (c *httpConn) writePost(p post) (err error) {
	ctx, msg, m := p.ctx, p.msg, p.m
	defer func() {
		if err != nil && m.IsRequest() && c.failure() != nil && !errors.Is(err, jsonrpc.ErrNotSent) {
			// The connection has ended (the server is out of reach, or
			// ended the session): Read reports it, and the request
			// fails with the connection, in the same order as every
			// other request in flight (the session ends first). An
			// error here would reach the caller before the session's
			// end, which would read as a failed request.
			err = nil
		}
	}()
	if err := c.failure(); err != nil {
		if m.IsRequest() {
			// The connection ended before this request was written (a
			// failure of another request ended it: the listen stream's
			// re-open, a page of a walk): it certainly never reached the
			// server, and its caller may send it on the next connection.
			return jsonrpc.NotSent(err)
		}
		return err
	}
	if m.Method == methods.NotifyCancelled && !c.legacy(m) {
		// 2026-07-28: closing the request's stream is the cancellation
		// (the caller's context ended, which closed it); the revision
		// defines no notification POSTs.
		return nil
	}
	reqCtx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.ctx, cancel)
	handedOff := false
	if m.IsRequest() {
		c.track(m.ID)
	}
	defer func() {
		if !handedOff {
			stop()
			cancel()
			c.settle(m.ID)
		}
	}()

	resp, err := c.send(reqCtx, methodPost, msg, m, "")
	if closed, written := closedUnder(err); closed && ctx.Err() == nil {
		if m.IsRequest() {
			// Never written, it is sent again; written, the server may
			// have got it: one that is safe to send again is, any other
			// fails alone (lost).
			why := err
			handedOff = c.goTracked(func() {
				defer stop()
				defer cancel()
				if !written && p.resends < maxResends {
					p.resends++
					if err := c.writePost(p); err != nil {
						c.failID(p.m.ID, err)
					}
					return
				}
				c.lost(p, why, 0)
			})
			if handedOff {
				return nil
			}
		} else if p.resends < maxResends {
			// A notification or a response: the server ignores a second
			// copy (a cancellation of a request it no longer runs, an
			// answer it already has), and losing it would cost more.
			p.resends++
			return c.writePost(p)
		}
	}
	if err != nil {
		if ctx.Err() != nil && m.IsRequest() && c.legacy(m) {
			// The request may have reached the server: tell it to stop,
			// as the spec asks (a dropped POST does not cancel).
			c.cancelLater(m.ID)
		}
		return err
	}
	if c.legacy(m) {
		// 2026-07-28 has no sessions: an id a server mints anyway is
		// neither kept nor sent back (nor DELETEd on Close).
		c.noteSession(resp)
	}

	handedOff, err = c.answered(reqCtx, p, resp, stop, cancel)
	return err
}

// answered takes the answer to the POST of p: a refusal (asked again
// later when the server says when), the answer to a notification or
// response (accepted), or the response to a request, read in the
// background from a JSON body or an event stream. It reports whether the
// answer was handed off to the background, which then stops and cancels
// reqCtx.
func (c *httpConn) answered(reqCtx context.Context, p post, resp *httpResponse, stop func() bool, cancel context.CancelFunc) (handedOff bool, err error) {
	m := p.m
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		err := c.refused(resp, m)
		if d := retryAfterOf(err); d > 0 && m.IsRequest() && resendable(m.Method) && p.resends < maxResends && c.failure() == nil {
			// A list page or the discovery refused for now (429, 503)
			// with a Retry-After: asked again after it, in the background
			// (the request stays pending).
			handedOff = c.goTracked(func() {
				defer stop()
				defer cancel()
				c.lost(p, err, d)
			})
			if handedOff {
				return true, nil
			}
		}
		if err != nil && !m.IsRequest() && m.Method != methods.NotifyInitialized && !errors.Is(err, ErrClosed) {
			// One refused notification or response (a cancellation of
			// a request the server forgot, say) is no broken
			// connection: HTTP carries on.
			c.log.Warn("mcplive: the server refused a message", "message", m.What(), "err", err)
			return false, nil
		}
		return false, err
	}
	if !m.IsRequest() {
		c.accepted(p.ctx, resp, m)
		return false, nil
	}
	ct := mediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		c.setEstablished()
		handedOff = c.goTracked(func() {
			defer c.settle(m.ID)
			defer stop()
			defer cancel()
			c.readJSON(reqCtx, resp, p)
		})
	case "text/event-stream":
		c.setEstablished()
		handedOff = c.goTracked(func() {
			defer c.settle(m.ID)
			defer stop()
			defer cancel()
			c.follow(reqCtx, resp, &p, m.Method)
		})
	default:
		resp.Body.Close()
		what := printf.Sprintf("Content-Type %q", resp.Header.Get("Content-Type"))
		if resp.StatusCode == statusAccepted || resp.StatusCode == statusNoContent || resp.ContentLength == 0 {
			what = printf.Sprintf("%s and no body", resp.Status)
		}
		err := printf.Errorf("%w: the server answered the %s request with %s; Streamable HTTP answers a request with application/json or text/event-stream",
			ErrProtocol, m.Method, what)
		return false, c.dialErr(err, "is this URL an MCP endpoint?")
	}
	if !handedOff {
		resp.Body.Close()
		return false, c.closedErr()
	}
	return true, nil
}

// accepted takes the answer to a notification or a response (POSTed
// alone): its body is drained in the background, and the session's
// notifications/initialized opens the standalone stream, awaited (in ctx).
func (c *httpConn) accepted(ctx context.Context, resp *httpResponse, m jsonrpc.Outgoing) {
	// Its body (none, as a rule) is read to its end, not aborted.
	body := resp.Body
	detach(body)
	if !c.goTracked(func() { release(body) }) {
		body.Close()
	}
	if resp.StatusCode != statusAccepted && resp.StatusCode != statusNoContent {
		c.log.Info("mcplive: the server answered a notification or response with a status other than 202", "status", resp.Status, "message", m.What())
	}
	c.setEstablished()
	if m.Method == methods.NotifyInitialized {
		// For a session that does not call SessionUpdated: the
		// standalone stream opens once the session is initialized.
		c.startGET()
		// The session is ready once the stream is open: a list
		// change the server announces after that is not lost
		// between the client's first lists and the stream.
		c.awaitGET(ctx)
	}
}

// legacy reports whether a message belongs to a 2025-11-25 (or older)
// session, where a dropped request is not cancelled without
// notifications/cancelled.
func (c *httpConn) legacy(m jsonrpc.Outgoing) bool {
	if m.Version != "" {
		return m.Version < firstModernVersion
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version < firstModernVersion
}
