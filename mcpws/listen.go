package mcpws

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListenOverlap works around a go-sdk v1.8 server bug that a 2026-07-28
// client over a WebSocket meets whenever its resource subscriptions change:
// add it to a server served by this package with
// server.AddReceivingMiddleware(mcpws.ListenOverlap()).
//
// The client then replaces its subscriptions/listen stream without a gap:
// it opens the new stream, and ends the old one once the new one is
// acknowledged. go-sdk keeps one listen registration per session, not per
// stream: the new stream overwrites it, and when the old one ends, its
// clean-up deletes the session's registration (and unsubscribes its
// resources): the new stream hears no list change from then on. Over
// Streamable HTTP every request is a session of its own, so only a
// long-lived transport (mcpws) meets it.
//
// Without it, an mcplive client finds the bug out (go-sdk answers the
// cancelled stream with a result, after its clean-up) and replaces its
// streams one after the other, re-listing every list across each gap.
//
// The middleware keeps a stream that the client ended running on the
// server (its answer to the client is sent at once) for as long as a newer
// stream of the same session is open: its clean-up then runs only when no
// stream is left to lose its registration.
func ListenOverlap() mcp.Middleware {
	var mu sync.Mutex
	type stream struct {
		retired bool
		cancel  context.CancelFunc
	}
	open := map[mcp.Session][]*stream{}

	// settle cancels every retired stream of ss once none is open; mu held.
	settle := func(ss mcp.Session) {
		list := open[ss]
		for _, s := range list {
			if !s.retired {
				return
			}
		}
		for _, s := range list {
			s.cancel()
		}
		delete(open, ss)
	}

	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "subscriptions/listen" {
				return next(ctx, method, req)
			}
			ss := req.GetSession()
			inner, cancel := context.WithCancel(context.WithoutCancel(ctx))
			st := &stream{cancel: cancel}
			mu.Lock()
			open[ss] = append(open[ss], st)
			mu.Unlock()

			type answer struct {
				res mcp.Result
				err error
			}
			done := make(chan answer, 1)
			go func() {
				res, err := next(inner, method, req)
				done <- answer{res, err}
			}()
			select {
			case a := <-done: // ended by the server (nothing to listen to, an error)
				mu.Lock()
				list := open[ss]
				for i, s := range list {
					if s == st {
						open[ss] = append(list[:i:i], list[i+1:]...)
						break
					}
				}
				if len(open[ss]) == 0 {
					delete(open, ss)
				} else {
					settle(ss)
				}
				mu.Unlock()
				cancel()
				return a.res, a.err
			case <-ctx.Done(): // ended by the client, or the session closed
				mu.Lock()
				st.retired = true
				settle(ss)
				mu.Unlock()
				return nil, ctx.Err()
			}
		}
	}
}
