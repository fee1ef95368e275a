package mcplive

import (
	"slices"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/methods"
)

// The change feed: a session turns what it hears into invalidations, "kind
// K may have changed" and "resource U was updated", and hands them to its
// feed. A Client's feed re-lists (syncer.trigger) and calls resource
// subscribers; a bare Session's feed calls its resource subscribers only.
// Today's source is the 2025-11-25 notifications below; every other source
// (a subscriptions/listen stream, an HTTP event stream) ends in the same
// two calls.
type changeFeed interface {
	// listChanged says that kinds may have changed; at is when the news
	// arrived.
	listChanged(kinds []Kind, at time.Time)
	// resourceUpdated says that the contents of uri changed.
	resourceUpdated(uri string)
}

// notificationHandlers maps each server notification this package acts on
// to its handler, as go-sdk's clientMethodInfos. Handlers run on the
// session's dispatcher, in arrival order, before Options.OnNotification.
// The list_changed notifications come from the kind registry (kindTable).
var notificationHandlers = map[string]func(s *Session, m *jsonrpc.Message){
	methods.NotifyMessage:          (*Session).onLog,
	methods.NotifyResourceUpdated:  (*Session).onResourceUpdated,
	methods.NotifyToolsChanged:     (*Session).onListChanged,
	methods.NotifyPromptsChanged:   (*Session).onListChanged,
	methods.NotifyResourcesChanged: (*Session).onListChanged,
	methods.NotifyAcknowledged:     (*Session).onAcknowledged,
}

// livenessFeed is a feed that records which lists are live (a Client):
// told when the transport's way of telling changes went or came back.
type livenessFeed interface{ livenessChanged(s *Session) }

// handleNotification runs on the dispatcher goroutine, in arrival order.
func (s *Session) handleNotification(m *jsonrpc.Message) {
	if m.Liveness {
		if f, ok := s.feed.(livenessFeed); ok {
			f.livenessChanged(s)
		}
		return
	}
	if m.Gap {
		s.onEventsMissed(m)
		return
	}
	if h := notificationHandlers[m.Method]; h != nil {
		h(s, m)
	}
	if s.opts.OnNotification != nil {
		s.opts.OnNotification(m.Method, m.Params)
	}
}

// observe runs on the read loop for every notification, in order with the
// responses: it routes a notifications/progress to the call that waits for
// it (withProgress). It must not block.
func (s *Session) observe(m *jsonrpc.Message) {
	if m.Method != methods.NotifyProgress {
		return
	}
	var token RawMessage
	var p Progress
	if decodeProgress(m.Params, &token, &p) != nil {
		return
	}
	s.mu.Lock()
	q := s.progress[string(token)]
	s.mu.Unlock()
	if q != nil {
		q.Push(progressEvent{p: p})
	}
}

func (s *Session) onLog(m *jsonrpc.Message) {
	if s.opts.OnLog == nil {
		return
	}
	var lm LogMessage
	if decodeLogMessage(m.Params, &lm) == nil {
		s.opts.OnLog(lm)
	}
}

func (s *Session) onResourceUpdated(m *jsonrpc.Message) {
	var uri string
	if jsontext.Decode(m.Params, "params", []jsontext.Field{{Name: "uri", Dst: &uri}}) == nil {
		s.feed.resourceUpdated(uri)
	}
}

// onListChanged invalidates the kinds of a list_changed. It is honoured
// even when the server did not declare listChanged, as long as it offers
// the kind at all (servers forget the flag).
func (s *Session) onListChanged(m *jsonrpc.Message) {
	kinds := kindsInvalidatedBy(m.Method)
	caps := s.caps()
	for _, k := range kinds {
		if spec, _ := specOf(k); !spec.offered(caps) {
			// The kinds of one notification share their capability
			// (resources and templates): log the notification once.
			s.opts.Logger.Warn("mcplive: ignored a list_changed for a kind the server does not offer", "method", m.Method)
			return
		}
	}
	s.feed.listChanged(kinds, m.ArrivedAt())
}

// onEventsMissed turns a gap in the transport's messages (jsonrpc.EntryReader) into
// the invalidation of every kind: each list_changed of the kind registry
// is handled as if it had arrived at the gap (Options.OnNotification sees
// it too).
func (s *Session) onEventsMissed(gap *jsonrpc.Message) {
	var seen []string
	for _, spec := range kindTable {
		if slices.Contains(seen, spec.notification) {
			continue
		}
		seen = append(seen, spec.notification)
		s.handleNotification(&jsonrpc.Message{JSONRPC: "2.0", Method: spec.notification, Arrived: gap.Arrived})
	}
}

// directFeed is the feed of a Session used on its own: no lists to
// re-list; resource subscribers are called on the dispatcher.
type directFeed struct{ subs *resourceSubs }

func (directFeed) listChanged([]Kind, time.Time) {}

func (f directFeed) resourceUpdated(uri string) {
	for _, fn := range f.subs.fns(uri) {
		fn(uri)
	}
}
