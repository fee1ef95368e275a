// Command demo is the mcplive demo server: an official go-sdk MCP server per
// connection, over WebSocket (through package mcpws) and Streamable HTTP
// (go-sdk's own handler) on the same /mcp, whose tools, prompts,
// resources and resource templates change live in the four ways MCP lists
// change: authentication, configuration, resource availability and
// permissions. A control API drives the changes; README.md documents it.
//
//	go run ./demo -addr 127.0.0.1:8080
package main

import (
	"context"
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
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg, err := parseFlags(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(2)
	}
	cfg.Logger = logger
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		logger.Error("demo failed", "error", err)
		os.Exit(1)
	}
}

// listFlag is a flag that may repeat and takes comma-separated values.
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

// parseFlags reads the command line; getenv supplies MCPLIVE_ADMIN_TOKEN.
func parseFlags(args []string, getenv func(string) string, out io.Writer) (config, error) {
	var cfg config
	var origins, revisions listFlag
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "listen `address`")
	fs.StringVar(&cfg.JSDir, "js", "js", "`folder` of the built npm package, served at /js/")
	fs.StringVar(&cfg.StaticDir, "static", "", "serve the demo page from this `folder` instead of the embedded copy")
	fs.StringVar(&cfg.AdminToken, "admin-token", "", "control API `token` (default: $MCPLIVE_ADMIN_TOKEN, else a random one, printed at start-up)")
	fs.Var(&origins, "allow-origin", "extra Origin `pattern`s allowed on /mcp, comma-separated or repeated (\"example.com\", \"*.example.com:*\", \"https://app.example.com\")")
	fs.IntVar(&cfg.PageSize, "page-size", 5, "items per page of every list")
	fs.Var(&revisions, "revisions", "the protocol `revision`s the server speaks, comma-separated or repeated (e.g. 2025-11-25, to watch a client fall back; default: all that go-sdk speaks)")
	fs.StringVar(&cfg.AuthIssuer, "auth-issuer", "", "authorization server `URL` (authserver/server.mjs): serve /protected/mcp, whose tokens it issues (./build.sh demo starts one)")
	fs.StringVar(&cfg.AuthSecret, "auth-secret", "", "the secret the protected endpoint introspects tokens with (default: $MCPLIVE_AUTH_SECRET)")
	fs.DurationVar(&cfg.Churn, "churn", 0, "flip a resource or template online/offline at this `interval` (e.g. 3s; 0 = off)")
	fs.BoolVar(&cfg.Stdio, "stdio", false, "serve one connection over standard input and output (a stdio MCP server, e.g. behind mcplive-bridge) instead of listening; the log goes to standard error")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: demo [flags]\n\nThe mcplive demo MCP server (see demo/README.md).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if cfg.PageSize < 1 {
		return cfg, fmt.Errorf("-page-size must be at least 1")
	}
	if cfg.Churn < 0 {
		return cfg, fmt.Errorf("-churn must not be negative")
	}
	if cfg.AuthSecret == "" {
		cfg.AuthSecret = getenv("MCPLIVE_AUTH_SECRET")
	}
	cfg.AllowOrigins = origins
	cfg.Revisions = revisions
	if cfg.AdminToken == "" {
		cfg.AdminToken = getenv("MCPLIVE_ADMIN_TOKEN")
	}
	return cfg, nil
}

// run serves the demo until ctx ends, then shuts down: every WebSocket is
// closed with 1000 "server shutting down".
func run(ctx context.Context, cfg config) error {
	if cfg.Stdio {
		return runStdio(ctx, cfg)
	}
	tokenSource := "flag or MCPLIVE_ADMIN_TOKEN"
	if cfg.AdminToken == "" {
		tokenSource = "generated"
	}
	d, err := newDemo(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: d.handler, ReadHeaderTimeout: 10 * time.Second}

	base := "http://" + ln.Addr().String()
	jsDir, _ := filepath.Abs(cfg.JSDir)
	if _, err := os.Stat(filepath.Join(cfg.JSDir, "mcplive.wasm")); err != nil {
		d.log.Warn("the npm package is not built: /js/ will miss files (run ./build.sh)", "js", jsDir)
	}
	d.log.Info("demo listening", "page", base+"/", "mcp", "ws://"+ln.Addr().String()+"/mcp", "mcp_http", base+"/mcp",
		"control", base+"/control/state", "js", jsDir, "page_size", d.cfg.PageSize, "churn", cfg.Churn)
	if tokenSource == "generated" {
		d.log.Info("admin token (generated; set -admin-token or MCPLIVE_ADMIN_TOKEN to fix it)", "token", d.adminToken)
	} else {
		d.log.Info("admin token from " + tokenSource)
	}
	page := pageURL(ln.Addr(), d.adminToken)
	fmt.Fprintf(os.Stderr, "\n  Open the demo (with the admin token, for situations 2-4):\n\n    %s\n\n  Control API:  curl -H 'Authorization: Bearer %s' %s/control/state\n\n",
		page, d.adminToken, pageBase(ln.Addr()))

	errc := make(chan error, 1)
	if cfg.AuthIssuer != "" {
		if err := d.enableProtected(base, cfg.AuthIssuer, cfg.AuthSecret); err != nil {
			return err
		}
		d.log.Info("protected endpoint (MCP authorization)", "mcp_http", base+protectedPath, "issuer", cfg.AuthIssuer)
	} else {
		d.disableProtected()
	}
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	d.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The WebSockets are hijacked: srv.Shutdown does not see them.
	err = errors.Join(d.shutdown(sctx), srv.Shutdown(sctx))
	d.log.Info("stopped")
	return err
}

// pageBase is the address a browser on this machine opens for a listener:
// an unspecified address (":8080", "0.0.0.0:8080", "[::]:8080") becomes
// 127.0.0.1, which the page's Origin check allows.
func pageBase(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// pageURL is the ready-to-open link printed at start-up: the page with
// ?admin=<token>, which the page keeps for the tab and removes from the
// address bar, so the control API's situations are one click away.
func pageURL(addr net.Addr, token string) string {
	return pageBase(addr) + "/?" + url.Values{"admin": {token}}.Encode()
}

// runStdio serves one connection of the demo over standard input and
// output until the client closes it (or ctx ends): the demo as a stdio MCP
// server. Its lists change as over the network: login (alice/wonderland)
// adds tools, -churn flips resources and templates.
func runStdio(ctx context.Context, cfg config) error {
	d, err := newDemo(cfg)
	if err != nil {
		return err
	}
	defer d.shutdown(context.Background())
	s := d.openSession(&http.Request{Header: http.Header{}, RemoteAddr: "stdio"}, "", transportStdio, "")
	defer d.closeSession(s, "")
	d.log.Info("demo serving over stdio", "page_size", d.cfg.PageSize, "churn", cfg.Churn)
	return s.server.Run(ctx, &mcp.StdioTransport{})
}
