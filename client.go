package mcplive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// State is the state of a Client's connection.
type State string

// Connection states.
const (
	StateConnecting   State = "connecting"
	StateReady        State = "ready"
	StateReconnecting State = "reconnecting"
	StateClosed       State = "closed"
)

// Client is a live MCP client: it keeps the server's tools, prompts,
// resources and resource templates in sync as the server announces
// changes, reconnects when the connection drops, and makes calls. All
// methods are safe for concurrent use.
type Client struct {
	opts      Options
	transport Transport
	ctx       context.Context
	cancel    context.CancelFunc

	events  fifo[func()]  // every subscriber callback runs from here, in order
	eventsG atomic.Uint64 // goroutine id of the event loop
	evDone  chan struct{}
	runDone chan struct{}
	wg      sync.WaitGroup // syncers and heartbeats
	once    sync.Once

	tools     *List[Tool]
	prompts   *List[Prompt]
	resources *List[Resource]
	templates *List[ResourceTemplate]
	syncers   map[Kind]*syncer

	mu        sync.Mutex
	state     State
	stateCh   chan struct{} // closed and replaced at every state change
	sess      *Session
	epoch     uint64 // counts sessions; results of an older one are dropped
	init      InitializeResult
	stateSubs map[int]func(State)
	resSubs   resourceSubs
	nextSubID int
}

// Connect dials url, initializes, and returns once every list the server
// offers has had its first full sync. A list whose first sync fails has
// status "error"; Connect itself fails only when the connection or
// initialize fails. ctx bounds only the connecting; Close ends the client.
func Connect(ctx context.Context, url string, opts *Options) (*Client, error) {
	o := opts.withDefaults()
	t := o.Transport
	if t == nil {
		t = &WebSocketTransport{URL: url, ReadLimit: o.ReadLimit, DialTimeout: o.DialTimeout}
	}
	c := &Client{
		opts:      o,
		transport: t,
		state:     StateConnecting,
		stateCh:   make(chan struct{}),
		stateSubs: make(map[int]func(State)),
		evDone:    make(chan struct{}),
		runDone:   make(chan struct{}),
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.events.init()
	c.tools = newList[Tool](KindTools, &c.events)
	c.prompts = newList[Prompt](KindPrompts, &c.events)
	c.resources = newList[Resource](KindResources, &c.events)
	c.templates = newList[ResourceTemplate](KindResourceTemplates, &c.events)
	c.syncers = map[Kind]*syncer{
		KindTools:             newSyncer(c, KindTools, syncList(c, c.tools)),
		KindPrompts:           newSyncer(c, KindPrompts, syncList(c, c.prompts)),
		KindResources:         newSyncer(c, KindResources, syncList(c, c.resources)),
		KindResourceTemplates: newSyncer(c, KindResourceTemplates, syncList(c, c.templates)),
	}
	go c.eventLoop()

	first := make(chan error, 1)
	go c.run(ctx, first)
	select {
	case err := <-first:
		if err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	case <-ctx.Done():
		c.Close()
		return nil, fmt.Errorf("mcplive: connect %s: %w", url, ctx.Err())
	}
}

// Tools is the live list of tools.
func (c *Client) Tools() *List[Tool] { return c.tools }

// Prompts is the live list of prompts.
func (c *Client) Prompts() *List[Prompt] { return c.prompts }

// Resources is the live list of resources.
func (c *Client) Resources() *List[Resource] { return c.resources }

// ResourceTemplates is the live list of resource templates.
func (c *Client) ResourceTemplates() *List[ResourceTemplate] { return c.templates }

// State returns the connection state.
func (c *Client) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// WatchState calls fn on every state change, in order, on the event
// goroutine. The returned function stops the calls.
func (c *Client) WatchState(fn func(State)) (cancel func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextSubID++
	id := c.nextSubID
	c.stateSubs[id] = fn
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.stateSubs, id)
	}
}

// InitializeResult returns the latest session's initialize result.
func (c *Client) InitializeResult() InitializeResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.init
}

// ServerInfo returns the server's name, version and more.
func (c *Client) ServerInfo() Implementation { return c.InitializeResult().ServerInfo }

// Capabilities returns the server's capabilities exactly as it sent them.
func (c *Client) Capabilities() json.RawMessage {
	var v struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(c.InitializeResult().Raw, &v)
	return v.Capabilities
}

// ProtocolVersion returns the negotiated protocol version.
func (c *Client) ProtocolVersion() string { return c.InitializeResult().ProtocolVersion }

// Instructions returns the server's instructions, if any.
func (c *Client) Instructions() string { return c.InitializeResult().Instructions }

// Close closes the connection, stops reconnecting and waits for every
// goroutine of the client to end. Calls in flight fail with ErrClosed.
// Lists keep their last items, with status "stale". Close may be called
// from a callback.
func (c *Client) Close() error {
	c.once.Do(func() {
		c.cancel()
		c.mu.Lock()
		sess := c.sess
		c.mu.Unlock()
		if sess != nil {
			sess.Close()
		}
		<-c.runDone
		c.wg.Wait()
		c.markStale() // nothing keeps the lists in sync any more
		c.setState(StateClosed)
		c.events.close()
	})
	if goid() != c.eventsG.Load() {
		<-c.evDone
	}
	return nil
}

func (c *Client) eventLoop() {
	defer close(c.evDone)
	c.eventsG.Store(goid())
	for {
		fn, ok := c.events.pop()
		if !ok {
			return
		}
		c.safeCall(fn)
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

func (c *Client) setState(s State) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setStateLocked(s)
}

func (c *Client) setStateLocked(s State) {
	if c.state == s || c.state == StateClosed {
		return
	}
	c.state = s
	close(c.stateCh)
	c.stateCh = make(chan struct{})
	// Only the watchers registered now, as for list updates (publish).
	var ids []int
	for id := 0; id <= c.nextSubID; id++ {
		if _, ok := c.stateSubs[id]; ok {
			ids = append(ids, id)
		}
	}
	c.events.push(func() {
		c.mu.Lock()
		fns := make([]func(State), 0, len(ids))
		for _, id := range ids {
			if fn, ok := c.stateSubs[id]; ok {
				fns = append(fns, fn)
			}
		}
		c.mu.Unlock()
		for _, fn := range fns {
			fn(s)
		}
	})
}

// run connects, syncs, waits for the connection to drop, and reconnects,
// until Close. The first outcome goes to first.
func (c *Client) run(connectCtx context.Context, first chan<- error) {
	defer close(c.runDone)
	attempt := 0
	connected := false
	for {
		ctx, stop := c.ctx, context.CancelFunc(func() {})
		if !connected {
			// The first dial is bounded by Connect's context too.
			ctx, stop = mergeCancel(c.ctx, connectCtx)
		}
		t := c.transport
		if ws, ok := t.(*WebSocketTransport); ok && connected {
			w := *ws
			w.DialTimeout = reconnectDialTimeout(attempt, ws.DialTimeout)
			t = &w
		}
		sess, err := NewSession(ctx, t, c.sessionOptions())
		stop()
		if err != nil {
			if !connected {
				first <- err
				return
			}
			if c.ctx.Err() != nil {
				return
			}
			c.opts.Logger.Warn("mcplive: reconnect failed", "attempt", attempt+1, "err", err)
			if !c.backoff(attempt) {
				return
			}
			attempt++
			continue
		}
		c.mu.Lock()
		if c.ctx.Err() != nil {
			c.mu.Unlock()
			sess.Close()
			return
		}
		c.sess = sess
		c.epoch++
		c.init = sess.InitializeResult()
		c.mu.Unlock()

		// The heartbeat runs from the start: a connection that goes silent
		// during the resubscribe or the sync is given up after
		// HeartbeatTimeout, not after RequestTimeout per request.
		c.startHeartbeat(sess)
		c.resubscribe(sess)
		c.syncAll(sess)
		select {
		case <-c.ctx.Done():
			sess.Close()
			return
		case <-sess.Done():
			// Dropped during the sync: not ready; reconnect below.
		default:
			c.setState(StateReady)
			if !connected {
				connected = true
				first <- nil
			}
			attempt = 0
			select {
			case <-sess.Done():
			case <-c.ctx.Done():
				sess.Close()
				return
			}
		}
		if !connected {
			first <- fmt.Errorf("mcplive: connection lost during the first sync: %w", connLost(sess.Err()))
			return
		}
		c.mu.Lock()
		c.sess = nil
		closing := c.ctx.Err() != nil
		c.mu.Unlock()
		if closing {
			return
		}
		c.opts.Logger.Warn("mcplive: connection lost", "err", sess.Err())
		c.markStale()
		if c.opts.Reconnect.Disabled {
			c.setState(StateClosed)
			return
		}
		c.setState(StateReconnecting)
		if !c.backoff(attempt) {
			return
		}
		attempt++
	}
}

// reconnectDialTimeout bounds the dial of the attempt-th reconnect: 1 s,
// then doubling up to the configured DialTimeout. Node 20's WebSocket never
// reports a refused connection, so against a server that is down every
// attempt lasts its whole dial timeout; short early timeouts let a client
// come back within a second or two of the server.
func reconnectDialTimeout(attempt int, max time.Duration) time.Duration {
	if max <= 0 {
		max = DefaultDialTimeout
	}
	d := time.Second << min(attempt, 10)
	if d > max {
		return max
	}
	return d
}

// mergeCancel returns a context cancelled when either a or b is done.
func mergeCancel(a, b context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return ctx, func() { stop(); cancel() }
}

// backoff waits the attempt-th delay: full jitter over an exponential cap.
// It reports false when the client closed meanwhile.
func (c *Client) backoff(attempt int) bool {
	ceiling := c.opts.Reconnect.InitialDelay << min(attempt, 30)
	if ceiling <= 0 || ceiling > c.opts.Reconnect.MaxDelay {
		ceiling = c.opts.Reconnect.MaxDelay
	}
	d := time.Duration(rand.Int64N(int64(ceiling) + 1))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.ctx.Done():
		return false
	}
}

func (c *Client) sessionOptions() *Options {
	o := c.opts
	o.route = c.route
	return &o
}

// route turns list_changed into re-lists and resources/updated into calls
// of the resource's subscribers. It runs on the session's dispatcher,
// before Options.OnNotification.
func (c *Client) route(sess *Session, method string, params json.RawMessage) {
	var kinds []Kind
	switch method {
	case notifyToolsChanged:
		kinds = []Kind{KindTools}
	case notifyPromptsChanged:
		kinds = []Kind{KindPrompts}
	case notifyResourcesChanged:
		kinds = []Kind{KindResources, KindResourceTemplates}
	case notifyResourceUpdated:
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(params, &p) == nil {
			c.resourceUpdated(p.URI)
		}
		return
	default:
		return
	}
	caps := sess.caps()
	for _, k := range kinds {
		if !kindSpecs[k].cap(caps) {
			// The kinds of one notification share their capability
			// (resources and templates): log the notification once.
			c.opts.Logger.Warn("mcplive: ignored a list_changed for a kind the server does not offer", "method", method)
			return
		}
		c.syncers[k].trigger()
	}
}

// syncAll re-lists every kind the session offers and waits for all of them;
// kinds it does not offer become empty and "unsupported".
func (c *Client) syncAll(sess *Session) {
	var waits []<-chan struct{}
	caps := sess.InitializeResult().Capabilities
	for _, k := range Kinds {
		if kindSpecs[k].cap(caps) {
			waits = append(waits, c.syncers[k].trigger())
		} else {
			c.applyUnsupported(k)
		}
	}
	for _, w := range waits {
		select {
		case <-w:
		case <-sess.Done():
			return
		case <-c.ctx.Done():
			return
		}
	}
}

func (c *Client) applyUnsupported(k Kind) {
	switch k {
	case KindTools:
		c.tools.apply(nil, StatusUnsupported, nil)
	case KindPrompts:
		c.prompts.apply(nil, StatusUnsupported, nil)
	case KindResources:
		c.resources.apply(nil, StatusUnsupported, nil)
	case KindResourceTemplates:
		c.templates.apply(nil, StatusUnsupported, nil)
	}
}

// markStale turns every list that had been synced "stale", keeping items.
func (c *Client) markStale() {
	for _, st := range []interface{ staleIfSynced() }{c.tools, c.prompts, c.resources, c.templates} {
		st.staleIfSynced()
	}
}

func (l *List[T]) staleIfSynced() {
	l.mu.Lock()
	s := l.snap.Status
	l.mu.Unlock()
	if s == StatusReady || s == StatusError {
		l.setStatus(StatusStale, nil)
	}
}

// Refresh re-lists kind ("" for all kinds the server offers) through the
// same single-flight path as a notification, and waits for the result.
func (c *Client) Refresh(ctx context.Context, kind Kind) error {
	kinds := []Kind{kind}
	if kind == "" {
		kinds = Kinds
	} else if _, ok := c.syncers[kind]; !ok {
		return fmt.Errorf("mcplive: refresh: unknown list kind %q", kind)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout*time.Duration(1+len(kinds)))
	defer cancel()
	if _, err := c.session(ctx, "refresh"); err != nil {
		return err
	}
	caps := c.InitializeResult().Capabilities
	var waits []<-chan struct{}
	for _, k := range kinds {
		if !kindSpecs[k].cap(caps) {
			if kind != "" {
				return fmt.Errorf("mcplive: refresh %s: %w (the server did not declare the %s capability)", k, ErrUnsupported, kindSpecs[k].name)
			}
			continue
		}
		waits = append(waits, c.syncers[k].trigger())
	}
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return fmt.Errorf("mcplive: refresh: %w", ctx.Err())
		}
	}
	var errs []error
	for _, k := range kinds {
		if err := c.listErr(k); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (c *Client) listErr(k Kind) error {
	switch k {
	case KindTools:
		return c.tools.Snapshot().Err
	case KindPrompts:
		return c.prompts.Snapshot().Err
	case KindResources:
		return c.resources.Snapshot().Err
	default:
		return c.templates.Snapshot().Err
	}
}

// session waits until the client is ready and returns the session. It
// fails when ctx ends first or the client closes.
func (c *Client) session(ctx context.Context, method string) (*Session, error) {
	for {
		c.mu.Lock()
		state, sess, ch := c.state, c.sess, c.stateCh
		c.mu.Unlock()
		switch {
		case state == StateClosed:
			return nil, fmt.Errorf("%s: %w (the client is closed)", method, ErrClosed)
		case state == StateReady && sess != nil:
			return sess, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errRequestTimeout) {
				return nil, fmt.Errorf("%s: not connected within the request timeout (%s): %w", method, state, ErrTimeout)
			}
			return nil, fmt.Errorf("%s: %w", method, ctx.Err())
		}
	}
}

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
			_, err := sess.rpc.call(ctx, methodPing, nil)
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
				sess.rpc.shutdown(fmt.Errorf("%w: no answer to ping within %v", ErrClosed, c.opts.HeartbeatTimeout))
				return
			}
		}
	}()
}
