package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplive/mcplive/mcpws"
)

//go:embed static
var staticFS embed.FS

// config is everything the flags set; tests fill it directly.
type config struct {
	Addr         string        // listen address (main only)
	JSDir        string        // the built npm package, served at /js/
	StaticDir    string        // serve the page from this folder instead of the embedded copy
	AdminToken   string        // control API token; "" = generate one
	AllowOrigins []string      // extra Origin patterns for /mcp
	PageSize     int           // items per list page; 0 = 5
	Churn        time.Duration // toggle resources on a timer; 0 = off
	Stdio        bool          // serve one connection over stdin/stdout (main only)
	// IdleTimeout forgets a 2026-07-28 Streamable HTTP connection this long
	// after its last request ended; 0 = 1 minute.
	IdleTimeout time.Duration
	// SessionTimeout ends a 2025-11-25 Streamable HTTP session this long
	// after its last POST; 0 = 5 minutes.
	SessionTimeout time.Duration
	Logger         *slog.Logger // nil = discard
	// Revisions narrows the protocol revisions the server speaks (e.g.
	// only "2025-11-25", to watch a client fall back); empty = all that
	// go-sdk speaks.
	Revisions []string
	// AuthIssuer, when set, adds the protected endpoint /protected/mcp
	// (protected.go): tokens of this authorization server
	// (authserver/server.mjs), introspected with AuthSecret.
	AuthIssuer, AuthSecret string
}

// defaultOrigins are the Origin patterns /mcp accepts besides its own
// origin: pages on localhost, on any port (dev servers, test runners).
var defaultOrigins = []string{
	"localhost", "localhost:*",
	"127.0.0.1", "127.0.0.1:*",
	`\[::1\]`, `\[::1\]:*`,
}

// demo is the demo server: the catalog shared by every connection, the
// connections, and the HTTP handler serving /mcp, /control/, /js/ and the page.
type demo struct {
	cfg        config
	log        *slog.Logger
	adminToken string
	started    time.Time
	mcp        *mcpws.Handler             // /mcp over WebSocket
	legacyHTTP *mcp.StreamableHTTPHandler // /mcp over Streamable HTTP, 2025-11-25 (sessions)
	refuser    *mcp.Server                // answers 2026-07-28 requests when -revisions leaves it out
	modernHTTP *mcp.StreamableHTTPHandler // /mcp over Streamable HTTP, 2026-07-28 (stateless)
	origins    []string                   // Origin patterns /mcp accepts besides its own origin
	handler    http.Handler
	mux        *http.ServeMux  // handler's routes (enableProtected adds to them)
	ctx        context.Context // ends at shutdown: Streamable HTTP requests in flight
	cancel     context.CancelFunc
	wg         sync.WaitGroup // goroutines that watch 2025-11-25 HTTP sessions

	mu             sync.Mutex
	nextID         int
	sessions       map[string]*session
	bySID          map[string]*session // Streamable HTTP 2025-11-25, by Mcp-Session-Id
	byKey          map[string]*session // Streamable HTTP 2026-07-28, by ?conn= key
	closing        bool
	tools          []*toolDef // built-in, in catalog order
	toolByName     map[string]*toolDef
	extras         map[string]*toolDef // added through the control API
	prompts        []*promptDef
	resources      []*resourceDef
	resourceByName map[string]*resourceDef
	templates      []*templateDef

	churnMu       sync.Mutex
	churnInterval time.Duration
	churnStop     context.CancelFunc
	churnDone     chan struct{}
}

// newDemo builds a demo server; serve d.handler, and call d.shutdown at the end.
func newDemo(cfg config) (*demo, error) {
	if cfg.PageSize <= 0 {
		cfg.PageSize = 5
	}
	if cfg.Churn < 0 {
		return nil, fmt.Errorf("churn interval %v is negative", cfg.Churn)
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = time.Minute
	}
	if cfg.SessionTimeout <= 0 {
		cfg.SessionTimeout = 5 * time.Minute
	}
	d := &demo{
		cfg:            cfg,
		log:            cfg.Logger,
		adminToken:     cfg.AdminToken,
		started:        time.Now(),
		sessions:       map[string]*session{},
		bySID:          map[string]*session{},
		byKey:          map[string]*session{},
		tools:          builtinTools(),
		toolByName:     map[string]*toolDef{},
		extras:         map[string]*toolDef{},
		prompts:        builtinPrompts(),
		resources:      builtinResources(),
		resourceByName: map[string]*resourceDef{},
		templates:      builtinTemplates(),
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.adminToken == "" {
		d.adminToken = newAdminToken()
	}
	for _, t := range d.tools {
		d.toolByName[t.name] = t
	}
	for _, p := range d.prompts {
		p.enabled = true
	}
	for _, r := range d.resources {
		d.resourceByName[r.name] = r
	}
	for _, v := range cfg.Revisions {
		if !slices.Contains(mcp.SupportedProtocolVersions(), v) {
			return nil, fmt.Errorf("unknown protocol revision %q (go-sdk speaks %s)", v, strings.Join(mcp.SupportedProtocolVersions(), ", "))
		}
	}
	for _, p := range cfg.AllowOrigins {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("bad -allow-origin pattern %q: %w", p, err)
		}
	}

	d.origins = append(slices.Clone(defaultOrigins), cfg.AllowOrigins...)
	d.mcp = mcpws.NewHandler(d.newServer, &mcpws.HandlerOptions{
		OriginPatterns: d.origins,
		Logger:         d.log,
	})
	d.newHTTPHandlers()
	d.ctx, d.cancel = context.WithCancel(context.Background())

	page, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	if cfg.StaticDir != "" {
		page = os.DirFS(cfg.StaticDir)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", d.serveMCP)
	mux.Handle("/control/", d.requireAdmin(d.controlHandler()))
	mux.Handle("/js/", http.StripPrefix("/js/", staticFiles(http.FS(os.DirFS(cfg.JSDir)))))
	// mcplive/oauth's one dependency, for the page's sign-in (static/auth.js;
	// the page's import map names it): /js/ serves no node_modules.
	mux.HandleFunc("GET /vendor/oauth4webapi.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFile(w, r, filepath.Join(cfg.JSDir, "node_modules", "oauth4webapi", "build", "index.js"))
	})
	mux.Handle("/", staticFiles(http.FS(page)))
	d.handler = mux
	d.mux = mux

	if cfg.Churn > 0 {
		d.setChurn(cfg.Churn)
	}
	return d, nil
}

// shutdown stops the churn, closes every WebSocket with code 1000 and ends
// every Streamable HTTP session and event stream.
func (d *demo) shutdown(ctx context.Context) error {
	d.setChurn(0)
	return errors.Join(d.mcp.Shutdown(ctx), d.shutdownHTTP(ctx))
}

// staticFiles serves files with the MIME types browsers insist on for
// modules and WebAssembly, no directory listings and no dotfiles.
func staticFiles(root http.FileSystem) http.Handler {
	files := http.FileServer(root)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "" || (strings.HasSuffix(p, "/") && p != "/") || strings.Contains(p, "/.") || strings.HasPrefix(p, ".") ||
			strings.Contains(p, "node_modules") {
			http.NotFound(w, r)
			return
		}
		switch path.Ext(p) {
		case ".wasm":
			w.Header().Set("Content-Type", "application/wasm")
		case ".js", ".mjs":
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		case ".ts":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8") // .d.ts
		case ".json", ".map":
			w.Header().Set("Content-Type", "application/json")
		}
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// content returns the text of an online resource.
func (d *demo) content(r *resourceDef) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !r.online {
		return "", false
	}
	if r.dynamic != nil {
		return r.dynamic(), true
	}
	return r.text, true
}

var errComputed = errors.New("its content is computed by the server")

// setContent replaces the text of the named resource and sends
// notifications/resources/updated to every connection subscribed to it.
func (d *demo) setContent(name, text, by string) error {
	d.mu.Lock()
	r := d.resourceByName[name]
	if r == nil {
		d.mu.Unlock()
		return fmt.Errorf("no resource %q", name)
	}
	if r.dynamic != nil {
		d.mu.Unlock()
		return fmt.Errorf("resource %q cannot be written: %w", name, errComputed)
	}
	r.text = text
	online := r.online
	d.mu.Unlock()
	d.log.Info("resource content changed", "resource", name, "uri", r.uri, "by", by, "chars", len(text))
	if online {
		d.resourceUpdated(r.uri)
	}
	return nil
}

// resourceUpdated sends notifications/resources/updated for uri to the
// connections subscribed to it (each server tracks its own subscribers).
func (d *demo) resourceUpdated(uri string) {
	d.mu.Lock()
	servers := make([]*mcp.Server, 0, len(d.sessions))
	for _, s := range d.sessions {
		servers = append(servers, s.server)
	}
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range servers {
		_ = srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
	}
}

// search returns the lines of online resources that contain every word of q.
func (d *demo) search(q string) []searchHit {
	words := strings.Fields(strings.ToLower(q))
	hits := []searchHit{}
	if len(words) == 0 {
		return hits
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range d.resources {
		if !r.online || r.dynamic != nil {
			continue
		}
	lines:
		for line := range strings.SplitSeq(r.text, "\n") {
			low := strings.ToLower(line)
			for _, w := range words {
				if !strings.Contains(low, w) {
					continue lines
				}
			}
			hits = append(hits, searchHit{URI: r.uri, Line: strings.TrimSpace(line)})
		}
	}
	return hits
}

func (d *demo) stats() statsOut {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := statsOut{Connections: len(d.sessions), Uptime: time.Since(d.started).Round(time.Second).String()}
	for _, t := range d.allTools() {
		if t.enabled {
			out.Tools++
		}
	}
	for _, p := range d.prompts {
		if p.enabled {
			out.Prompts++
		}
	}
	for _, r := range d.resources {
		if r.online {
			out.Resources++
		}
	}
	return out
}
