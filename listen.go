package mcplive

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/printf"
)

// The modern era's change feed. A server of 2026-07-28 "MUST NOT send
// notification types the client has not explicitly requested": list
// changes and resource updates reach a client only on a
// subscriptions/listen stream it opened, a long-lived request whose
// notifications (acknowledged first, then list_changed and
// resources/updated) arrive like any other and go through the same
// notification table to the same change feed (session.go).
//
// A session has one current stream. It asks for the list changes of every
// kind the server offers and the updates of every resource that has
// subscribers. A change of the resources is a new stream, opened and
// acknowledged before the old one is cancelled: no window in which an
// update can be missed. A server that answers the cancellation of a
// replaced stream with a result has run its clean-up after the new stream
// registered; go-sdk v1.8.0's then drops the new stream's registrations
// too (one per session, not per stream): such a session replaces its
// streams one after the other from then on, and re-lists across the gap
// (relistenSerially). When the current stream ends by the server's doing
// (a graceful result or a drop), nothing feeds the lists any more: the
// session's feedLost channel closes, and the Client re-opens the stream and
// re-lists every kind (changes may have been missed meanwhile).

// listenStream is one subscriptions/listen request.
type listenStream struct {
	id      atomic.Int64
	cancel  context.CancelFunc
	ackCh   chan struct{}                // closed by the acknowledgment
	ack     atomic.Pointer[listenFilter] // what the server agreed to honour
	done    chan struct{}                // closed when the request has returned
	err     error                        // why it ended (nil: a graceful result); set before done
	stopped atomic.Bool                  // ended by this client: not a loss
	watch   *feedWatch
	// byMessage: the transport cancels with notifications/cancelled on the
	// one connection (not Streamable HTTP, where closing the request's
	// stream is the cancellation): stop keeps the request pending to hear
	// the server's answer to it, for up to a request timeout (timer).
	byMessage bool
	timer     *time.Timer
}

// listenFilter is a subscriptions/listen filter as sent and acknowledged:
// "toolsListChanged", "promptsListChanged", "resourcesListChanged" (bool)
// and "resourceSubscriptions" ([]string).
type listenFilter map[string]RawMessage

func (f listenFilter) has(field string) bool { return string(f[field]) == "true" }

func (f listenFilter) uris() []string {
	var uris []string
	if raw := f["resourceSubscriptions"]; jsontext.Check(raw) == nil {
		_ = jsontext.DecodeField(raw[jsontext.SkipWS(raw, 0):], "listenFilter", jsontext.Field{Name: "resourceSubscriptions", Dst: &uris})
	}
	return uris
}

// decodeListenFilter reads a filter as encoding/json reads it into a
// listenFilter (null leaves *f as it is).
func decodeListenFilter(val []byte, f *listenFilter) error {
	switch val[0] {
	case 'n':
		return nil
	case '{':
	default:
		return jsontext.TypeError(val, "notifications", "mcplive.listenFilter")
	}
	if *f == nil {
		*f = listenFilter{}
	}
	_, err := jsontext.ForEachMember(val, func(key string, v []byte) error {
		(*f)[key] = append(RawMessage(nil), v...)
		return nil
	})
	return err
}

// ackParams are the params of notifications/subscriptions/acknowledged.
type ackParams struct {
	Notifications listenFilter `json:"notifications"`
	Meta          struct {
		ID RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
	} `json:"_meta"`
}

// decodeAckParams reads them by hand, as json.Unmarshal(raw, p) would
// (jsonwire.go).
func decodeAckParams(raw []byte, p *ackParams) error {
	return jsontext.Decode(raw, "params", []jsontext.Field{
		{Name: "notifications", Dst: func(v []byte) error { return decodeListenFilter(v, &p.Notifications) }},
		{Name: "_meta", Dst: func(v []byte) error {
			return jsontext.DecodeFields(v, "_meta", []jsontext.Field{{Name: "io.modelcontextprotocol/subscriptionId", Dst: &p.Meta.ID}})
		}},
	})
}

// listenParams are the params of subscriptions/listen: the filter
// (listenFilter's values: true, or a list of URIs) and the request's
// _meta (withMeta sets it). jsonrpc.MarshalMessage writes them as json.Marshal
// would write {"notifications": filter, "_meta": meta}, without it.
type listenParams struct {
	filter  map[string]any
	meta    RawMessage
	version string // the protocol version meta names
}

func (p listenParams) Describe(m *jsonrpc.Outgoing) { m.Version = p.version }

// MarshalJSON: see listParams.MarshalJSON.
func (p listenParams) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := p.WriteParams(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (p listenParams) WriteParams(b *bytes.Buffer) error {
	b.WriteByte('{')
	if p.meta != nil {
		b.WriteString(`"_meta":`)
		b.Write(p.meta)
		b.WriteByte(',')
	}
	b.WriteString(`"notifications":{`)
	for i, k := range slices.Sorted(maps.Keys(p.filter)) {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, k)
		b.WriteByte(':')
		switch v := p.filter[k].(type) {
		case bool:
			b.WriteString(strconv.FormatBool(v))
		case []string:
			if v == nil {
				b.WriteString("null")
			} else {
				appendStrings(b, v)
			}
		default:
			j, err := marshalJSON(v)
			if err != nil {
				return err
			}
			b.Write(j)
		}
	}
	b.WriteString("}}")
	return nil
}

func (f listenFilter) empty() bool {
	for k := range f {
		if k == "resourceSubscriptions" {
			if len(f.uris()) > 0 {
				return false
			}
		} else if f.has(k) {
			return false
		}
	}
	return true
}

// feedWatch is closed when the feed that a Client opened is lost.
type feedWatch struct {
	lost chan struct{}
	once sync.Once
}

func (w *feedWatch) signal() { w.once.Do(func() { close(w.lost) }) }

// openFeed opens the change feed of the session for a Client, before its
// first full list of every kind, and returns once the server has
// acknowledged it. The returned channel closes when the feed is lost. In
// the legacy era the notifications need no stream: it returns a channel
// that never closes.
func (s *Session) openFeed(ctx context.Context) (lost <-chan struct{}, err error) {
	if !s.modern {
		return nil, nil
	}
	s.feedMu.Lock()
	defer s.feedMu.Unlock()
	w := &feedWatch{lost: make(chan struct{})}
	if err := s.relisten(ctx, w); err != nil {
		return nil, err
	}
	return w.lost, nil
}

// refilter replaces the current stream with one for the current resource
// subscribers: the new one is acknowledged before the old one ends.
func (s *Session) refilter(ctx context.Context) error {
	s.feedMu.Lock()
	defer s.feedMu.Unlock()
	s.mu.Lock()
	cur := s.listen
	s.mu.Unlock()
	w := &feedWatch{lost: make(chan struct{})} // a bare Session's: nobody waits
	if cur != nil {
		w = cur.watch
	}
	return s.relisten(ctx, w)
}

// relisten opens a stream and makes it the current one. Called with
// feedMu held. The new stream is acknowledged before the old one ends,
// unless the server is known to end a stream by cleaning up after every
// stream of the connection (listenSerial): then one after the other.
func (s *Session) relisten(ctx context.Context, w *feedWatch) error {
	s.mu.Lock()
	cur := s.listen
	s.mu.Unlock()
	if cur != nil && s.listenSerial.Load() {
		return s.relistenSerially(ctx, cur, w)
	}
	st, err := s.startListen(ctx, s.listenFilter(), w)
	if err != nil {
		return err
	}
	s.mu.Lock()
	old := s.listen
	s.listen = st
	s.mu.Unlock()
	if old != nil {
		old.stop(s)
	}
	if st.acked().empty() {
		s.opts.Logger.Info("mcplive: the server acknowledged no notifications on subscriptions/listen: no list is live")
	}
	return nil
}

// relistenSerially replaces old by a new stream once the server has
// answered old's cancellation, for a server that answers a cancelled stream
// with a result (its handler ran to its end) and that has been seen to
// drop a newer stream's registrations when it did (go-sdk v1.8.0 over one
// connection keeps one registration per session, and a stream's clean-up
// deletes it whichever stream made it: mcp/server.go, subscriptionsListen).
// Nothing listens between the two: the lists that the new stream feeds are
// re-listed, and the subscribers of a resource that both carry are told it
// may have changed (changes may have been missed meanwhile).
func (s *Session) relistenSerially(ctx context.Context, old *listenStream, w *feedWatch) error {
	old.stop(s)
	select {
	case <-old.done: // answered, or given up after a request timeout (stop)
	case <-ctx.Done():
	}
	st, err := s.startListen(ctx, s.listenFilter(), w)
	if err != nil {
		// Nothing feeds the lists: the Client re-opens the feed.
		s.mu.Lock()
		if s.listen == old {
			s.listen = nil
		}
		s.mu.Unlock()
		if !s.closing.Load() {
			w.signal()
		}
		return err
	}
	s.mu.Lock()
	s.listen = st
	s.mu.Unlock()
	at := time.Now()
	var kinds []Kind
	for _, spec := range kindTable {
		if st.acked().has(spec.listenField) {
			kinds = append(kinds, spec.kind)
		}
	}
	if len(kinds) > 0 {
		s.feed.listChanged(kinds, at)
	}
	if _, direct := s.feed.(directFeed); !direct {
		// A Client's feed queues the subscribers (a bare Session's calls
		// them here, under its subscription lock: not from here).
		uris := old.acked().uris()
		for _, uri := range st.acked().uris() {
			if slices.Contains(uris, uri) {
				s.feed.resourceUpdated(uri)
			}
		}
	}
	return nil
}

// listenFilter asks for the list changes of every kind the server offers
// and for the updates of every resource with subscribers.
func (s *Session) listenFilter() map[string]any {
	caps := s.caps()
	f := map[string]any{}
	for _, spec := range kindTable {
		if spec.offered(caps) {
			f[spec.listenField] = true
		}
	}
	if uris := s.subs.uris(); len(uris) > 0 && caps.Resources != nil {
		f["resourceSubscriptions"] = uris
	}
	return f
}

// startListen sends subscriptions/listen and waits for its
// acknowledgment.
func (s *Session) startListen(ctx context.Context, filter map[string]any, w *feedWatch) (*listenStream, error) {
	s.mu.Lock()
	if s.closing.Load() {
		// Close waits for the streams started before it (listenWG):
		// none may start beside that wait.
		s.mu.Unlock()
		return nil, printf.Errorf("mcplive: %s: %w", methods.Listen, jsonrpc.ConnLost(nil))
	}
	s.listenWG.Add(1)
	s.mu.Unlock()
	lctx, cancel := context.WithCancel(context.Background())
	st := &listenStream{cancel: cancel, ackCh: make(chan struct{}), done: make(chan struct{}), watch: w}
	_, overHTTP := s.rpc.Conn().(*httpConn)
	st.byMessage = !overHTTP
	go func() {
		defer s.listenWG.Done()
		_, err := s.requestLong(lctx, methods.Listen, listenParams{filter: filter}, func(id int64) {
			st.id.Store(id)
			s.mu.Lock()
			s.listens[id] = st
			s.mu.Unlock()
		})
		s.mu.Lock()
		delete(s.listens, st.id.Load())
		current := s.listen == st
		s.mu.Unlock()
		st.err = err
		close(st.done)
		cancel()
		s.mu.Lock()
		if st.timer != nil {
			st.timer.Stop()
		}
		s.mu.Unlock()
		if err == nil && !current && st.stopped.Load() && st.byMessage && !s.closing.Load() && s.listenSerial.CompareAndSwap(false, true) {
			// The server answered the cancellation of a stream that a
			// newer one replaced with a result: it ran the stream's
			// handler to its end, clean-up included, after the newer
			// stream was acknowledged. go-sdk v1.8.0 then deletes the
			// newer stream's registrations too (relistenSerially): from
			// now on streams are replaced one after the other, and the
			// current one is replaced so at once.
			s.opts.Logger.Info("mcplive: the server answered a cancelled subscriptions/listen stream: its streams are replaced one after the other from now on")
			s.repairListen()
		}
		if current && !st.stopped.Load() && !st.acked().empty() && !s.closing.Load() {
			if err == nil {
				s.opts.Logger.Warn("mcplive: the server ended the subscriptions/listen stream")
			} else {
				s.opts.Logger.Warn("mcplive: the subscriptions/listen stream ended", "err", err.Error())
			}
			st.watch.signal()
		}
	}()
	select {
	case <-st.ackCh:
		return st, nil
	case <-st.done:
		if st.err != nil {
			return nil, methodErr(methods.Listen, st.err)
		}
		return nil, printf.Errorf("mcplive: %s: %w", methods.Listen, jsonrpc.ProtocolError("the server ended the stream without acknowledging it"))
	case <-ctx.Done():
		st.stop(s)
		return nil, printf.Errorf("mcplive: %s: %w", methods.Listen, ctx.Err())
	}
}

// acked is what the server agreed to honour; empty before it did.
func (st *listenStream) acked() listenFilter {
	if f := st.ack.Load(); f != nil {
		return *f
	}
	return listenFilter{}
}

// repairListen replaces the current stream one after the other
// (relistenSerially), from a stream's goroutine (listenWG).
func (s *Session) repairListen() {
	s.feedMu.Lock()
	defer s.feedMu.Unlock()
	s.mu.Lock()
	cur := s.listen
	s.mu.Unlock()
	if cur == nil || s.closing.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.RequestTimeout)
	defer cancel()
	if err := s.relisten(ctx, cur.watch); err != nil && !s.closing.Load() {
		s.opts.Logger.Warn("mcplive: could not re-open the subscriptions/listen stream", "err", err.Error())
	}
}

// stop cancels the stream (notifications/cancelled): this client ended it.
// Where cancelling is a message on the connection, the request stays
// pending to hear the server's answer, for up to a request timeout.
func (st *listenStream) stop(s *Session) {
	if !st.stopped.CompareAndSwap(false, true) {
		return
	}
	id := st.id.Load()
	if !st.byMessage || id == 0 {
		st.cancel()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-st.done:
		return // answered already
	default:
	}
	s.rpc.CancelPending(id)
	st.timer = time.AfterFunc(s.opts.RequestTimeout, func() {
		s.rpc.Forget(id) // told already: not again
		st.cancel()
	})
}

// onAcknowledged hands notifications/subscriptions/acknowledged to the
// stream it names (io.modelcontextprotocol/subscriptionId: the listen
// request's id); a server that leaves the id out acknowledges the newest
// stream still waiting.
func (s *Session) onAcknowledged(m *jsonrpc.Message) {
	var p ackParams
	if err := decodeAckParams(m.Params, &p); err != nil {
		s.opts.Logger.Warn("mcplive: bad notifications/subscriptions/acknowledged", "err", err.Error())
		return
	}
	if p.Notifications == nil {
		p.Notifications = listenFilter{}
	}
	s.mu.Lock()
	var st *listenStream
	if id, err := strconv.ParseInt(string(bytesTrimQuotes(p.Meta.ID)), 10, 64); err == nil {
		st = s.listens[id]
	} else {
		for id, cand := range s.listens {
			if st == nil || id > st.id.Load() {
				st = cand
			}
		}
	}
	s.mu.Unlock()
	if st == nil {
		s.opts.Logger.Warn("mcplive: an acknowledgment for no open subscriptions/listen stream", "id", string(p.Meta.ID))
		return
	}
	if st.ack.CompareAndSwap(nil, &p.Notifications) { // acknowledged twice: the first one counts
		close(st.ackCh)
	}
}

func bytesTrimQuotes(b []byte) []byte {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return b[1 : len(b)-1]
	}
	return b
}

// liveKind reports whether the server tells this session when kind k
// changes: always in the legacy era (when it offers the kind), in the
// modern era when the current stream acknowledged it.
func (s *Session) liveKind(spec kindSpec) bool {
	if !spec.offered(s.caps()) {
		return false
	}
	if !s.modern {
		// Notifications come whenever the server sends them, unless the
		// transport has no way for it to send them between requests.
		p, ok := s.rpc.Conn().(jsonrpc.Pusher)
		return !ok || p.Pushes()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listen != nil && s.listen.acked().has(spec.listenField)
}

// ackedURI reports whether the current stream carries uri's updates.
func (s *Session) ackedURI(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listen != nil && slices.Contains(s.listen.acked().uris(), uri)
}

// subscribeSend starts the updates of uri on the server: resources/subscribe
// in the legacy era, a new listen stream that includes it in the modern era.
func (s *Session) subscribeSend(ctx context.Context, uri string) error {
	if !s.modern {
		_, err := s.request(ctx, methods.Subscribe, map[string]any{"uri": uri})
		return err
	}
	if err := s.refilter(ctx); err != nil {
		return err
	}
	if !s.ackedURI(uri) {
		return printf.Errorf("%s: %w (the server did not acknowledge updates of %s on subscriptions/listen)", methods.Subscribe, ErrUnsupported, uri)
	}
	return nil
}

// unsubscribeSend stops the updates of uri on the server.
func (s *Session) unsubscribeSend(ctx context.Context, uri string) error {
	if !s.modern {
		_, err := s.request(ctx, methods.Unsubscribe, map[string]any{"uri": uri})
		return err
	}
	return s.refilter(ctx)
}
