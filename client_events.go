package mcplive

import (
	"time"
)

// listChanged is the Client's change feed: it re-lists the kinds. It runs
// on the session's dispatcher.
func (c *Client) listChanged(kinds []Kind, at time.Time) {
	for _, k := range kinds {
		c.lists[k].syncer().trigger(CauseNotification, at)
	}
}

// eventLoop is the Client's event goroutine: it runs, in order, what its
// lists and its state queued on c.events (watchers.publish), the
// subscriber callbacks. It says when it runs one (inCallback), so that
// Close never waits for a callback, which may be Close's own caller.
func (c *Client) eventLoop() {
	defer close(c.evDone)
	for {
		fn, ok := c.events.Pop()
		if !ok {
			return
		}
		c.inCallback.Store(true)
		c.safeCall(fn)
		c.inCallback.Store(false)
	}
}

// safeCall runs a subscriber callback; a panic in it is logged, not fatal
// (in wasm a panic would end the runtime for the whole page).
func (c *Client) safeCall(fn func()) {
	defer func() {
		if r := recover(); r != nil {
			c.opts.Logger.Error("mcplive: subscriber panicked", "panic", r)
		}
	}()
	fn()
}
