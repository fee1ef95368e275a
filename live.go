package mcplive

import (
	"context"
	"errors"
	"time"
)

// liveList is the kind-independent face of a Client's List, for the
// client's loops over the kind registry.
type liveList interface {
	ListView
	syncer() *syncer
	markStale()
	markUnsupported(Cause)
	lastErr() error
}

// newLive makes the List of one kind for c, with the syncer that keeps it:
// each walk lists every page on the current session and applies the result
// unless a newer session has taken over meanwhile (an older result never
// overwrites a newer one).
func newLive[T Item, PT rawSetter[T]](c *Client, spec kindSpec) liveList {
	l := newList[T](spec, &c.events)
	l.sync = newSyncer(c.ctx, &c.wg, func(ctx context.Context, cause Cause, since time.Time) {
		sess, epoch := c.current()
		if sess == nil {
			return // no session: the next one re-lists everything
		}
		items, err := relist[T, PT](ctx, sess, spec, l.Snapshot().Items)
		c.ifCurrent(sess, epoch, func() {
			if err == nil {
				l.apply(items, StatusReady, nil, cause, time.Since(since))
				return
			}
			select {
			case <-sess.Done():
				return // the drop marks the list stale; the reconnect re-lists
			default:
			}
			if errors.Is(err, context.Canceled) && ctx.Err() != nil {
				return
			}
			c.opts.Logger.Warn("mcplive: re-list failed; keeping the last items", "kind", spec.kind, "err", err)
			l.setStatus(StatusError, err)
		})
	})
	return l
}
