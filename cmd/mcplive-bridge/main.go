// Command mcplive-bridge lets a web page reach MCP servers it cannot reach
// by itself: stdio servers (a command such as npx or uvx, which a page
// cannot start) and remote servers that send no CORS headers.
//
//	mcplive-bridge -allow-origin http://localhost:5173 -- npx -y @modelcontextprotocol/server-everything
//	mcplive-bridge -allow-origin http://localhost:5173 -config servers.json
//	mcplive-bridge -allow-origin http://localhost:5173 -upstream https://remote.example/mcp
//
// A stdio server is served at /mcp (or /servers/<name>/mcp with -config)
// over Streamable HTTP and WebSocket (subprotocol "mcp"): every WebSocket
// connection and every 2025-11-25 session gets its own process, and the
// sessionless 2026-07-28 requests over Streamable HTTP share one process,
// with their ids remapped (when the server speaks 2026-07-28). A remote server is reached through /forward, with the
// target URL in the X-Bridge-Target header (what mcplive's viaBridge sends),
// so that the page keeps the server's own URL as its identity (OAuth).
//
// It is secure by default: it listens on 127.0.0.1 only, refuses a request
// whose Origin is not allowed (-allow-origin) or whose Host is not its own
// (DNS rebinding), requires the random token it prints at start (the
// X-Bridge-Token header, or ?token= on a WebSocket URL), limits request and
// message sizes, and runs only the commands fixed at its start. See
// docs/reach-any-server.md.
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcplive-bridge:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mcplive-bridge:", err)
		os.Exit(1)
	}
}

type config struct {
	addr       string
	token      string
	noToken    bool
	origins    []string
	upstream   *url.URL
	jsonOut    bool
	verbose    bool
	maxBody    int64
	readLimit  int64
	servers    map[string]*server // by name; "" = the one of "-- cmd args" at /mcp
	configFile string
}

type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for p := range strings.SplitSeq(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

func parseFlags(args []string, out io.Writer) (config, error) {
	var cfg config
	var origins listFlag
	var upstream string
	fs := flag.NewFlagSet("mcplive-bridge", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8787", "listen `address`, a loopback one (port 0 picks a free port)")
	fs.StringVar(&cfg.token, "token", "", "the `token` pages must send (default: a random one, printed at start)")
	fs.BoolVar(&cfg.noToken, "insecure-no-token", false, "accept requests without the token (any page of an allowed origin, and any local program, can then use the bridge)")
	fs.Var(&origins, "allow-origin", "an `origin` whose pages may use the bridge (\"http://localhost:5173\"; a host pattern such as \"localhost:*\"); repeatable; none by default")
	fs.StringVar(&upstream, "upstream", "", "a remote MCP server `URL` to forward to (a server without CORS headers), with the OAuth endpoints its metadata names")
	fs.StringVar(&cfg.configFile, "config", "", "a JSON `file` naming several stdio servers ({\"mcpServers\": {\"name\": {\"command\", \"args\", \"env\", \"cwd\"}}}), each at /servers/<name>/mcp")
	fs.BoolVar(&cfg.jsonOut, "json", false, "print the addresses and token as one JSON line on stdout ({\"http\", \"ws\", \"token\"})")
	fs.BoolVar(&cfg.verbose, "v", false, "log every line the servers write on stderr")
	fs.Int64Var(&cfg.maxBody, "max-body", 4<<20, "the largest request body accepted, in `bytes`")
	fs.Int64Var(&cfg.readLimit, "max-message", 4<<20, "the largest WebSocket message accepted from a page, in `bytes`")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage:\n  mcplive-bridge [flags] -- command [args...]   serve a stdio MCP server at /mcp\n  mcplive-bridge [flags] -config servers.json    serve several at /servers/<name>/mcp\n  mcplive-bridge [flags] -upstream URL           forward to a remote server without CORS\n\nSee docs/reach-any-server.md of mcplive.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	cfg.origins = origins
	host, _, err := net.SplitHostPort(cfg.addr)
	if err != nil {
		return cfg, fmt.Errorf("-addr %q: %v", cfg.addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return cfg, fmt.Errorf("-addr %q: the bridge listens on a loopback address only (127.0.0.1, ::1 or localhost): it runs local commands for web pages", cfg.addr)
	}
	if cfg.noToken && cfg.token != "" {
		return cfg, errors.New("-token and -insecure-no-token contradict each other")
	}
	cfg.servers = map[string]*server{}
	if fs.NArg() > 0 {
		cfg.servers[""] = &server{Name: "mcp", Command: fs.Arg(0), Args: fs.Args()[1:]}
	}
	if cfg.configFile != "" {
		if err := readConfig(cfg.configFile, cfg.servers); err != nil {
			return cfg, err
		}
	}
	if upstream != "" {
		u, err := url.Parse(upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return cfg, fmt.Errorf("-upstream %q: not an http(s) URL", upstream)
		}
		u.Fragment = ""
		cfg.upstream = u
	}
	if len(cfg.servers) == 0 && cfg.upstream == nil {
		return cfg, errors.New("nothing to serve: give a command after --, a -config file or an -upstream URL (see -h)")
	}
	if !cfg.noToken && cfg.token == "" {
		cfg.token = rand.Text()
	}
	return cfg, nil
}

func readConfig(file string, into map[string]*server) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("-config: %v", err)
	}
	var doc struct {
		MCPServers map[string]*server `json:"mcpServers"`
		Servers    map[string]*server `json:"servers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("-config %s: %v", file, err)
	}
	all := doc.MCPServers
	if all == nil {
		all = doc.Servers
	}
	if len(all) == 0 {
		return fmt.Errorf("-config %s: no servers (expected {\"mcpServers\": {\"name\": {\"command\": …}}})", file)
	}
	for name, s := range all {
		if name == "" || strings.ContainsAny(name, "/?#% ") || s == nil || s.Command == "" {
			return fmt.Errorf("-config %s: server %q needs a name without /?#%% or spaces, and a command", file, name)
		}
		s.Name = name
		into[name] = s
	}
	return nil
}

// run serves until ctx ends, then stops every child and returns.
func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	level := slog.LevelInfo
	if cfg.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	base := net.JoinHostPort(host, port) // 127.0.0.1:port, or [::1]:port

	mux := http.NewServeMux()
	var handlers []*stdioHandler
	paths := map[string]string{}
	names := make([]string, 0, len(cfg.servers))
	for name := range cfg.servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := "/mcp"
		if name != "" {
			p = "/servers/" + name + "/mcp"
		}
		h := newStdioHandler(cfg.servers[name], log, cfg.readLimit)
		handlers = append(handlers, h)
		mux.Handle(p, h)
		paths[name] = p
	}
	if cfg.upstream != nil {
		mux.Handle("/forward", newForwarder(cfg.upstream, log))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Not Found: mcplive-bridge serves "+strings.Join(slices.Sorted(mapValues(paths, cfg.upstream != nil)), ", "), http.StatusNotFound)
	})
	g := &guard{port: port, origins: cfg.origins, token: cfg.token, bearerOK: cfg.upstream == nil, maxBody: cfg.maxBody, log: log, next: mux}
	hs := &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()

	first := ""
	if len(names) > 0 {
		first = paths[names[0]]
	} else {
		first = "/forward"
	}
	facts := map[string]any{"http": "http://" + base + first, "ws": "ws://" + base + first, "token": cfg.token}
	if len(cfg.servers) > 1 || (len(cfg.servers) == 1 && cfg.servers[""] == nil) {
		servers := map[string]any{}
		for name, p := range paths {
			servers[name] = map[string]string{"http": "http://" + base + p, "ws": "ws://" + base + p}
		}
		facts["servers"] = servers
	}
	if cfg.upstream != nil {
		facts["forward"] = "http://" + base + "/forward"
		facts["upstream"] = cfg.upstream.String()
	}
	if cfg.jsonOut {
		line, _ := json.Marshal(facts)
		fmt.Fprintln(stdout, string(line))
	} else {
		printBanner(stdout, cfg, base, names, paths)
	}
	log.Info("mcplive-bridge listening", "addr", base, "origins", strings.Join(cfg.origins, ","), "token_required", cfg.token != "")

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, h := range handlers {
		h.Shutdown(sctx)
	}
	return hs.Shutdown(sctx)
}

func mapValues(m map[string]string, forward bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
		if forward {
			yield("/forward")
		}
	}
}

func printBanner(w io.Writer, cfg config, base string, names []string, paths map[string]string) {
	fmt.Fprintf(w, "\nmcplive-bridge on http://%s\n\n", base)
	for _, name := range names {
		s := cfg.servers[name]
		fmt.Fprintf(w, "  %s\n    Streamable HTTP  http://%s%s\n    WebSocket        ws://%s%s?token=%s\n", s.String(), base, paths[name], base, paths[name], cfg.token)
	}
	if cfg.upstream != nil {
		fmt.Fprintf(w, "  forwarding to %s (and the OAuth endpoints its metadata names)\n    through http://%s/forward: connect(%q, { fetch: viaBridge(\"http://%s\", { token }) })\n", cfg.upstream, base, cfg.upstream.String(), base)
	}
	if cfg.token != "" {
		fmt.Fprintf(w, "\n  token: %s\n    (viaBridge sends it in the X-Bridge-Token header; a WebSocket URL carries it as ?token=)\n", cfg.token)
	} else {
		fmt.Fprintf(w, "\n  no token required (-insecure-no-token)\n")
	}
	if len(cfg.origins) == 0 {
		fmt.Fprintf(w, "\n  No page may use the bridge yet: restart it with -allow-origin <your app's origin>,\n  e.g. -allow-origin http://localhost:5173\n\n")
	} else {
		fmt.Fprintf(w, "\n  pages allowed from: %s\n\n", strings.Join(cfg.origins, ", "))
	}
}
