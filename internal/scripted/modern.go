package scripted

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// The modern era (MCP 2026-07-28) of the scripted server, switched on with
// Modern before clients connect: it answers server/discover (and refuses
// initialize), holds every subscriptions/listen open after acknowledging
// it, and sends a notification only on the listens whose acknowledged
// filter covers it, tagged with their subscription id, as a server of that
// revision must.

// ModernVersion is the revision the modern scripted server speaks.
const ModernVersion = "2026-07-28"

// ModernOptions shape the modern era of a scripted server.
type ModernOptions struct {
	// Ack narrows what a listen asked for to what the server acknowledges
	// (nil acknowledges the whole request).
	Ack func(requested map[string]json.RawMessage) map[string]json.RawMessage
	// TTLMs and CacheScope go into every list page ("" leaves both out);
	// TTLMs into server/discover's result too (0 leaves it out).
	TTLMs      int
	CacheScope string
	// EmptyCursors makes the second page's cursor "" (valid in this
	// revision: only an absent nextCursor ends a walk), the third's "x"...
	EmptyCursors bool
	// EndIfEmpty ends a listen at once (with its result) when the server
	// acknowledged nothing of it.
	EndIfEmpty bool
	// ToolResult, when set, is the result of every tools/call.
	ToolResult json.RawMessage
	// Answer, when set, computes the result of a tools/call, prompts/get
	// or resources/read (nil: the usual answer). It runs with the
	// server's lock held: it must not call the server's methods.
	Answer func(*Request) json.RawMessage
}

// RawError, returned by a Hook, sends the error object e as the answer.
func RawError(e json.RawMessage) error { return rawError(e) }

type rawError json.RawMessage

func (e rawError) Error() string { return string(e) }

// listen is one open subscriptions/listen.
type listen struct {
	c     *conn
	id    json.RawMessage
	acked map[string]json.RawMessage
}

// Modern switches the server to the modern era. Call it before clients
// connect.
func (s *Server) Modern(o ModernOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modern = &o
}

// Listens returns how many subscriptions/listen are open.
func (s *Server) Listens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.listens)
}

// MinListens returns the fewest listens that were open at any time since
// the first one was acknowledged, but for the times EndListens or a closed
// connection ended them.
func (s *Server) MinListens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.minListens
}

// AwaitListens waits until exactly n listens are open, or until timeout
// (a hang detector, not a budget); it reports whether it saw n.
func (s *Server) AwaitListens(n int, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		if len(s.listens) == n {
			s.mu.Unlock()
			return true
		}
		if s.listenWake == nil {
			s.listenWake = make(chan struct{})
		}
		wake := s.listenWake
		s.mu.Unlock()
		select {
		case <-wake:
		case <-deadline.C:
			return false
		}
	}
}

// noteListens records the count after a change. Called with s.mu held.
func (s *Server) noteListens() {
	if s.listenWake != nil {
		close(s.listenWake)
		s.listenWake = nil
	}
	if !s.anyListen || len(s.listens) < s.minListens {
		s.minListens = len(s.listens)
	}
	s.anyListen = true
}

// EndListens ends every open listen: gracefully with its result (the
// server tears it down), or, when graceful is false, by dropping the
// connections that carry them.
func (s *Server) EndListens(graceful bool) {
	s.mu.Lock()
	ls := s.listens
	s.listens = nil
	s.mu.Unlock()
	for _, l := range ls {
		if !graceful {
			l.c.close()
			continue
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": l.id, "result": map[string]any{
			"resultType": "complete", "_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": l.id},
		}})
		l.c.wmu.Lock()
		_ = l.c.write(b)
		l.c.wmu.Unlock()
	}
}

// startListen acknowledges a listen and keeps it open; it reports false
// when the server is not modern (the request is answered as usual).
func (s *Server) startListen(c *conn, r *Request) bool {
	s.mu.Lock()
	mo := s.modern
	s.mu.Unlock()
	if mo == nil || r.Method != "subscriptions/listen" {
		return false
	}
	var p struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	_ = json.Unmarshal(r.Params, &p)
	acked := p.Notifications
	if mo.Ack != nil {
		acked = mo.Ack(acked)
	}
	if acked == nil {
		acked = map[string]json.RawMessage{}
	}
	l := &listen{c: c, id: r.ID, acked: acked}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": map[string]any{
		"notifications": acked, "_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": r.ID},
	}})
	empty := true
	for k, v := range acked {
		if (k == "resourceSubscriptions" && string(v) != "[]" && string(v) != "null") || string(v) == "true" {
			empty = false
		}
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if empty && mo.EndIfEmpty {
		_ = c.write(b)
		end, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.ID, "result": map[string]any{"resultType": "complete"}})
		_ = c.write(end)
		return true
	}
	s.mu.Lock()
	s.listens = append(s.listens, l)
	s.noteListens()
	s.mu.Unlock()
	_ = c.write(b)
	return true
}

// cancelled ends the listen a client cancelled (notifications/cancelled).
func (s *Server) cancelled(c *conn, params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(params, &p)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, l := range s.listens {
		if l.c == c && string(l.id) == string(p.RequestID) {
			s.listens = append(s.listens[:i:i], s.listens[i+1:]...)
			s.noteListens()
			return
		}
	}
}

// dropListens forgets the listens of a closed connection.
func (s *Server) dropListens(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := s.listens[:0]
	for _, l := range s.listens {
		if l.c != c {
			keep = append(keep, l)
		}
	}
	s.listens = keep
	if s.listenWake != nil {
		close(s.listenWake)
		s.listenWake = nil
	}
}

// filterField names the listen filter entry that covers a notification;
// uri is the resource of a resources/updated.
func filterField(method string) string {
	switch method {
	case "notifications/tools/list_changed":
		return "toolsListChanged"
	case "notifications/prompts/list_changed":
		return "promptsListChanged"
	case "notifications/resources/list_changed":
		return "resourcesListChanged"
	case "notifications/resources/updated":
		return "resourceSubscriptions"
	}
	return ""
}

// modernTargets returns, for a modern server, each connection that gets the
// notification with the message to send it (tagged with the listen's id).
// ok is false for a legacy server.
func (s *Server) modernTargets(method string, params any) (out map[*conn][]byte, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.modern == nil {
		return nil, false
	}
	field := filterField(method)
	var pm map[string]any
	if b, err := json.Marshal(params); err == nil {
		_ = json.Unmarshal(b, &pm)
	}
	uri, _ := pm["uri"].(string)
	out = map[*conn][]byte{}
	for _, l := range s.listens {
		if _, done := out[l.c]; done {
			continue
		}
		covered := false
		switch field {
		case "":
		case "resourceSubscriptions":
			var uris []string
			_ = json.Unmarshal(l.acked[field], &uris)
			for _, u := range uris {
				covered = covered || u == uri
			}
		default:
			covered = string(l.acked[field]) == "true"
		}
		if !covered {
			continue
		}
		p := map[string]any{}
		for k, v := range pm {
			p[k] = v
		}
		p["_meta"] = map[string]any{"io.modelcontextprotocol/subscriptionId": l.id}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": p})
		out[l.c] = b
	}
	return out, true
}

// modernAnswer is the modern server's answer to the methods that differ
// from the legacy one's; ok is false for the others.
func (s *Server) modernAnswer(r *Request) (result any, rerr *rpcError, ok bool) {
	if s.modern == nil {
		return nil, nil, false
	}
	switch r.Method {
	case "server/discover":
		res := map[string]any{
			"resultType":        "complete",
			"supportedVersions": []string{ModernVersion},
			"capabilities":      s.caps,
			"_meta":             map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "scripted", "version": s.serverVersion()}},
		}
		if s.modern.TTLMs != 0 {
			res["ttlMs"] = s.modern.TTLMs
		}
		return res, nil, true
	case "tools/call", "prompts/get", "resources/read":
		if s.modern.Answer != nil {
			if res := s.modern.Answer(r); res != nil {
				return res, nil, true
			}
		}
		if r.Method == "tools/call" && s.modern.ToolResult != nil {
			return s.modern.ToolResult, nil, true
		}
	case "initialize", "ping", "resources/subscribe", "resources/unsubscribe", "logging/setLevel":
		return nil, &rpcError{Code: -32601, Message: "method not found in " + ModernVersion + ": " + r.Method}, true
	}
	return nil, nil, false
}

// modernPage decorates a list page for the modern era: resultType, the
// caching hints, and empty-string cursors when asked for.
func (s *Server) modernPage(page map[string]any, end, total int) {
	mo := s.modern
	page["resultType"] = "complete"
	if mo.CacheScope != "" {
		page["ttlMs"] = mo.TTLMs
		page["cacheScope"] = mo.CacheScope
	}
	if mo.EmptyCursors && end < total {
		page["nextCursor"] = emptyCursor(end, s.pageSize)
	}
}

// emptyCursor encodes offset end as "" for the second page, "x" for the
// third, and so on; decodeCursor reverses it.
func emptyCursor(end, pageSize int) string {
	return strings.Repeat("x", end/pageSize-1)
}

// decodeCursor returns the offset a modern request's cursor names, and
// whether the request carries a cursor at all ("" is one).
func (s *Server) decodeCursor(params json.RawMessage) (int, bool, error) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	_ = json.Unmarshal(params, &p)
	if p.Cursor == nil {
		return 0, false, nil
	}
	if s.modern != nil && s.modern.EmptyCursors {
		if strings.Trim(*p.Cursor, "x") != "" {
			return 0, true, strconv.ErrSyntax
		}
		return (len(*p.Cursor) + 1) * s.pageSize, true, nil
	}
	n, err := strconv.Atoi(*p.Cursor)
	return n, true, err
}

func isRawError(err error) bool {
	_, ok := err.(rawError)
	return ok
}
