package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
)

// MCP 2026-07-28 over Streamable HTTP through the bridge: no session, one
// process of the server shared by every client, ids (and progress tokens,
// and subscription ids) remapped.

// modernPost POSTs one 2026-07-28 request (the _meta and the headers a
// client sends) and returns the response, its body unread.
func modernPost(t *testing.T, ctx context.Context, b *bridge, id any, method, params string, header map[string]string) *http.Response {
	t.Helper()
	p := map[string]any{}
	if params != "" {
		if err := json.Unmarshal([]byte(params), &p); err != nil {
			t.Fatalf("params %s: %v", params, err)
		}
	}
	meta, _ := p["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
	meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "raw", "version": "1"}
	meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
	p["_meta"] = meta
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": p}
	if id != nil {
		msg["id"] = id
	}
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequestWithContext(ctx, "POST", b.HTTP, strings.NewReader(string(body)))
	req.Header.Set("X-Bridge-Token", b.Token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, _ := p["name"].(string); name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", method, err)
	}
	return resp
}

// sse returns the data of a response's events as they come; the channel
// closes at the stream's end.
func sse(resp *http.Response) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				ch <- d
			}
		}
	}()
	return ch
}

func next(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case d, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the stream ended", what)
		}
		return d
	case <-time.After(waitLimit):
		t.Fatalf("%s: nothing came", what)
	}
	return ""
}

func all(ch <-chan string) []string {
	var out []string
	for d := range ch {
		out = append(out, d)
	}
	return out
}

// waitLog waits until the bridge's log has s.
func waitLog(t *testing.T, b *bridge, s string) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !strings.Contains(b.stderr(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("the bridge's log never had %q:\n%s", s, b.stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestModernShared: two clients of mcplive in 2026-07-28 over Streamable
// HTTP share one process of the server: a change one causes reaches both
// (each on its own listen stream), concurrent calls with progress each get
// their own progress, a resource subscription gets its update.
func TestModernShared(t *testing.T) {
	t.Parallel()
	b := startBridge(t, "--", serverBin)
	a := b.connect(t, "http", nil)
	c := b.connect(t, "http", nil)
	for _, cl := range []*mcplive.Client{a, c} {
		if cl.ProtocolVersion() != "2026-07-28" {
			t.Fatalf("the client speaks %s", cl.ProtocolVersion())
		}
	}
	callText(t, a, "add_tool", map[string]any{"name": "shared"})
	waitTools(t, a, "got shared (a)", func(n []string) bool { return slices.Contains(n, "shared") })
	waitTools(t, c, "got shared (c)", func(n []string) bool { return slices.Contains(n, "shared") })
	callText(t, c, "remove_tool", map[string]any{"name": "shared"})
	waitTools(t, a, "lost shared (a)", func(n []string) bool { return !slices.Contains(n, "shared") })
	waitTools(t, c, "lost shared (c)", func(n []string) bool { return !slices.Contains(n, "shared") })

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	var wg sync.WaitGroup
	for i, cl := range []*mcplive.Client{a, c, a, c} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mu sync.Mutex
			var progress []float64
			res, err := cl.CallTool(ctx, "slow", nil, &mcplive.CallToolOptions{OnProgress: func(p mcplive.Progress) {
				mu.Lock()
				progress = append(progress, p.Progress)
				mu.Unlock()
			}})
			mu.Lock()
			defer mu.Unlock()
			if err != nil || res.Content[0].Text != "done" || !slices.Equal(progress, []float64{1, 2}) {
				t.Errorf("slow %d: %v %v, progress %v", i, res, err, progress)
			}
		}()
	}
	wg.Wait()

	updated := make(chan string, 4)
	unsub, err := a.SubscribeResource(ctx, "test://counter", func(uri string) { updated <- uri })
	if err != nil {
		t.Fatal(err)
	}
	defer unsub(ctx)
	callText(t, c, "bump", nil) // the other client changes it
	select {
	case uri := <-updated:
		if uri != "test://counter" {
			t.Fatalf("updated %q", uri)
		}
	case <-ctx.Done():
		t.Fatal("no resources/updated")
	}
	// The subscription replaced a's listen stream (a new one, then the old
	// one closed): list changes still reach both. (A go-sdk server keeps
	// one listen stream per connection and forgets it when any of them
	// ends: the bridge's own streams towards it never end.)
	callText(t, c, "add_tool", map[string]any{"name": "after_subscribe"})
	waitTools(t, a, "got after_subscribe (a)", func(n []string) bool { return slices.Contains(n, "after_subscribe") })
	waitTools(t, c, "got after_subscribe (c)", func(n []string) bool { return slices.Contains(n, "after_subscribe") })
	if n := strings.Count(b.stderr(), "shared process started"); n != 1 {
		t.Fatalf("%d shared processes started, want 1:\n%s", n, b.stderr())
	}
}

// TestModernRemapping, over raw HTTP: two requests with the same id and
// the same progress token at once each get their own progress and answer,
// with their own id and token; a listen stream gets its acknowledgment and
// the list changes with its own id as the subscription id; closing a
// request's stream cancels it in the server; what the bridge refuses.
func TestModernRemapping(t *testing.T) {
	t.Parallel()
	b := startBridge(t, "-v", "--", serverBin)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()

	listen := modernPost(t, ctx, b, 1, "subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`, nil)
	if listen.StatusCode != 200 || listen.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("listen: %d, session %q", listen.StatusCode, listen.Header.Get("Mcp-Session-Id"))
	}
	events := sse(listen)
	if ack := next(t, events, "the acknowledgment"); !strings.Contains(ack, "notifications/subscriptions/acknowledged") || !strings.Contains(ack, `"io.modelcontextprotocol/subscriptionId":1`) {
		t.Fatalf("ack: %s", ack)
	}

	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := all(sse(modernPost(t, ctx, b, 1, "tools/call", `{"name":"slow","arguments":{},"_meta":{"progressToken":"p"}}`, nil)))
			if len(got) != 3 || !strings.Contains(got[0], `"progressToken":"p"`) || !strings.Contains(got[0], `"progress":1`) ||
				!strings.Contains(got[1], `"progress":2`) || !strings.Contains(got[2], `"id":1`) || !strings.Contains(got[2], `"done"`) {
				t.Errorf("call %d's stream: %v", i, got)
			}
		}()
	}
	wg.Wait()

	all(sse(modernPost(t, ctx, b, 1, "tools/call", `{"name":"add_tool","arguments":{"name":"raw"}}`, nil)))
	if ev := next(t, events, "list_changed"); !strings.Contains(ev, "notifications/tools/list_changed") || !strings.Contains(ev, `"io.modelcontextprotocol/subscriptionId":1`) {
		t.Fatalf("on the listen stream: %s", ev)
	}

	// Closing a request's stream cancels it (notifications/cancelled to
	// the server, which its tool writes on stderr: -v logs it).
	hctx, hcancel := context.WithCancel(ctx)
	resp := modernPost(t, hctx, b, 9, "tools/call", `{"name":"hang","arguments":{}}`, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("hang: %d", resp.StatusCode)
	}
	waitLog(t, b, "hang started")
	hcancel()
	resp.Body.Close()
	waitLog(t, b, "hang cancelled")

	// Refusals: headers that are not the body's (HeaderMismatch), a
	// revision the server does not speak (UnsupportedProtocolVersion,
	// naming what it speaks).
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   string
	}{
		{"Mcp-Method", map[string]string{"Mcp-Method": "tools/list"}, "-32020"},
		{"Mcp-Name", map[string]string{"Mcp-Name": "other"}, "-32020"},
		{"Mcp-Protocol-Version", map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, "-32020"},
	} {
		resp := modernPost(t, ctx, b, 3, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`, tc.header)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: %d %s", tc.name, resp.StatusCode, body)
		}
	}
	raw := `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(ctx, "POST", b.HTTP, strings.NewReader(raw))
	req.Header.Set("X-Bridge-Token", b.Token)
	req.Header.Set("Mcp-Protocol-Version", "2099-01-01")
	req.Header.Set("Mcp-Method", "tools/list")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(body), "-32022") || !strings.Contains(string(body), `"2026-07-28"`) || !strings.Contains(string(body), `"2025-11-25"`) {
		t.Errorf("an unknown revision: %d %s", resp.StatusCode, body)
	}
}

// TestModernChildExits: when the shared process exits mid-call, every
// request in flight through it gets an error naming the cause (its last
// stderr line), the next request starts a new process, and no zombie is
// left.
func TestModernChildExits(t *testing.T) {
	t.Parallel()
	b := startBridge(t, "--", serverBin)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c := b.connect(t, "http", &mcplive.Options{Reconnect: mcplive.ReconnectOptions{InitialDelay: 10 * time.Millisecond}})
	callText(t, c, "add_tool", map[string]any{"name": "only_in_first"})
	waitTools(t, c, "got only_in_first", func(n []string) bool { return slices.Contains(n, "only_in_first") })

	// Another client's call in flight, and its listen stream.
	listen := sse(modernPost(t, ctx, b, 1, "subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`, nil))
	next(t, listen, "the acknowledgment")
	hang := modernPost(t, ctx, b, 2, "tools/call", `{"name":"hang","arguments":{}}`, nil)

	if _, err := c.CallTool(ctx, "crash", nil, nil); err == nil || !strings.Contains(err.Error(), "crashing on purpose") {
		t.Fatalf("crash: %v", err)
	}
	if got := all(sse(hang)); len(got) != 1 || !strings.Contains(got[0], `"id":2`) || !strings.Contains(got[0], "crashing on purpose") || !strings.Contains(got[0], "exit status 3") {
		t.Fatalf("the call in flight: %v", got)
	}
	if got := all(listen); len(got) != 1 || !strings.Contains(got[0], `"id":1`) || !strings.Contains(got[0], "crashing on purpose") {
		t.Fatalf("the listen stream: %v", got)
	}
	// The next request starts a new process: the tool added to the first
	// is gone, and the client follows (its listen stream re-opened).
	if got := callText(t, c, "echo", map[string]any{"text": "again"}); got != "again" {
		t.Fatalf("after the exit: %q", got)
	}
	waitTools(t, c, "lost only_in_first", func(n []string) bool { return slices.Contains(n, "echo") && !slices.Contains(n, "only_in_first") })
	if n := strings.Count(b.stderr(), "shared process started"); n != 2 {
		t.Fatalf("%d shared processes started, want 2:\n%s", n, b.stderr())
	}
	noZombies(t, b.cmd.Process.Pid)
}

// TestModernFallback: a server that does not speak 2026-07-28 is served in
// 2025-11-25 over Streamable HTTP: a 2026-07-28 request is answered with
// UnsupportedProtocolVersion naming 2025-11-25 (once the bridge asked the
// server), and mcplive falls back.
func TestModernFallback(t *testing.T) {
	t.Parallel()
	b := startBridge(t, "--", serverBin, "-legacy")
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	resp := modernPost(t, ctx, b, 1, "tools/list", "", nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(body), "-32022") || !strings.Contains(string(body), `"supported":["2025-11-25"`) || strings.Contains(string(body), `"2026-07-28"]`) ||
		!strings.Contains(string(body), "does not speak 2026-07-28") {
		t.Fatalf("a 2026-07-28 request: %d %s", resp.StatusCode, body)
	}
	c := b.connect(t, "http", nil)
	if c.ProtocolVersion() != "2025-11-25" {
		t.Fatalf("the client speaks %s", c.ProtocolVersion())
	}
	if got := callText(t, c, "echo", map[string]any{"text": "legacy"}); got != "legacy" {
		t.Fatalf("echo: %q", got)
	}
	waitLog(t, b, "does not speak 2026-07-28")
	noZombies(t, b.cmd.Process.Pid)
}
