package mcplive

import (
	"context"
	"errors"
	"time"

	"github.com/mcplive/mcplive/internal/printf"
)

// startHeartbeat pings the server every HeartbeatInterval; a ping without an
// answer within HeartbeatTimeout ends the session, which reconnects.
func (c *Client) startHeartbeat(sess *Session) {
	if c.opts.HeartbeatInterval < 0 {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		t := time.NewTicker(c.opts.HeartbeatInterval)
		defer t.Stop()
		for {
			select {
			case <-sess.Done():
				return
			case <-c.ctx.Done():
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(c.ctx, c.opts.HeartbeatTimeout)
			err := sess.heartbeat(ctx) // bounded by HeartbeatTimeout, not the request timeout
			cancel()
			var rpcErr *RPCError
			if errors.As(err, &rpcErr) {
				continue // an error answer is an answer: the server is there
			}
			if err != nil && c.ctx.Err() == nil {
				select {
				case <-sess.Done():
					return
				default:
				}
				c.opts.Logger.Warn("mcplive: heartbeat failed; reconnecting", "err", err)
				sess.abort(printf.Errorf("%w: no answer to ping within %v", ErrClosed, c.opts.HeartbeatTimeout))
				return
			}
		}
	}()
}
