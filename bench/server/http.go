package main

import (
	"context"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Streamable HTTP side of the benchmark server: the go-sdk's own
// handler, behind CORS and a wrapper that copies the URL's label and era
// into request headers, where the go-sdk middleware can read them
// (RequestExtra.Header). go-sdk v1.8 has two kinds of it: a stateful one
// (the default: sessions, a GET event stream) speaks 2025-11-25 only (it
// answers server/discover with the 2025 revisions), a stateless one
// (StreamableHTTPOptions.Stateless) speaks 2026-07-28 (and 2025-11-25
// without a GET stream, where no list_changed can reach a client). A
// connection with era=2026-07-28 gets the stateless one, every other the
// stateful one.
//
// One notification per change, at once (see the package doc): notifyHTTP
// sends notifications/tools/list_changed through the go-sdk's own sending
// handler (b.send, under the middleware that drops the delayed one) to
//   - every 2025-11-25 session (registered at initialize): it reaches the
//     client on the session's GET event stream;
//   - every open subscriptions/listen stream (2026-07-28; registered while
//     its request runs), with the stream's subscription id in _meta as the
//     revision requires, copied from the server's acknowledgment.

// labelHeader and eraHeader carry the URL's label and era to the
// middleware; a client's own headers of these names are overwritten.
const (
	labelHeader = "X-Bench-Label"
	eraHeader   = "X-Bench-Era"
)

// listen is one open subscriptions/listen stream.
type listen struct {
	label string
	subID any // the acknowledgment's subscription id; nil until then
}

// httpHandler serves MCP over Streamable HTTP.
func (b *bench) httpHandler() http.Handler {
	server := func(*http.Request) *mcp.Server { return b.srv }
	stateful := mcp.NewStreamableHTTPHandler(server, nil)
	stateless := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cors(w, r) {
			return
		}
		era := r.URL.Query().Get("era")
		r.Header.Set(labelHeader, queryLabel(r))
		r.Header.Set(eraHeader, era)
		if era == modernEra {
			stateless.ServeHTTP(w, r)
		} else {
			stateful.ServeHTTP(w, r)
		}
	})
}

// cors lets a page of another loopback origin use the endpoint (the
// benchmark's own pages are same-origin and need none of it): it allows
// the MCP request headers, exposes Mcp-Session-Id, and answers a preflight
// (reporting true).
func cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	if u, err := url.Parse(origin); err != nil || (u.Hostname() != "127.0.0.1" && u.Hostname() != "localhost" && u.Hostname() != "::1") {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
	if r.Method != http.MethodOptions {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
	h.Set("Access-Control-Allow-Headers", "Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name, Content-Type, Authorization")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// addHTTPSession registers a 2025-11-25 HTTP session at its initialize.
func (b *bench) addHTTPSession(req mcp.Request, label string) {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || req.GetExtra() == nil || req.GetExtra().Header.Get(labelHeader) == "" {
		return // a WebSocket session: notified by frames
	}
	b.mu.Lock()
	b.http[ss] = label
	b.mu.Unlock()
}

// addListen registers a listen stream while its request runs; the
// returned function removes it.
func (b *bench) addListen(req mcp.Request, label string) func() {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || req.GetExtra() == nil || req.GetExtra().Header.Get(labelHeader) == "" {
		return func() {} // over WebSocket: notified by frames
	}
	b.mu.Lock()
	b.listens[ss] = &listen{label: label}
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		delete(b.listens, ss)
		b.mu.Unlock()
	}
}

// acknowledged records the subscription id of a listen stream from the
// server's notifications/subscriptions/acknowledged.
func (b *bench) acknowledged(req mcp.Request) {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || req.GetParams() == nil {
		return
	}
	id := req.GetParams().GetMeta()[mcp.MetaKeySubscriptionID]
	b.mu.Lock()
	if l := b.listens[ss]; l != nil {
		l.subID = id
	}
	b.mu.Unlock()
}

// httpTargets returns the live HTTP sessions and acknowledged listen
// streams with the label target (all when empty), and forgets sessions
// that have ended.
func (b *bench) httpTargets(target string) (sessions []*mcp.ServerSession, listens map[*mcp.ServerSession]any) {
	live := map[*mcp.ServerSession]bool{}
	for ss := range b.srv.Sessions() {
		live[ss] = true
	}
	listens = map[*mcp.ServerSession]any{}
	b.mu.Lock()
	defer b.mu.Unlock()
	for ss, label := range b.http {
		if !live[ss] {
			delete(b.http, ss)
		} else if target == "" || label == target {
			sessions = append(sessions, ss)
		}
	}
	for ss, l := range b.listens {
		if l.subID != nil && (target == "" || l.label == target) {
			listens[ss] = l.subID
		}
	}
	return sessions, listens
}

// notifyHTTP sends one tools/list_changed to every HTTP session and listen
// stream with the label target.
func (b *bench) notifyHTTP(ctx context.Context, target string) {
	sessions, listens := b.httpTargets(target)
	// The context must not be a request's: a notification made in the
	// context of a request goes to that request's stream.
	ctx = context.WithoutCancel(ctx)
	for _, ss := range sessions {
		req := &mcp.ServerRequest[*mcp.ToolListChangedParams]{Session: ss, Params: &mcp.ToolListChangedParams{}}
		_, _ = b.send(ctx, "notifications/tools/list_changed", req) // a closed session just misses it
	}
	for ss, id := range listens {
		p := &mcp.ToolListChangedParams{Meta: mcp.Meta{mcp.MetaKeySubscriptionID: id}}
		req := &mcp.ServerRequest[*mcp.ToolListChangedParams]{Session: ss, Params: p}
		_, _ = b.send(ctx, "notifications/tools/list_changed", req)
	}
}

// countHTTP counts the HTTP sessions and listen streams with the label
// target.
func (b *bench) countHTTP(target string) int {
	sessions, listens := b.httpTargets(target)
	return len(sessions) + len(listens)
}
