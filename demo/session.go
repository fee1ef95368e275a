package main

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplive/mcplive/mcpws"
)

// session is one connection (a WebSocket, a Streamable HTTP session of
// 2025-11-25, or the requests of one ?conn= key in 2026-07-28): its own mcp.Server, whose features
// are the subset of the catalog this connection may see. Every field but
// id, server and the fixed connection facts is guarded by demo.mu.
type session struct {
	id        string // "c1", "c2", … (whoami, control API)
	server    *mcp.Server
	transport string // transportWebSocket or transportHTTP
	remote    string
	origin    string
	since     time.Time
	// key is the ?conn= of a Streamable HTTP 2026-07-28 connection (see
	// http.go); "" for the others. shared: a 2026-07-28 connection without
	// ?conn=, shared by every such client with the same token.
	key    string
	shared bool
	// refs counts its requests in flight (2026-07-28 over HTTP); idle
	// forgets it after the last one ended. Guarded by demo.mu.
	refs int
	idle *time.Timer

	user string // "" while anonymous
	role role

	// What is registered on server now, to diff against what it should be.
	tools     map[string]*toolDef
	prompts   map[string]*promptDef
	resources map[string]*resourceDef
	templates map[string]*templateDef
}

// connection is a session as the control API shows it.
type connection struct {
	ID          string    `json:"id"`
	User        string    `json:"user,omitempty"`
	LoggedIn    bool      `json:"loggedIn"`
	Role        string    `json:"role"`      // viewer, editor or admin
	Transport   string    `json:"transport"` // websocket or http
	Shared      bool      `json:"shared,omitempty"`
	Remote      string    `json:"remote"`
	Origin      string    `json:"origin,omitempty"`
	ConnectedAt time.Time `json:"connectedAt"`
	Tools       []string  `json:"tools"`
	Prompts     []string  `json:"prompts"`
}

type connectionsOut struct {
	Connections []connection `json:"connections"`
	// Opened counts every connection opened since the server started, closed
	// ones too: what a test of "one session, not two" reads.
	Opened int `json:"opened"`
}

// newServer is the mcpws server factory: one server per WebSocket
// connection, so that login and role changes reach that connection only.
func (d *demo) newServer(r *http.Request) *mcp.Server {
	user := ""
	if token := r.URL.Query().Get("token"); token != "" {
		u, ok := userForToken(token)
		if !ok {
			d.log.Warn("connection refused: unknown token", "remote", r.RemoteAddr)
			return nil
		}
		user = u
	}
	s := d.openSession(r, user, transportWebSocket, "", "session", mcpws.ConnectionID(r.Context()))
	s.server.AddReceivingMiddleware(mcpws.ListenOverlap())
	context.AfterFunc(r.Context(), func() { d.closeSession(s, "") })
	return s.server
}

// Transports, as the control API names them.
const (
	transportWebSocket = "websocket"
	transportHTTP      = "http"
	transportStdio     = "stdio"
)

// openSession registers a new connection with its own go-sdk server. sid,
// when not empty, is the session id the server hands out (Streamable
// HTTP, 2025-11-25). logAttrs are added to the "connection opened" line.
func (d *demo) openSession(r *http.Request, user, transport, sid string, logAttrs ...any) *session {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.nextID++
	s := &session{
		id:        fmt.Sprintf("c%d", d.nextID),
		transport: transport,
		remote:    r.RemoteAddr,
		origin:    r.Header.Get("Origin"),
		since:     time.Now(),
		user:      user,
		role:      roleViewer,
		tools:     map[string]*toolDef{},
		prompts:   map[string]*promptDef{},
		resources: map[string]*resourceDef{},
		templates: map[string]*templateDef{},
	}
	var sessionID func() string
	if sid != "" {
		sessionID = func() string { return sid }
	}
	s.server = mcp.NewServer(&mcp.Implementation{Name: "mcplive-demo", Title: "mcplive demo server", Version: "0.1.0"}, &mcp.ServerOptions{
		Instructions: "A demo of live MCP lists. Call whoami for this connection's id; login (alice/wonderland) unlocks more tools.",
		PageSize:     d.cfg.PageSize,
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Logging:     &mcp.LoggingCapabilities{},
			Completions: &mcp.CompletionCapabilities{},
		},
		CompletionHandler: d.complete,
		SubscribeHandler: func(ctx context.Context, req *mcp.SubscribeRequest) error {
			return d.subscribe(s, req.Params.URI, true)
		},
		UnsubscribeHandler: func(ctx context.Context, req *mcp.UnsubscribeRequest) error {
			return d.subscribe(s, req.Params.URI, false)
		},
		GetSessionID:              sessionID,
		SupportedProtocolVersions: d.cfg.Revisions,
	})
	d.sync(s)
	d.sessions[s.id] = s
	attrs := append([]any{"conn", s.id, "transport", transport, "user", s.user, "remote", s.remote, "origin", s.origin}, logAttrs...)
	d.log.Info("connection opened", attrs...)
	return s
}

// closeSession forgets a connection (once; later calls do nothing).
func (d *demo) closeSession(s *session, why string) {
	d.mu.Lock()
	if d.sessions[s.id] != s {
		d.mu.Unlock()
		return
	}
	delete(d.sessions, s.id)
	d.mu.Unlock()
	attrs := []any{"conn", s.id, "transport", s.transport, "user", s.user, "duration", time.Since(s.since).Round(time.Millisecond)}
	if why != "" {
		attrs = append(attrs, "why", why)
	}
	d.log.Info("connection closed", attrs...)
}

// subscribe accepts resources/subscribe for online resources only.
func (d *demo) subscribe(s *session, uri string, on bool) error {
	if !on {
		d.log.Info("resource unsubscribed", "conn", s.id, "uri", uri)
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range d.resources {
		if r.uri == uri && r.online {
			d.log.Info("resource subscribed", "conn", s.id, "uri", uri)
			return nil
		}
	}
	return mcp.ResourceNotFoundError(uri)
}

// canSee reports whether s may see a feature with this access and role.
// d.mu must be held.
func (s *session) canSee(acc access, minRole role) bool {
	switch acc {
	case accessAnonymous:
		if s.user != "" {
			return false
		}
	case accessLoggedIn:
		if s.user == "" {
			return false
		}
	}
	return s.role >= minRole
}

// sync brings s's server in line with the catalog and s's login and role:
// features it should no longer see are removed, new ones added. go-sdk sends
// the matching list_changed (debounced by 10 ms). d.mu must be held.
func (d *demo) sync(s *session) {
	var drop []string
	want := map[string]*toolDef{}
	for _, t := range d.allTools() {
		if t.enabled && s.canSee(t.access, t.minRole) {
			want[t.name] = t
		}
	}
	for name, t := range s.tools {
		if want[name] != t {
			drop = append(drop, name)
			delete(s.tools, name)
		}
	}
	if len(drop) > 0 {
		s.server.RemoveTools(drop...)
	}
	for name, t := range want {
		if s.tools[name] == nil {
			t.register(s.server, d, s)
			s.tools[name] = t
		}
	}

	drop = drop[:0]
	for name, p := range s.prompts {
		if !p.enabled || !s.canSee(p.access, p.minRole) {
			drop = append(drop, name)
			delete(s.prompts, name)
		}
	}
	if len(drop) > 0 {
		s.server.RemovePrompts(drop...)
	}
	for _, p := range d.prompts {
		if p.enabled && s.canSee(p.access, p.minRole) && s.prompts[p.prompt.Name] == nil {
			p.register(s.server, d)
			s.prompts[p.prompt.Name] = p
		}
	}

	drop = drop[:0]
	for uri, r := range s.resources {
		if !r.online {
			drop = append(drop, uri)
			delete(s.resources, uri)
		}
	}
	if len(drop) > 0 {
		s.server.RemoveResources(drop...)
	}
	for _, r := range d.resources {
		if r.online && s.resources[r.uri] == nil {
			r.register(s.server, d)
			s.resources[r.uri] = r
		}
	}

	drop = drop[:0]
	for ut, t := range s.templates {
		if !t.online {
			drop = append(drop, ut)
			delete(s.templates, ut)
		}
	}
	if len(drop) > 0 {
		s.server.RemoveResourceTemplates(drop...)
	}
	for _, t := range d.templates {
		if t.online && s.templates[t.uriTemplate] == nil {
			t.register(s.server, d)
			s.templates[t.uriTemplate] = t
		}
	}
}

// syncAll syncs every connection. d.mu must be held.
func (d *demo) syncAll() {
	for _, s := range d.sessions {
		d.sync(s)
	}
}

// allTools returns the built-in tools, then the extras by name. d.mu must be held.
func (d *demo) allTools() []*toolDef {
	out := slices.Clone(d.tools)
	for _, name := range slices.Sorted(maps.Keys(d.extras)) {
		out = append(out, d.extras[name])
	}
	return out
}

// setUser logs s in (user != "") or out and updates its lists.
func (d *demo) setUser(s *session, user string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s.user == user {
		return
	}
	if user == "" {
		d.log.Info("logout", "conn", s.id, "user", s.user)
	} else {
		d.log.Info("login", "conn", s.id, "user", user)
	}
	s.user = user
	d.sync(s)
}

// setRole changes the role of connection id and updates its lists.
func (d *demo) setRole(id string, r role) (connection, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.sessions[id]
	if s == nil {
		return connection{}, false
	}
	if s.role != r {
		d.log.Info("role changed", "conn", id, "from", s.role, "to", r)
		s.role = r
		d.sync(s)
	}
	return s.view(), true
}

// view returns s as the control API shows it. d.mu must be held.
func (s *session) view() connection {
	c := connection{ID: s.id, User: s.user, LoggedIn: s.user != "", Role: s.role.String(), Transport: s.transport, Shared: s.shared, Remote: s.remote,
		Origin: s.origin, ConnectedAt: s.since.UTC(), Tools: []string{}, Prompts: []string{}}
	for name := range s.tools {
		c.Tools = append(c.Tools, name)
	}
	for name := range s.prompts {
		c.Prompts = append(c.Prompts, name)
	}
	slices.Sort(c.Tools)
	slices.Sort(c.Prompts)
	return c
}

// connections lists every connection, oldest first.
// connectionsOut is what GET /control/connections answers.
func (d *demo) connectionsOut() connectionsOut {
	d.mu.Lock()
	opened := d.nextID
	d.mu.Unlock()
	// Read after the count: a connection opened in between is in both.
	return connectionsOut{Connections: d.connections(), Opened: opened}
}

func (d *demo) connections() []connection {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := []connection{}
	for _, s := range d.sessions {
		out = append(out, s.view())
	}
	slices.SortFunc(out, func(a, b connection) int {
		if c := a.ConnectedAt.Compare(b.ConnectedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}
