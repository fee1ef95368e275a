package mcplive

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/printf"
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

	events     jsonrpc.Fifo[func()] // every subscriber callback runs from here, in order
	inCallback atomic.Bool          // the event goroutine is running a callback (see Close)
	evDone     chan struct{}
	runDone    chan struct{}
	wg         sync.WaitGroup // syncers and heartbeats
	once       sync.Once

	lists map[Kind]liveList // one per entry of the kind registry
	subs  resourceSubs      // resource subscribers, shared by every session

	mu      sync.Mutex
	state   State
	stateCh chan struct{} // closed and replaced at every state change
	// feedDown is the session whose change feed is being re-opened
	// (state reconnecting, the session up): calls use it meanwhile.
	feedDown  *Session
	sessions  sessionSlot // the current session, set under mu; results of an older one are dropped
	initFrom  *Session    // the latest session: its InitializeResult is the Client's
	stateSubs watchers[State]
}

// liveOf makes the List of each kind of the registry, in kindTable's
// order, with the syncer that keeps it (list_walker.go, newLive).
var liveOf = [...]func(kindSpec, liveEnv) liveList{
	newLive[Tool], newLive[Prompt], newLive[Resource], newLive[ResourceTemplate],
}

// Connect dials url, initializes, and returns once every list the server
// offers has had its first full sync. A list whose first sync fails has
// status "error"; Connect itself fails only when the connection or
// initialize fails. ctx bounds only the connecting; Close ends the client.
func Connect(ctx context.Context, url string, opts *Options) (*Client, error) {
	o := opts.withDefaults()
	t := o.Transport
	if t == nil {
		var err error
		if t, err = NewTransport(url, &o); err != nil {
			return nil, err
		}
	}
	c := &Client{
		opts:      o,
		transport: t,
		state:     StateConnecting,
		stateCh:   make(chan struct{}),
		evDone:    make(chan struct{}),
		runDone:   make(chan struct{}),
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.events.Init()
	c.lists = make(map[Kind]liveList, len(kindTable))
	for i, spec := range kindTable {
		c.lists[spec.kind] = liveOf[i](spec, liveEnv{
			ctx: c.ctx, wg: &c.wg, events: &c.events, sessions: &c.sessions, log: o.Logger, raw: o.RawItems,
			seed: seedOf(o.Seeds, spec.kind),
		})
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
		return nil, printf.Errorf("mcplive: connect %s: %w", url, ctx.Err())
	}
}

// Tools is the live list of tools.
func (c *Client) Tools() *List[Tool] { return c.lists[KindTools].(*List[Tool]) }

// Prompts is the live list of prompts.
func (c *Client) Prompts() *List[Prompt] { return c.lists[KindPrompts].(*List[Prompt]) }

// Resources is the live list of resources.
func (c *Client) Resources() *List[Resource] { return c.lists[KindResources].(*List[Resource]) }

// ResourceTemplates is the live list of resource templates.
func (c *Client) ResourceTemplates() *List[ResourceTemplate] {
	return c.lists[KindResourceTemplates].(*List[ResourceTemplate])
}

// List returns the live list of kind k as a kind-independent ListView;
// nil for an unknown kind.
func (c *Client) List(k Kind) ListView {
	if l, ok := c.lists[k]; ok {
		return l
	}
	return nil
}

// State returns the connection state.
func (c *Client) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// WatchState calls fn on every state change, in order, on the event
// goroutine. The returned function stops the calls.
func (c *Client) WatchState(fn func(State)) (cancel func()) {
	remove := c.stateSubs.add(fn)
	return func() { remove() }
}

// InitializeResult returns the latest session's initialize result.
func (c *Client) InitializeResult() InitializeResult {
	c.mu.Lock()
	s := c.initFrom
	c.mu.Unlock()
	if s == nil {
		return InitializeResult{}
	}
	return s.InitializeResult()
}

// ServerInfo returns the server's name, version and more.
func (c *Client) ServerInfo() Implementation { return c.InitializeResult().ServerInfo }

// Capabilities returns the server's capabilities exactly as it sent them.
func (c *Client) Capabilities() RawMessage {
	return capabilitiesOf(c.InitializeResult().Raw)
}

// capabilitiesOf returns the capabilities member of a result as sent, as
// encoding/json would read it into a json.RawMessage (nothing when raw
// is not a valid object).
func capabilitiesOf(raw RawMessage) RawMessage {
	var caps RawMessage
	if jsontext.Decode(raw, "result", []jsontext.Field{{Name: "capabilities", Dst: &caps}}) != nil {
		return nil
	}
	return caps
}

// ProtocolVersion returns the negotiated protocol version.
func (c *Client) ProtocolVersion() string { return c.InitializeResult().ProtocolVersion }

// Instructions returns the server's instructions, if any.
func (c *Client) Instructions() string { return c.InitializeResult().Instructions }

// Close closes the connection, stops reconnecting and waits for every
// goroutine of the client to end. Calls in flight fail with ErrClosed.
// Lists keep their last items, with status "stale", and subscribers get
// the last updates (the stale status, StateClosed) before Close returns.
//
// Close never waits on a subscriber callback, so that it may be called
// from one: while a callback runs (Close's own caller or not), Close
// returns without waiting for it, and the callback's goroutine delivers
// the last updates after it, then ends.
func (c *Client) Close() error {
	c.once.Do(func() {
		c.cancel()
		c.mu.Lock()
		sess, _ := c.sessions.current()
		c.mu.Unlock()
		if sess != nil {
			sess.Close()
		}
		<-c.runDone
		c.wg.Wait()
		c.markStale() // nothing keeps the lists in sync any more
		c.setState(StateClosed)
		c.events.Close()
	})
	if !c.inCallback.Load() {
		<-c.evDone
	}
	return nil
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
	if s != StateReconnecting {
		c.feedDown = nil
	}
	close(c.stateCh)
	c.stateCh = make(chan struct{})
	// Only the watchers registered now, as for list updates (publish).
	c.stateSubs.publish(&c.events, s)
}

// run connects, syncs, waits for the connection to drop, and reconnects,
// until Close. The first outcome goes to first. Over 80 lines on purpose: one reconnect state machine whose counters (attempt, failed, connected, legacy, cause) every step reads and writes.
func (c *Client) run(connectCtx context.Context, first chan<- error) {
	defer close(c.runDone)
	attempt := 0
	// failed counts the reconnect attempts that failed since the last
	// session opened: the warnings number them from 1.
	failed := 0
	connected := false
	// legacy: the last session found a server of the legacy era. The next
	// one opens with initialize, without the server/discover probe, as the
	// spec asks of a client ("cache the result"); it probes again if the
	// server refuses initialize (era.go, open).
	legacy := c.opts.ProtocolVersion == "" && slices.Contains(supportedVersions, c.opts.RevisionHint)
	// prior: the kept server/discover result, for the first session only.
	prior := c.opts.Prior
opening:
	for {
		var ctx context.Context
		var stop context.CancelFunc
		if !connected {
			// The first opening is bounded by Connect's context too.
			ctx, stop = mergeCancel(c.ctx, connectCtx)
		} else {
			// Early reconnects give up sooner (reconnectDialTimeout),
			// whatever transport is in use (a wrapped one included).
			ctx, stop = context.WithTimeout(c.ctx, reconnectDialTimeout(attempt, c.opts.DialTimeout))
		}
		o := c.opts
		o.Prior = prior
		sess, err := newSession(ctx, c.transport, o, c, &c.subs, legacy)
		stop()
		prior = nil
		if err != nil && !errors.Is(err, ErrDial) {
			// The server was reached but did not open a session: whatever
			// it has become, the next attempt probes its revision again.
			legacy = false
		}
		if err != nil {
			if !connected {
				first <- err
				return
			}
			if c.ctx.Err() != nil {
				return
			}
			failed++
			// One short line per attempt, with its cause; the advice
			// (what to check, what the server must allow) once.
			if failed == 1 {
				c.opts.Logger.Warn("mcplive: reconnect attempt 1 failed: "+withoutAdvice(err), "attempt", failed, "err", err.Error())
			} else {
				c.opts.Logger.Warn("mcplive: reconnect attempt "+strconv.Itoa(failed)+" failed: "+withoutAdvice(err), "attempt", failed)
			}
			if !c.backoffAtLeast(attempt, retryAfterOf(err)) {
				return
			}
			attempt++
			continue
		}
		legacy = !sess.Modern()
		failed = 0
		c.mu.Lock()
		if c.ctx.Err() != nil {
			c.mu.Unlock()
			sess.Close()
			return
		}
		c.sessions.begin(sess)
		c.initFrom = sess
		c.mu.Unlock()

		// The heartbeat runs from the start: a connection that goes silent
		// during the resubscribe or the sync is given up after
		// HeartbeatTimeout, not after RequestTimeout per request.
		c.startHeartbeat(sess)
		c.resubscribe(sess)
		cause := CauseReconnect
		if !connected {
			cause = CauseInitial
		}
		for { // each opening of the session's change feed
			// The feed opens before the lists are walked, so that no
			// change falls between a list and the feed.
			lost := c.openFeed(sess)
			c.syncAll(sess, cause)
			if err := sess.confirmPrior(c.ctx); err != nil && c.ctx.Err() == nil {
				// Opened from a kept server/discover result that no longer
				// holds: open again, probing the server's revision.
				c.opts.Logger.Info("mcplive: the kept server/discover result no longer holds", "err", err.Error())
				sess.Close()
				c.mu.Lock()
				c.sessions.end()
				c.mu.Unlock()
				legacy = false
				continue opening
			}
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
				readyAt := time.Now()
				select {
				case <-sess.Done():
				case <-c.ctx.Done():
					sess.Close()
					return
				case <-lost:
					// The feed ended, the connection did not: nothing
					// feeds the lists until the feed is open again and
					// every list re-listed (changes may have been missed).
					attempt = c.nextAttempt(attempt, readyAt)
					c.markStale()
					c.mu.Lock()
					c.feedDown = sess // calls need no feed: they go on (session)
					c.mu.Unlock()
					c.setState(StateReconnecting)
					if !c.backoff(attempt - 1) {
						sess.Close()
						return
					}
					cause = CauseReconnect
					continue
				}
				attempt = c.nextAttempt(attempt, readyAt) - 1
			}
			break
		}
		if !connected {
			first <- printf.Errorf("mcplive: connection lost during the first sync: %w", jsonrpc.ConnLost(sess.Err()))
			return
		}
		c.mu.Lock()
		c.feedDown = nil
		c.sessions.end()
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

// nextAttempt counts a loss after a ready period that began at readyAt: a
// connection (or feed) that stayed up for the longest backoff starts the
// backoff over, one that failed sooner backs off further, so that a server
// that accepts and drops at once is not retried in a tight loop.
func (c *Client) nextAttempt(attempt int, readyAt time.Time) int {
	if time.Since(readyAt) >= c.opts.Reconnect.MaxDelay {
		return 1
	}
	return attempt + 1
}

// openFeed opens the change feed of a new session (listen.go) and records
// which lists are live. A feed that cannot be opened leaves the lists
// listed but not live; the returned channel closes when the feed is lost.
func (c *Client) openFeed(sess *Session) <-chan struct{} {
	ctx, cancel := context.WithTimeout(c.ctx, c.opts.RequestTimeout)
	defer cancel()
	lost, err := sess.openFeed(ctx)
	if err != nil && c.ctx.Err() == nil {
		c.opts.Logger.Warn("mcplive: no change feed; the lists will not follow changes", "err", err.Error())
	}
	c.updateLive(sess)
	return lost
}

// livenessChanged: sess's transport lost or regained its way of telling
// changes (livenessFeed).
func (c *Client) livenessChanged(sess *Session) { c.updateLive(sess) }

// updateLive records on every list whether the server tells of its
// changes on sess, while sess is the current session.
func (c *Client) updateLive(sess *Session) {
	_, epoch := c.sessions.current()
	c.sessions.ifCurrent(sess, epoch, func() {
		for _, spec := range kindTable {
			c.lists[spec.kind].setLive(sess.liveKind(spec))
		}
	})
}

// reconnectDialTimeout bounds the opening (dial and handshake) of the
// attempt-th reconnect: 1 s, then doubling up to Options.DialTimeout. A
// server that accepts connections but does not answer yet (one that is
// still starting) would otherwise cost a whole dial timeout per attempt;
// short early bounds let a client come back within a second or two.
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
func (c *Client) backoff(attempt int) bool { return c.backoffAtLeast(attempt, 0) }

// backoffAtLeast is backoff that waits at least floor: the Retry-After of
// a server that refused the attempt with 429 or 503 (capped where it was
// read, retryAfter).
func (c *Client) backoffAtLeast(attempt int, floor time.Duration) bool {
	return sleep(c.ctx, backoffDelay(c.opts.Reconnect.InitialDelay, c.opts.Reconnect.MaxDelay, attempt, true, floor))
}

// syncAll re-lists every kind the session offers and waits for all of them;
// kinds it does not offer become empty and "unsupported".
func (c *Client) syncAll(sess *Session, cause Cause) {
	var waits []<-chan struct{}
	caps := sess.caps()
	now := time.Now()
	for _, spec := range kindTable {
		l := c.lists[spec.kind]
		if spec.offered(caps) {
			waits = append(waits, l.syncer().trigger(cause, now))
		} else {
			l.markUnsupported(cause)
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

// markStale turns every list that had been synced "stale", keeping items.
func (c *Client) markStale() {
	for _, l := range c.lists {
		l.markStale()
	}
}

// Refresh re-lists kind ("" for all kinds the server offers) through the
// same single-flight path as a notification, and waits for the result.
func (c *Client) Refresh(ctx context.Context, kind Kind) error {
	kinds := []Kind{kind}
	if kind == "" {
		kinds = Kinds
	} else if _, ok := specOf(kind); !ok {
		return printf.Errorf("mcplive: refresh: unknown list kind %q", string(kind))
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout*time.Duration(1+len(kinds)))
	defer cancel()
	if _, err := c.session(ctx, "refresh"); err != nil {
		return err
	}
	caps := c.InitializeResult().Capabilities
	var waits []<-chan struct{}
	now := time.Now()
	for _, k := range kinds {
		spec, _ := specOf(k)
		if !spec.offered(caps) {
			if kind != "" {
				return printf.Errorf("mcplive: refresh %s: %w (the server did not declare the %s capability)", string(k), ErrUnsupported, spec.capability)
			}
			continue
		}
		waits = append(waits, c.lists[k].syncer().trigger(CauseRefresh, now))
	}
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return printf.Errorf("mcplive: refresh: %w", ctx.Err())
		}
	}
	var errs []error
	for _, k := range kinds {
		if err := c.lists[k].lastErr(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// session waits until the client is ready and returns the session. It
// fails when ctx ends first or the client closes.
func (c *Client) session(ctx context.Context, method string) (*Session, error) {
	return c.sessionBut(ctx, method, nil)
}

// sessionBut is session, but never failed: the session a request was just
// refused on (its connection ended before the request was written), which
// the client may not have seen end yet.
func (c *Client) sessionBut(ctx context.Context, method string, failed *Session) (*Session, error) {
	for {
		c.mu.Lock()
		state, ch, feedDown := c.state, c.stateCh, c.feedDown
		sess, _ := c.sessions.current()
		c.mu.Unlock()
		switch {
		case state == StateClosed:
			return nil, printf.Errorf("%s: %w (the client is closed)", method, ErrClosed)
		case sess != nil && sess == failed:
			// Not this one again: wait for the client to see it end.
		case state == StateReady && sess != nil,
			state == StateReconnecting && sess != nil && sess == feedDown && sess.rpc.Err() == nil:
			// While only the change feed is re-opened (2026-07-28's
			// listen stream), the session itself is up: calls go out.
			return sess, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errRequestTimeout) {
				return nil, printf.Errorf("%s: not connected within the request timeout (%s): %w", method, string(state), ErrTimeout)
			}
			return nil, printf.Errorf("%s: %w", method, ctx.Err())
		}
	}
}
