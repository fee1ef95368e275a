package mcplive

import (
	"context"
	"errors"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/printf"
)

// Calls on a Client wait for the connection to be ready (for example during
// a reconnect), up to the request timeout, then run on the current session.

// errRequestTimeout is the cause of a Client call's own request timeout,
// told apart from a deadline of the caller's context.
var errRequestTimeout = errors.New("mcplive: request timeout")

// withSession runs fn on the ready session, bounded by the request timeout
// (which covers the wait for ready too; a call that may wait for the user,
// with Options.OnElicit, is bounded per round trip instead).
func withSession[R any](c *Client, ctx context.Context, method string, fn func(context.Context, *Session) (R, error)) (R, error) {
	var r R
	err := c.onSession(ctx, method, func(ctx context.Context, s *Session) (err error) {
		r, err = fn(ctx, s)
		return err
	})
	return r, err
}

// onSession is withSession's body, once for every result type (each
// instantiation of a generic function is its own wasm code).
func (c *Client) onSession(ctx context.Context, method string, fn func(context.Context, *Session) error) error {
	rctx, cancel := context.WithTimeoutCause(ctx, c.opts.RequestTimeout, errRequestTimeout)
	defer cancel()
	sess, err := c.session(rctx, method)
	if err != nil {
		return err
	}
	fctx := rctx
	if c.opts.OnElicit != nil && acceptsInput(method) {
		// A 2026-07-28 call may wait for the user between its round trips
		// (elicit.go): the request timeout bounds each of them, not the
		// user.
		fctx = ctx
	}
	err = fn(fctx, sess)
	for err != nil && errors.Is(err, jsonrpc.ErrNotSent) && ctx.Err() == nil && rctx.Err() == nil {
		// The request never reached the server (its connection had just
		// gone, which the client had not noticed: a call made while only
		// the change feed was being re-opened): it goes out on the next
		// connection, as a call made after the loss would have, up to
		// the deadline. The connection it was refused on has ended (the
		// JSON-RPC layer reports jsonrpc.ErrNotSent only then), so sessionBut
		// waits for another one: this loop never spins.
		var serr error
		if sess, serr = c.sessionBut(rctx, method, sess); serr != nil {
			err = serr
			break
		}
		err = fn(fctx, sess)
	}
	if err != nil && errors.Is(err, jsonrpc.ErrNotSent) {
		// Never sent, and no connection came before the deadline: the
		// call failed for want of a connection, as session says.
		if cerr := ctx.Err(); cerr != nil {
			return printf.Errorf("%s: %w", method, cerr)
		}
		if rctx.Err() != nil {
			return printf.Errorf("%s: not connected within the request timeout (%s): %w", method, string(StateReconnecting), ErrTimeout)
		}
	}
	if err != nil && errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, ErrTimeout) && ctx.Err() == nil {
		// The request timeout set here ended first: for the session that
		// is the caller's deadline, but for our caller it is ErrTimeout.
		return printf.Errorf("%s: no answer within %v: %w", method, c.opts.RequestTimeout, ErrTimeout)
	}
	return err
}

// Ping checks that the server answers.
func (c *Client) Ping(ctx context.Context) error {
	_, err := withSession(c, ctx, methods.Ping, func(ctx context.Context, s *Session) (struct{}, error) {
		return struct{}{}, s.Ping(ctx)
	})
	return err
}

// CallTool calls a tool; see Session.CallTool.
func (c *Client) CallTool(ctx context.Context, name string, args any, opts *CallToolOptions) (*CallToolResult, error) {
	return withSession(c, ctx, methods.CallTool, func(ctx context.Context, s *Session) (*CallToolResult, error) {
		r, err := s.CallTool(ctx, name, args, opts)
		var rerr *RPCError
		if errors.As(err, &rerr) && rerr.Code == CodeHeaderMismatch && s.mirrorsParams() {
			// The server judged the call's Mcp-Param headers against an
			// inputSchema other than the listed one (2026-07-28 over
			// Streamable HTTP): as the specification asks, list the tools
			// again and send the call once more, with the headers of the
			// schema the server lists now.
			if c.Refresh(ctx, KindTools) == nil {
				return s.CallTool(ctx, name, args, opts)
			}
		}
		return r, err
	})
}

// GetPrompt renders a prompt; see Session.GetPrompt.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*GetPromptResult, error) {
	return withSession(c, ctx, methods.GetPrompt, func(ctx context.Context, s *Session) (*GetPromptResult, error) {
		return s.GetPrompt(ctx, name, args)
	})
}

// ReadResource reads a resource; see Session.ReadResource.
func (c *Client) ReadResource(ctx context.Context, uri string) (*ReadResourceResult, error) {
	return withSession(c, ctx, methods.ReadResource, func(ctx context.Context, s *Session) (*ReadResourceResult, error) {
		return s.ReadResource(ctx, uri)
	})
}

// Complete asks for completion values; see Session.Complete.
func (c *Client) Complete(ctx context.Context, params CompleteParams) (*CompleteResult, error) {
	return withSession(c, ctx, methods.Complete, func(ctx context.Context, s *Session) (*CompleteResult, error) {
		return s.Complete(ctx, params)
	})
}

// SetLoggingLevel sets the server's log level; see Session.SetLoggingLevel.
// The level is not restored after a reconnect.
func (c *Client) SetLoggingLevel(ctx context.Context, level string) error {
	_, err := withSession(c, ctx, methods.SetLevel, func(ctx context.Context, s *Session) (struct{}, error) {
		return struct{}{}, s.SetLoggingLevel(ctx, level)
	})
	return err
}

// SubscribeResource subscribes to one resource: fn is called with the URI
// on each notifications/resources/updated for it. The subscription
// survives reconnects: it is sent again on every new connection while it
// has subscribers. unsubscribe removes fn; the last one for a URI sends
// resources/unsubscribe.
func (c *Client) SubscribeResource(ctx context.Context, uri string, fn func(uri string)) (unsubscribe func(context.Context) error, err error) {
	return withSession(c, ctx, methods.Subscribe, func(ctx context.Context, s *Session) (func(context.Context) error, error) {
		caps := s.caps()
		if err := s.need(methods.Subscribe, caps.Resources != nil && caps.Resources.Subscribe, "resources.subscribe"); err != nil {
			return nil, err
		}
		return c.subs.subscribe(ctx, uri, fn,
			func(ctx context.Context) error {
				err := s.subscribeSend(ctx, uri)
				c.updateLive(s)
				return err
			},
			func(ctx context.Context) error {
				sess, _ := c.sessions.current()
				if sess == nil {
					return nil // not connected: nothing to undo on the server
				}
				err := sess.unsubscribeSend(ctx, uri)
				c.updateLive(sess)
				return err
			})
	})
}

// resourceUpdated queues the subscribers of uri on the event goroutine.
func (c *Client) resourceUpdated(uri string) {
	fns := c.subs.fns(uri)
	if len(fns) == 0 {
		return
	}
	c.events.Push(func() {
		for _, fn := range fns {
			fn(uri)
		}
	})
}

// resubscribe sends resources/subscribe on a new legacy session for every
// URI that still has subscribers (a modern session's listen stream asks
// for them).
func (c *Client) resubscribe(sess *Session) {
	if sess.modern {
		return
	}
	uris := c.subs.uris()
	caps := sess.caps()
	for _, uri := range uris {
		if caps.Resources == nil || !caps.Resources.Subscribe {
			c.opts.Logger.Warn("mcplive: the server no longer allows resources/subscribe; subscription not restored", "uri", uri)
			continue
		}
		if _, err := sess.request(c.ctx, methods.Subscribe, map[string]any{"uri": uri}); err != nil {
			c.opts.Logger.Warn("mcplive: could not restore a resource subscription", "uri", uri, "err", printf.Sprint(err))
		}
	}
}
