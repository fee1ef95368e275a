package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/leakcheck"
)

// waitLimit bounds the wait for one event that must happen: a hang
// detector, never a speed budget.
const waitLimit = 60 * time.Second

var bridgeBin, serverBin, demoBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcplive-bridge-test")
	if err != nil {
		panic(err)
	}
	bridgeBin = filepath.Join(dir, "mcplive-bridge")
	serverBin = filepath.Join(dir, "mcplive-stdioserver")
	demoBin = filepath.Join(dir, "demo")
	for bin, pkg := range map[string]string{bridgeBin: ".", serverBin: "../../internal/cmd/mcplive-stdioserver", demoBin: "../../demo"} {
		// Built as js/test/run.js and ./build.sh npm-packages build them,
		// so that those find the packages compiled (CI time).
		args := []string{"build", "-trimpath", "-ldflags=-s -w", "-o", bin, pkg}
		env := append(os.Environ(), "CGO_ENABLED=0")
		if bin == bridgeBin && os.Getenv("MCPLIVE_BRIDGE_RACE") != "" {
			// The bridge itself under the race detector (not in
			// ./build.sh test: the build takes long).
			args = append([]string{"build", "-race"}, args[1:]...)
			env = append(os.Environ(), "CGO_ENABLED=1")
		}
		cmd := exec.Command("go", args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			os.RemoveAll(dir)
			panic("go build " + pkg + ": " + err.Error() + "\n" + string(out))
		}
	}
	code := m.Run()
	if code == 0 {
		// The clients, the test servers and the idle connections of
		// http.DefaultClient are gone; nothing of them may be left.
		http.DefaultClient.CloseIdleConnections()
		if err := leakcheck.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// bridge is a running mcplive-bridge process.
type bridge struct {
	HTTP, WS, Token string
	cmd             *exec.Cmd
	mu              sync.Mutex
	log             strings.Builder
}

func (b *bridge) stderr() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.log.String()
}

// startBridge runs the bridge with args (plus -json -addr 127.0.0.1:0) and
// reads its first line.
func startBridge(t *testing.T, args ...string) *bridge {
	t.Helper()
	cmd := exec.Command(bridgeBin, append([]string{"-json", "-addr", "127.0.0.1:0"}, args...)...)
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &bridge{cmd: cmd}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			b.mu.Lock()
			b.log.WriteString(sc.Text() + "\n")
			b.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(waitLimit):
			cmd.Process.Kill()
			t.Errorf("the bridge did not stop on SIGINT")
		}
		if strings.Contains(b.stderr(), "WARNING: DATA RACE") {
			t.Errorf("a data race in the bridge (MCPLIVE_BRIDGE_RACE)")
		}
		if t.Failed() {
			t.Logf("bridge log:\n%s", b.stderr())
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no start-up line: %v\n%s", err, b.stderr())
	}
	if err := json.Unmarshal([]byte(line), b); err != nil {
		t.Fatalf("start-up line %q: %v", line, err)
	}
	return b
}

func (b *bridge) url(transport string) string {
	if strings.HasPrefix(transport, "ws") {
		return b.WS + "?token=" + url.QueryEscape(b.Token)
	}
	return b.HTTP
}

// connect connects mcplive's Go client to the bridge.
func (b *bridge) connect(t *testing.T, transport string, opts *mcplive.Options) *mcplive.Client {
	t.Helper()
	o := mcplive.Options{}
	if opts != nil {
		o = *opts
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = waitLimit
	}
	if strings.HasSuffix(transport, "-2025") {
		o.ProtocolVersion = "2025-11-25"
	}
	if strings.HasPrefix(transport, "http") {
		o.Transport = &mcplive.HTTPTransport{URL: b.HTTP, Header: mcplive.Header{"X-Bridge-Token": {b.Token}}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := mcplive.Connect(ctx, b.url(transport), &o)
	if err != nil {
		t.Fatalf("connect over %s: %v\n%s", transport, err, b.stderr())
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// revision is what the client speaks to the go-sdk child over transport.
func revision(transport string) string {
	if strings.HasSuffix(transport, "-2025") {
		return "2025-11-25"
	}
	return "2026-07-28"
}

func toolNames(c *mcplive.Client) []string {
	var names []string
	for _, tl := range c.Tools().Snapshot().Items {
		names = append(names, tl.Name)
	}
	return names
}

// waitTools waits until the tool list satisfies ok.
func waitTools(t *testing.T, c *mcplive.Client, what string, ok func([]string) bool) {
	t.Helper()
	ch := make(chan struct{}, 1)
	stop := c.Tools().Subscribe(func(mcplive.Update[mcplive.Tool]) {
		select {
		case ch <- struct{}{}:
		default:
		}
	})
	defer stop()
	deadline := time.After(waitLimit)
	for !ok(toolNames(c)) {
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("tools never %s: %v", what, toolNames(c))
		}
	}
}

func callText(t *testing.T, c *mcplive.Client, name string, args any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	res, err := c.CallTool(ctx, name, args, nil)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("call %s: no content", name)
	}
	return res.Content[0].Text
}

// transports: Streamable HTTP and WebSocket in the revision the client
// picks (2026-07-28 with a go-sdk child: over HTTP sessionless, through the
// shared process with ids remapped) and pinned to 2025-11-25 (over HTTP a
// session, and a process, per client).
var transports = []string{"http", "http-2025", "ws", "ws-2025"}

// TestStdioServer: everything a stdio server says reaches the client
// through the bridge, over both transports: its lists and their changes, a
// call, a resource update, progress, logging, and its request (elicitation).
func TestStdioServer(t *testing.T) {
	t.Parallel()
	b := startBridge(t, "--", serverBin)
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			logs := make(chan string, 16)
			c := b.connect(t, tr, &mcplive.Options{
				OnLog: func(m mcplive.LogMessage) { logs <- string(m.Data) },
				OnElicit: func(ctx context.Context, req *mcplive.ElicitRequest) (*mcplive.ElicitResult, error) {
					return &mcplive.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada " + req.Message}}, nil
				},
			})
			if names := toolNames(c); !slices.Contains(names, "echo") || !slices.Contains(names, "crash") {
				t.Fatalf("tools: %v", names)
			}
			if want := revision(tr); c.ProtocolVersion() != want {
				t.Fatalf("over %s the client speaks %s, want %s", tr, c.ProtocolVersion(), want)
			}
			if got := callText(t, c, "echo", map[string]any{"text": "hi " + tr}); got != "hi "+tr {
				t.Fatalf("echo: %q", got)
			}
			// list_changed: a tool added and removed by the server itself.
			callText(t, c, "add_tool", map[string]any{"name": "late"})
			waitTools(t, c, "got late", func(n []string) bool { return slices.Contains(n, "late") })
			callText(t, c, "remove_tool", map[string]any{"name": "late"})
			waitTools(t, c, "lost late", func(n []string) bool { return !slices.Contains(n, "late") })

			// A resource subscription's update.
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			updated := make(chan string, 4)
			unsub, err := c.SubscribeResource(ctx, "test://counter", func(uri string) { updated <- uri })
			if err != nil {
				t.Fatal(err)
			}
			defer unsub(ctx)
			callText(t, c, "bump", nil)
			select {
			case uri := <-updated:
				if uri != "test://counter" {
					t.Fatalf("updated %q", uri)
				}
			case <-ctx.Done():
				t.Fatal("no resources/updated")
			}

			// Progress and logging.
			if err := c.SetLoggingLevel(ctx, "debug"); err != nil {
				t.Fatal(err)
			}
			var progress []float64
			res, err := c.CallTool(ctx, "slow", nil, &mcplive.CallToolOptions{OnProgress: func(p mcplive.Progress) { progress = append(progress, p.Progress) }})
			if err != nil || res.Content[0].Text != "done" {
				t.Fatalf("slow: %v %v", res, err)
			}
			// Over Streamable HTTP too: the bridge sends a progress
			// notification on the stream of the call that gave its
			// token, before the result.
			if len(progress) != 2 {
				t.Fatalf("progress: %v", progress)
			}
			select {
			case m := <-logs:
				if !strings.Contains(m, "slow is done") {
					t.Fatalf("log: %s", m)
				}
			case <-ctx.Done():
				t.Fatal("no log message")
			}

			// The server asks the user (elicitation): a server request in
			// 2025-11-25, an input request of the call's result in
			// 2026-07-28 (the client answers by sending the call again).
			if got := callText(t, c, "ask", nil); !strings.Contains(got, "Ada Your name?") {
				t.Fatalf("ask in %s: %s", c.ProtocolVersion(), got)
			}
		})
	}
}

// TestChildEnds: a child that exits mid-call, writes garbage or never
// answers costs its own session only: the client gets a clear error, the
// bridge stays up, the next session gets a new process, no zombie is left.
func TestChildEnds(t *testing.T) {
	t.Parallel()
	b := startBridge(t, "--", serverBin, "-stderr-lines", "5")
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			other := b.connect(t, tr, nil) // a bystander session
			for _, tc := range []struct{ tool, want string }{
				{"crash", "crashing on purpose"},
				{"garbage", "not JSON-RPC"},
			} {
				c := b.connect(t, tr, &mcplive.Options{Reconnect: mcplive.ReconnectOptions{Disabled: true}})
				ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
				_, err := c.CallTool(ctx, tc.tool, nil, nil)
				cancel()
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("%s: want an error with %q, got %v", tc.tool, tc.want, err)
				}
				t.Logf("%s over %s: %v", tc.tool, tr, err)
				c.Close()
			}
			// Never answers: the client's own deadline; the session lives on.
			c := b.connect(t, tr, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			_, err := c.CallTool(ctx, "hang", nil, nil)
			cancel()
			if err == nil {
				t.Fatal("hang answered")
			}
			if got := callText(t, c, "echo", map[string]any{"text": "still here"}); got != "still here" {
				t.Fatalf("after hang: %q", got)
			}
			if got := callText(t, other, "echo", map[string]any{"text": "bystander"}); got != "bystander" {
				t.Fatalf("bystander: %q", got)
			}
		})
	}
	t.Cleanup(func() {
		if !strings.Contains(b.stderr(), "stderr line 4") {
			t.Errorf("the log lacks the child's last stderr lines:\n%s", b.stderr())
		}
	})
}

// TestReconnectAfterExit: when its process exits, mcplive's client
// reconnects and the bridge starts a new one.
func TestReconnectAfterExit(t *testing.T) {
	t.Parallel()
	b := startBridge(t, "--", serverBin)
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			c := b.connect(t, tr, &mcplive.Options{Reconnect: mcplive.ReconnectOptions{InitialDelay: 10 * time.Millisecond}})
			callText(t, c, "add_tool", map[string]any{"name": "only_in_first"})
			waitTools(t, c, "got only_in_first", func(n []string) bool { return slices.Contains(n, "only_in_first") })
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			if _, err := c.CallTool(ctx, "crash", nil, nil); err == nil {
				t.Fatal("crash answered")
			}
			// A new process: the tool added to the first is gone. Over
			// HTTP the client learns of the end at its next request.
			deadline := time.Now().Add(waitLimit)
			for {
				cctx, ccancel := context.WithTimeout(ctx, 5*time.Second)
				_, err := c.CallTool(cctx, "echo", map[string]any{"text": "x"}, nil)
				ccancel()
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no new session: %v", err)
				}
				time.Sleep(50 * time.Millisecond)
			}
			waitTools(t, c, "lost only_in_first", func(n []string) bool { return slices.Contains(n, "echo") && !slices.Contains(n, "only_in_first") })
		})
	}
	t.Cleanup(func() { noZombies(t, b.cmd.Process.Pid) })
}

// noZombies fails if the bridge keeps a child that exited and is never
// waited for (Linux only: /proc). A child that just exited is a zombie
// until the bridge's wait: each must go within waitLimit.
func noZombies(t *testing.T, pid int) {
	if runtime.GOOS != "linux" {
		return
	}
	deadline := time.Now().Add(waitLimit)
	for {
		z := zombies(pid)
		if len(z) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("zombie children of the bridge: %v", z)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func zombies(pid int) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[0] == "Z" && f[1] == strconv.Itoa(pid) {
			found = append(found, s)
		}
	}
	return found
}

// TestRefusals: each refusal is a clear status and a message naming the
// flag that fixes it, and nothing reaches a server.
func TestRefusals(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the upstream got a request it should not: %s %s", r.Method, r.URL)
	}))
	defer up.Close()
	b := startBridge(t, "-allow-origin", "http://app.test:5173", "-max-body", "1000", "-upstream", up.URL+"/mcp", "--", serverBin)
	u, _ := url.Parse(b.HTTP)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		name   string
		path   string
		header map[string]string
		host   string
		body   string
		status int
		want   string
	}{
		{"foreign origin", "/mcp", map[string]string{"Origin": "https://evil.test", "X-Bridge-Token": b.Token}, "", init, 403, "-allow-origin https://evil.test"},
		{"rebinding host", "/mcp", map[string]string{"X-Bridge-Token": b.Token}, "evil.test:" + u.Port(), init, 403, "DNS rebinding"},
		{"no token", "/mcp", map[string]string{"Origin": "http://app.test:5173"}, "", init, 401, "-insecure-no-token"},
		{"wrong token", "/mcp", map[string]string{"X-Bridge-Token": "nope"}, "", init, 401, "-token"},
		{"oversized body", "/mcp", map[string]string{"X-Bridge-Token": b.Token}, "", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`, 413, "-max-body"},
		{"target not configured", "/forward", map[string]string{"X-Bridge-Token": b.Token, "X-Bridge-Target": "https://elsewhere.test/mcp"}, "", init, 403, "-upstream https://elsewhere.test/mcp"},
		{"upstream's other path", "/forward", map[string]string{"X-Bridge-Token": b.Token, "X-Bridge-Target": up.URL + "/admin"}, "", init, 403, "-upstream"},
	} {
		req, _ := http.NewRequest("POST", b.HTTP[:len(b.HTTP)-len("/mcp")]+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: got %d %q, want %d with %q", tc.name, resp.StatusCode, body, tc.status, tc.want)
		}
	}
	// The allowed origin passes, with CORS for it; a preflight needs no token.
	req, _ := http.NewRequest("OPTIONS", b.HTTP, nil)
	req.Header.Set("Origin", "http://app.test:5173")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type, x-bridge-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "http://app.test:5173" || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "x-bridge-token") {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
}

// TestFlags: the bridge refuses to start on a non-loopback address.
func TestFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-addr", "0.0.0.0:0", "--", "true"}, "loopback"},
		{[]string{"-addr", "127.0.0.1:0"}, "nothing to serve"},
		{[]string{"-token", "x", "-insecure-no-token", "--", "true"}, "contradict"},
		{[]string{"-upstream", "ftp://x/mcp"}, "not an http(s) URL"},
	} {
		out, err := exec.Command(bridgeBin, tc.args...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: %v %q, want exit 2 with %q", tc.args, err, out, tc.want)
		}
	}
}

// viaBridge is the Go twin of the JS helper: every request goes to the
// bridge's /forward with its URL in X-Bridge-Target.
type viaBridge struct {
	forward, token string
}

func (v viaBridge) RoundTrip(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	out.Header.Set("X-Bridge-Target", r.URL.String())
	out.Header.Set("X-Bridge-Token", v.token)
	out.URL, _ = url.Parse(v.forward)
	out.Host = ""
	return http.DefaultTransport.RoundTrip(out)
}

// TestUpstream: a go-sdk Streamable HTTP server, reached through the
// bridge's /forward by a go-sdk client: the POSTs, the GET event stream
// (a list change arrives through it as it happens), the DELETE.
func TestUpstream(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "first"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "one"}}}, nil, nil
	})
	var deletes int
	var mu sync.Mutex
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" || r.Header.Get("X-Bridge-Token") != "" {
			t.Errorf("the upstream got browser or bridge headers: %v", r.Header)
		}
		if r.Method == "DELETE" {
			mu.Lock()
			deletes++
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	defer up.Close()
	b := startBridge(t, "-allow-origin", "http://app.test", "-upstream", up.URL+"/mcp")
	var facts struct{ Forward string }
	facts.Forward = strings.TrimSuffix(b.HTTP, "/forward") + "/forward"

	changed := make(chan struct{}, 4)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   up.URL + "/mcp",
		HTTPClient: &http.Client{Transport: viaBridge{facts.Forward, b.Token}},
	}, nil)
	if err != nil {
		t.Fatalf("connect through the bridge: %v\n%s", err, b.stderr())
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "first" {
		t.Fatalf("tools: %v %v", res, err)
	}
	// The standalone GET stream is open once a notification gets through:
	// add tools until one does (the first may precede the GET).
	got := false
	for i := 0; !got; i++ {
		mcp.AddTool(srv, &mcp.Tool{Name: "added" + strconv.Itoa(i)}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
		select {
		case <-changed:
			got = true
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal("no list_changed through the bridge's forwarded event stream")
		}
	}
	cs.Close()
	mu.Lock()
	defer mu.Unlock()
	if deletes != 1 {
		t.Errorf("DELETE reached the upstream %d times, want 1", deletes)
	}
}

// TestDemoOverStdio: the demo server in stdio mode (demo -stdio) behind the
// bridge: logging in adds tools, and the client's live list follows.
func TestDemoOverStdio(t *testing.T) {
	t.Parallel()
	b := startBridge(t, "--", demoBin, "-stdio")
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			c := b.connect(t, tr, nil)
			if names := toolNames(c); !slices.Contains(names, "login") || slices.Contains(names, "search") {
				t.Fatalf("anonymous tools: %v", names)
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			res, err := c.CallTool(ctx, "login", map[string]any{"user": "alice", "password": "wonderland"}, nil)
			if err != nil || res.IsError {
				t.Fatalf("login: %v %v", res, err)
			}
			waitTools(t, c, "got alice's", func(n []string) bool { return slices.Contains(n, "search") && slices.Contains(n, "logout") })
		})
	}
}

// TestInsecureNoToken: with -insecure-no-token a request without the token
// is served; the Origin and Host checks still hold.
func TestInsecureNoToken(t *testing.T) {
	t.Parallel()
	b := startBridge(t, "-insecure-no-token", "--", serverBin)
	if b.Token != "" {
		t.Fatalf("token %q printed with -insecure-no-token", b.Token)
	}
	c := b.connect(t, "http", nil)
	if got := callText(t, c, "echo", map[string]any{"text": "open"}); got != "open" {
		t.Fatalf("echo: %q", got)
	}
	req, _ := http.NewRequest("POST", b.HTTP, strings.NewReader("{}"))
	req.Header.Set("Origin", "https://evil.test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("a foreign origin without a token check: %d, want 403", resp.StatusCode)
	}
}

// TestConfigFile: several servers from a config file, each at
// /servers/<name>/mcp; one whose command does not exist answers 502 with
// the reason, and the others are unaffected.
func TestConfigFile(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "servers.json")
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"go":      map[string]any{"command": serverBin},
		"demo":    map[string]any{"command": demoBin, "args": []string{"-stdio"}},
		"missing": map[string]any{"command": filepath.Join(t.TempDir(), "no-such-command")},
	}})
	if err := os.WriteFile(cfg, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bridgeBin, "-json", "-addr", "127.0.0.1:0", "-config", cfg)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var facts struct {
		Token   string
		Servers map[string]struct{ HTTP, WS string }
	}
	if err := json.Unmarshal([]byte(line), &facts); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	for name, want := range map[string]string{"go": "add_tool", "demo": "login"} {
		s := facts.Servers[name]
		if !strings.HasSuffix(s.HTTP, "/servers/"+name+"/mcp") {
			t.Fatalf("%s at %q", name, s.HTTP)
		}
		b := &bridge{HTTP: s.HTTP, WS: s.WS, Token: facts.Token}
		c := b.connect(t, "ws", nil)
		if !slices.Contains(toolNames(c), want) {
			t.Errorf("%s: tools %v", name, toolNames(c))
		}
	}
	req, _ := http.NewRequest("POST", facts.Servers["missing"].HTTP, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("X-Bridge-Token", facts.Token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 502 || !strings.Contains(string(body), "could not start") {
		t.Fatalf("a missing command: %d %q", resp.StatusCode, body)
	}
}

// TestProgressOnTheCallsStream: over Streamable HTTP, a call's progress
// notifications travel on the call's own event stream, before its result
// (not on the GET stream), as raw HTTP shows.
func TestProgressOnTheCallsStream(t *testing.T) {
	t.Parallel()
	b := startBridge(t, "--", serverBin)
	post := func(session, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", b.HTTP, strings.NewReader(body))
		req.Header.Set("X-Bridge-Token", b.Token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	events := func(resp *http.Response) []string {
		t.Helper()
		defer resp.Body.Close()
		var data []string
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				data = append(data, d)
			}
		}
		return data
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if got := events(resp); session == "" || len(got) != 1 || !strings.Contains(got[0], `"protocolVersion"`) {
		t.Fatalf("initialize: session %q, events %v", session, got)
	}
	if resp := post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != 202 {
		t.Fatalf("initialized: %d", resp.StatusCode)
	} else {
		resp.Body.Close()
	}
	got := events(post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":"p1"}}}`))
	if len(got) != 3 || !strings.Contains(got[0], `"progress":1`) || !strings.Contains(got[1], `"progress":2`) || !strings.Contains(got[2], `"id":2`) {
		t.Fatalf("the call's stream: %v", got)
	}
	// A batch is refused; a request without a session that is not
	// initialize gets UnsupportedProtocolVersion naming 2025-11-25.
	if resp := post(session, `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`); resp.StatusCode != 400 {
		t.Fatalf("batch: %d", resp.StatusCode)
	} else {
		resp.Body.Close()
	}
	resp = post("", `{"jsonrpc":"2.0","id":4,"method":"server/discover"}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(body), "-32022") || !strings.Contains(string(body), "2025-11-25") {
		t.Fatalf("discover without a session: %d %s", resp.StatusCode, body)
	}
}

// TestFlood: a server that floods its page with messages slows that
// session only: another session's call goes through meanwhile, and the
// flooded one gets its answer.
func TestFlood(t *testing.T) {
	t.Parallel()
	b := startBridge(t, "--", serverBin)
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			var logs sync.WaitGroup
			logs.Add(1)
			var once sync.Once
			flooded := b.connect(t, tr, &mcplive.Options{OnLog: func(mcplive.LogMessage) { once.Do(logs.Done) }})
			other := b.connect(t, tr, nil)
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			if err := flooded.SetLoggingLevel(ctx, "debug"); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := flooded.CallTool(ctx, "flood", map[string]any{"count": 5000}, nil)
				done <- err
			}()
			logs.Wait() // the flood has begun
			if got := callText(t, other, "echo", map[string]any{"text": "unbothered"}); got != "unbothered" {
				t.Fatalf("the other session: %q", got)
			}
			if err := <-done; err != nil {
				t.Fatalf("the flooded session's call: %v", err)
			}
		})
	}
}
