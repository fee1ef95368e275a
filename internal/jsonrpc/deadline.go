package jsonrpc

import (
	"context"
	"sync"
	"time"
)

// Request timeouts without a context and a timer per request.
//
// Every request of a session is bounded by Options.RequestTimeout. With
// context.WithTimeout per request, each list page made a timer context: a
// timer, a clock read, an entry in the parent's map of children and a
// channel, all undone when the answer came: an eighth of the wasm's CPU
// time per change (a Node 22 CPU profile of the change → list benchmark,
// 105 tools in 11 pages; in the browser the clock read is a call into JS
// too). Instead, a request's
// deadline is a number in its pending entry, and one timer per connection
// (Connection.sweep), armed for the earliest deadline, fails the requests whose
// time is up. Requests share one timeout, so a new request's deadline is
// never the earliest: the timer is armed once and re-armed when it fires.

// monoStart is the origin of Clock: reading the monotonic clock through it
// is one clock read (time.Now is two, each a call into JS in the browser).
var monoStart = time.Now()

// Clock is the time on the monotonic clock, as a duration since monoStart:
// the package's one clock (request deadlines, a message's arrival).
func Clock() time.Duration { return time.Since(monoStart) }

// timedOut is what the sweeper hands a request whose time is up, in place
// of its response.
var timedOut = &Message{}

// pendingCall is a request waiting for its response.
type pendingCall struct {
	ch       chan *Message // buffered: its response, timedOut, or closed with the connection
	deadline time.Duration // on Clock; 0: no timeout
	wctx     *callCtx      // the context its write runs under; nil without a timeout
	// sent (the write returned) and expired (the sweeper took it) are
	// set under Connection.mu: whichever comes second tells the server that
	// the request timed out. A request whose write did not finish is not
	// told (the transport's write does that where it must).
	sent, expired bool
}

// armLocked makes sure the sweeper runs by deadline d. c.mu is held.
func (c *Connection) armLocked(d time.Duration) {
	if c.sweepAt != 0 && c.sweepAt <= d {
		return
	}
	c.sweepAt = d
	wait := max(d-Clock(), 0)
	if c.sweep == nil {
		c.sweep = time.AfterFunc(wait, c.sweepExpired)
	} else {
		c.sweep.Reset(wait)
	}
}

// sweepExpired fails the requests whose deadline has passed and arms the
// timer for the earliest deadline left.
//
// The server is told of a timed-out request here (not by exchange, which,
// receiving timedOut, may find its caller's context ended at the same
// moment) or, for a request whose write was still under way, by exchange
// once the write returns.
func (c *Connection) sweepExpired() {
	type expiry struct {
		id   int64
		p    *pendingCall
		tell bool
	}
	var expired []expiry
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	now := Clock()
	var next time.Duration
	for id, p := range c.pending {
		switch {
		case p.deadline == 0:
		case p.deadline <= now:
			delete(c.pending, id)
			p.expired = true
			expired = append(expired, expiry{id, p, p.sent})
		case next == 0 || p.deadline < next:
			next = p.deadline
		}
	}
	c.sweepAt = 0
	if next != 0 {
		c.armLocked(next)
	}
	c.mu.Unlock()
	for _, e := range expired {
		e.p.ch <- timedOut // buffered and no longer pending: never blocks
		e.p.wctx.cancel(context.DeadlineExceeded)
		if e.tell {
			c.cancelRequest(e.id, context.DeadlineExceeded)
		}
	}
}

// callCtx is the context a request's write runs under: its caller's,
// ended also when the request's time is up (by the sweeper) or when the
// request is over. It makes nothing until a write asks for its Done channel
// (a Streamable HTTP request does; a WebSocket write only checks Err), so a
// request over WebSocket costs no timer, channel or registration with its
// parent.
type callCtx struct {
	parent   context.Context
	deadline time.Duration // on Clock

	mu    sync.Mutex
	done  chan struct{}
	err   error
	stop  func() bool // undoes the registration with parent
	funcs []*afterFunc
}

type afterFunc struct {
	f    func()
	once sync.Once
}

func (c *callCtx) Deadline() (time.Time, bool) {
	d := time.Now().Add(c.deadline - Clock())
	if pd, ok := c.parent.Deadline(); ok && pd.Before(d) {
		return pd, true
	}
	return d, true
}

func (c *callCtx) Value(key any) any { return c.parent.Value(key) }

func (c *callCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		c.watchLocked()
		if c.err != nil {
			close(c.done)
		}
	}
	return c.done
}

func (c *callCtx) Err() error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := c.parent.Err(); err != nil {
		c.cancel(err)
		return c.Err()
	}
	return nil
}

// AfterFunc lets context.AfterFunc and context.WithCancel register with c
// without a goroutine each (the context package looks for this method).
func (c *callCtx) AfterFunc(f func()) func() bool {
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		a.once.Do(func() { go f() })
		return func() bool { return false }
	}
	c.funcs = append(c.funcs, a)
	c.watchLocked()
	c.mu.Unlock()
	return func() bool {
		stopped := false
		a.once.Do(func() { stopped = true })
		return stopped
	}
}

// watchLocked registers c with its parent, once, so that the parent's end
// ends c. c.mu is held.
func (c *callCtx) watchLocked() {
	if c.stop == nil && c.err == nil {
		c.stop = context.AfterFunc(c.parent, func() { c.cancel(c.parent.Err()) })
	}
}

// cancel ends c with err (the first reason wins). nil-safe: a request
// without a timeout has no callCtx.
func (c *callCtx) cancel(err error) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	funcs, stop := c.funcs, c.stop
	c.funcs = nil
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	for _, a := range funcs {
		a.once.Do(func() { go a.f() })
	}
}
