package mcplive_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/mcplive/mcplive/internal/scripted"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSessionCalls(t *testing.T) {
	t.Parallel()
	srv, _, _ := startSDKServer(t, nil)
	s := dialSession(t, srv.URL, nil)
	ctx := testCtx(t)

	res, err := s.CallTool(ctx, "echo", map[string]string{"text": "hi"}, nil)
	assertNoErr(t, err, "CallTool echo")
	if len(res.Content) != 1 || res.Content[0].Type != "text" || res.Content[0].Text != "echo: hi" || res.IsError {
		t.Errorf("CallTool echo = %s", res.Raw)
	}
	if !json.Valid(res.Content[0].Raw) {
		t.Errorf("content raw = %q", res.Content[0].Raw)
	}

	gp, err := s.GetPrompt(ctx, "greet", map[string]string{"text": "world"})
	assertNoErr(t, err, "GetPrompt")
	if len(gp.Messages) != 1 || gp.Messages[0].Role != "user" || gp.Messages[0].Content.Text != "greet: world" {
		t.Errorf("GetPrompt = %s", gp.Raw)
	}

	rr, err := s.ReadResource(ctx, "file:///a.txt")
	assertNoErr(t, err, "ReadResource")
	if len(rr.Contents) != 1 || rr.Contents[0].Text == nil || *rr.Contents[0].Text != "hello a" || rr.Contents[0].URI != "file:///a.txt" {
		t.Errorf("ReadResource = %s", rr.Raw)
	}
	rt, err := s.ReadResource(ctx, "file:///t/x")
	assertNoErr(t, err, "ReadResource through a template")
	if len(rt.Contents) != 1 || rt.Contents[0].Text == nil || *rt.Contents[0].Text != "template file:///t/x" {
		t.Errorf("ReadResource (template) = %s", rt.Raw)
	}

	cr, err := s.Complete(ctx, mcplive.CompleteParams{
		Ref:      mcplive.CompleteRef{Type: "ref/prompt", Name: "greet"},
		Argument: mcplive.CompleteArgument{Name: "text", Value: "wor"},
	})
	assertNoErr(t, err, "Complete")
	assertEqual(t, cr.Completion.Values, []string{"wor-done"}, "completion values")

	assertNoErr(t, s.Ping(ctx), "Ping")

	// The calls may run concurrently on one session.
	var wg sync.WaitGroup
	errc := make(chan error, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := fmt.Sprint("n", i)
			r, err := s.CallTool(ctx, "echo", map[string]string{"text": want}, nil)
			if err == nil && (len(r.Content) != 1 || r.Content[0].Text != "echo: "+want) {
				err = fmt.Errorf("call %d got %s", i, r.Raw)
			}
			errc <- err
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		assertNoErr(t, err, "concurrent CallTool")
	}
}

// Every notifications/progress the server sent before its result reaches
// OnProgress, in order, before CallTool returns.
func TestSessionCallToolProgress(t *testing.T) {
	t.Parallel()
	srv, _, _ := startSDKServer(t, nil)
	s := dialSession(t, srv.URL, nil)
	for round := 0; round < 10; round++ {
		var mu sync.Mutex
		var got []mcplive.Progress
		res, err := s.CallTool(testCtx(t), "progress", nil, &mcplive.CallToolOptions{OnProgress: func(p mcplive.Progress) {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		}})
		assertNoErr(t, err, "CallTool progress")
		assertEqual(t, res.Content[0].Text, "done", "result")
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n != progressSteps {
			t.Fatalf("round %d: %d progress notifications delivered before CallTool returned, want %d", round, n, progressSteps)
		}
		for i, p := range got {
			want := mcplive.Progress{Progress: float64(i + 1), Total: progressSteps, Message: fmt.Sprintf("step %d", i+1)}
			assertEqual(t, p, want, "progress")
		}
	}
	// Without OnProgress no token is sent.
	res, err := s.CallTool(testCtx(t), "progress", nil, nil)
	assertNoErr(t, err, "CallTool without progress")
	assertEqual(t, res.Content[0].Text, "no token", "result without a token")
}

func TestSessionLogging(t *testing.T) {
	t.Parallel()
	srv, _, _ := startSDKServer(t, nil)
	logs, onLog := logSink()
	var notes sync.Map
	s := dialSession(t, srv.URL, &mcplive.Options{OnLog: onLog, OnNotification: func(method string, _ json.RawMessage) {
		notes.Store(method, true)
	}})
	ctx := testCtx(t)
	checkLogging(t, logs,
		func(l string) error { return s.SetLoggingLevel(ctx, l) },
		func() error { _, err := s.CallTool(ctx, "log", nil, nil); return err })
	if _, ok := notes.Load("notifications/message"); !ok {
		t.Error("OnNotification did not see notifications/message")
	}
}

func TestSessionSubscribeResource(t *testing.T) {
	t.Parallel()
	// In 2026-07-28 a change of the resources is a new subscriptions/listen
	// stream, and go-sdk v1.8 keeps a listen's state per session: over a
	// connection that carries several streams (this WebSocket) the end of
	// the old stream takes the new one's subscriptions with it. The modern
	// era's subscriptions are tested against the scripted server
	// (TestModernResourceSubscriptions) and go-sdk over Streamable HTTP,
	// where every stream is a session of its own.
	onlyIn(t, "legacy")
	srv, p, rec := startSDKServer(t, nil)
	s := dialSession(t, srv.URL, nil)
	ctx := testCtx(t)
	const a, b = "file:///a.txt", "file:///b.txt"
	ch1, ch2, chb := make(chan string, 8), make(chan string, 8), make(chan string, 8)

	un1, err := s.SubscribeResource(ctx, a, func(uri string) { ch1 <- uri })
	assertNoErr(t, err, "SubscribeResource 1")
	assertEqual(t, recv(t, p.subs, "resources/subscribe"), a, "subscribed uri")
	un2, err := s.SubscribeResource(ctx, a, func(uri string) { ch2 <- uri })
	assertNoErr(t, err, "SubscribeResource 2")
	unb, err := s.SubscribeResource(ctx, b, func(uri string) { chb <- uri })
	assertNoErr(t, err, "SubscribeResource b")
	assertEqual(t, recv(t, p.subs, "resources/subscribe"), b, "subscribed uri")
	assertEqual(t, rec.Count("resources/subscribe"), 2, "subscribe requests (one per URI)")

	assertNoErr(t, srv.S.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: a}), "ResourceUpdated")
	assertEqual(t, recv(t, ch1, "update for subscriber 1"), a, "updated uri")
	assertEqual(t, recv(t, ch2, "update for subscriber 2"), a, "updated uri")

	assertNoErr(t, un1(ctx), "unsubscribe 1")
	assertNoErr(t, un1(ctx), "unsubscribe 1 again")
	assertEqual(t, rec.Count("resources/unsubscribe"), 0, "unsubscribe requests while a subscriber is left")
	assertNoErr(t, srv.S.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: a}), "ResourceUpdated")
	assertEqual(t, recv(t, ch2, "update for subscriber 2"), a, "updated uri")
	// b's update is handled after a's: by then subscriber 1 would have run.
	assertNoErr(t, srv.S.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: b}), "ResourceUpdated b")
	assertEqual(t, recv(t, chb, "update for b"), b, "updated uri")
	select {
	case <-ch1:
		t.Error("an unsubscribed callback was called")
	default:
	}

	assertNoErr(t, un2(ctx), "unsubscribe 2")
	assertEqual(t, recv(t, p.unsubs, "resources/unsubscribe"), a, "unsubscribed uri")
	assertNoErr(t, unb(ctx), "unsubscribe b")
	assertEqual(t, recv(t, p.unsubs, "resources/unsubscribe"), b, "unsubscribed uri")
}

// A call the server's capabilities do not allow fails at once with
// ErrUnsupported, and nothing reaches the server.
func TestSessionUnsupported(t *testing.T) {
	t.Parallel()
	var rec *mcptest.Recorder
	bare := mcptest.New(t, &mcptest.Options{
		ServerOptions: &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{}},
		Setup:         func(s *mcp.Server) { rec = mcptest.Record(s) },
	})
	s := dialSession(t, bare.URL, nil)
	checkUnsupported(t, s.ListTools, s.ListPrompts, s.ListResources, s.ListResourceTemplates,
		s.CallTool, s.GetPrompt, s.ReadResource, s.Complete, s.SetLoggingLevel, s.SubscribeResource)
	assertNoErr(t, s.Ping(testCtx(t)), "Ping")
	want := []string{"initialize", "notifications/initialized", "ping"}
	if testEra == "modern" {
		want = []string{"server/discover", "server/discover"} // the opening, then Ping
	}
	assertEqual(t, rec.Methods(), want, "methods the server received")

	// Resources without subscribe: reading works, subscribing does not.
	noSub := mcptest.New(t, &mcptest.Options{ServerOptions: &mcp.ServerOptions{}, Setup: func(s *mcp.Server) {
		s.AddResource(mcptest.Resource("file:///a.txt", func() string { return "a" }))
	}})
	s2 := dialSession(t, noSub.URL, nil)
	_, err := s2.ReadResource(testCtx(t), "file:///a.txt")
	assertNoErr(t, err, "ReadResource")
	_, err = s2.SubscribeResource(testCtx(t), "file:///a.txt", func(string) {})
	assertErr(t, err, errs(mcplive.ErrUnsupported), "resources.subscribe", "resources/subscribe")
}

// A resources/read result that took a retry (inputResponses, requestState)
// says so, and must never be cached (caching, 2026-07-28); one that did not
// does not.
func TestSeedReadRetriedIsMarked(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{Answer: func(r *scripted.Request) json.RawMessage {
		if r.Method != "resources/read" {
			return nil
		}
		var p struct {
			URI          string  `json:"uri"`
			RequestState *string `json:"requestState"`
		}
		_ = json.Unmarshal(r.Params, &p)
		if p.URI == "mem://ask" && p.RequestState == nil {
			return json.RawMessage(`{"resultType":"input_required","requestState":"s1"}`)
		}
		return json.RawMessage(`{"resultType":"complete","ttlMs":60000,"cacheScope":"public","contents":[{"uri":"` + p.URI + `","text":"t"}]}`)
	}}, 0)
	c := liveConnect(t, srv.URL, modernOptions())
	res, err := c.ReadResource(t.Context(), "mem://ask")
	assertNoErr(t, err, "ReadResource after a retry")
	assertEqual(t, res.Retried, true, "Retried after a round")
	res, err = c.ReadResource(t.Context(), "mem://plain")
	assertNoErr(t, err, "ReadResource")
	assertEqual(t, res.Retried, false, "Retried without a round")
}

func checkUnsupported(t *testing.T,
	listTools func(context.Context) ([]mcplive.Tool, error),
	listPrompts func(context.Context) ([]mcplive.Prompt, error),
	listResources func(context.Context) ([]mcplive.Resource, error),
	listTemplates func(context.Context) ([]mcplive.ResourceTemplate, error),
	callTool func(context.Context, string, any, *mcplive.CallToolOptions) (*mcplive.CallToolResult, error),
	getPrompt func(context.Context, string, map[string]string) (*mcplive.GetPromptResult, error),
	readResource func(context.Context, string) (*mcplive.ReadResourceResult, error),
	complete func(context.Context, mcplive.CompleteParams) (*mcplive.CompleteResult, error),
	setLevel func(context.Context, string) error,
	subscribe func(context.Context, string, func(string)) (func(context.Context) error, error),
) {
	t.Helper()
	ctx := testCtx(t)
	var err error
	unsupported := func(method, capability string) {
		t.Helper()
		assertErr(t, err, errs(mcplive.ErrUnsupported), method, capability)
	}
	_, err = listTools(ctx)
	unsupported("tools/list", "tools")
	_, err = listPrompts(ctx)
	unsupported("prompts/list", "prompts")
	_, err = listResources(ctx)
	unsupported("resources/list", "resources")
	_, err = listTemplates(ctx)
	unsupported("resources/templates/list", "resources")
	_, err = callTool(ctx, "x", nil, nil)
	unsupported("tools/call", "tools")
	_, err = getPrompt(ctx, "x", nil)
	unsupported("prompts/get", "prompts")
	_, err = readResource(ctx, "file:///x")
	unsupported("resources/read", "resources")
	_, err = complete(ctx, mcplive.CompleteParams{Ref: mcplive.CompleteRef{Type: "ref/prompt", Name: "x"}})
	unsupported("completion/complete", "completions")
	err = setLevel(ctx, "info")
	unsupported("logging/setLevel", "logging")
	_, err = subscribe(ctx, "file:///x", func(string) {})
	unsupported("resources/subscribe", "resources.subscribe")
}

// checkLogging calls the "log" tool (debug, info, warning, error) around
// SetLoggingLevel, through setLevel and call.
func checkLogging(t *testing.T, logs chan mcplive.LogMessage, setLevel func(string) error, call func() error) {
	// No level set yet: go-sdk sends nothing.
	assertNoErr(t, call(), "log call before SetLoggingLevel")
	assertNoErr(t, setLevel("warning"), "SetLoggingLevel warning")
	assertNoErr(t, call(), "log call")
	// Messages arrive in order: had the first call logged anything, or
	// had the level been ignored, the first one here would differ.
	assertEqual(t, levelOf(t, recv(t, logs, "log message")), "warning", "first message at level warning")
	assertEqual(t, levelOf(t, recv(t, logs, "log message")), "error", "second message at level warning")
	assertNoErr(t, setLevel("debug"), "SetLoggingLevel debug")
	assertNoErr(t, call(), "log call")
	for _, want := range []string{"debug", "info", "warning", "error"} {
		assertEqual(t, levelOf(t, recv(t, logs, "log message")), want, "message at level debug")
	}
}

// logSink collects OnLog messages.
func logSink() (chan mcplive.LogMessage, func(mcplive.LogMessage)) {
	ch := make(chan mcplive.LogMessage, 64)
	return ch, func(m mcplive.LogMessage) { ch <- m }
}

func levelOf(t testing.TB, m mcplive.LogMessage) string {
	t.Helper()
	var d struct{ Level string }
	assertNoErr(t, json.Unmarshal(m.Data, &d), "log data")
	if d.Level != m.Level {
		t.Errorf("log message level %q carries data %s", m.Level, m.Data)
	}
	assertEqual(t, m.Logger, "test", "logger")
	return m.Level
}
