package mcplive_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
)

// Tests of Session and of the calls of Client against the official go-sdk
// server over a real WebSocket on 127.0.0.1.

// sdkProbe is what the tools of a test server report through.
type sdkProbe struct {
	started   chan string   // "block" began: its "id" argument
	cancelled chan error    // "block" saw its context end, with ctx.Err()
	release   chan struct{} // closed when the test ends: "block" returns
	subs      chan string   // resources/subscribe reached the server
	unsubs    chan string   // resources/unsubscribe reached the server
	initParam chan *mcp.InitializeParams
}

const progressSteps = 50

// startSDKServer starts a go-sdk server with every feature the client
// calls: tools echo, progress, log, block, rpcfail and toolfail; prompt
// greet; resource file:///a.txt and file:///b.txt; template file:///t/{name};
// completions; logging; subscriptions. configure may change the options.
func startSDKServer(t testing.TB, configure func(*mcp.ServerOptions)) (*mcptest.Server, *sdkProbe, *mcptest.Recorder) {
	t.Helper()
	p := &sdkProbe{
		started:   make(chan string, 16),
		cancelled: make(chan error, 16),
		release:   make(chan struct{}),
		subs:      make(chan string, 16),
		unsubs:    make(chan string, 16),
		initParam: make(chan *mcp.InitializeParams, 4),
	}
	so := mcptest.DefaultServerOptions(0)
	so.Instructions = "be kind"
	so.SubscribeHandler = func(_ context.Context, r *mcp.SubscribeRequest) error {
		p.subs <- r.Params.URI
		return nil
	}
	so.UnsubscribeHandler = func(_ context.Context, r *mcp.UnsubscribeRequest) error {
		p.unsubs <- r.Params.URI
		return nil
	}
	if configure != nil {
		configure(so)
	}
	var rec *mcptest.Recorder
	srv := mcptest.New(t, &mcptest.Options{ServerOptions: so, Setup: func(s *mcp.Server) {
		rec = mcptest.Record(s)
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if ip, ok := req.GetParams().(*mcp.InitializeParams); ok && method == "initialize" {
					p.initParam <- ip
				}
				return next(ctx, method, req)
			}
		})
		addSDKFeatures(s, p)
	}})
	t.Cleanup(func() { close(p.release) }) // runs before the server stops
	return srv, p, rec
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func addSDKFeatures(s *mcp.Server, p *sdkProbe) {
	s.AddTool(mcptest.Tool("echo"), func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Text string }
		if err := json.Unmarshal(r.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return textResult("echo: " + in.Text), nil
	})
	s.AddTool(mcptest.Tool("progress"), func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tok := r.Params.GetProgressToken()
		if tok == nil {
			return textResult("no token"), nil
		}
		for i := 1; i <= progressSteps; i++ {
			err := r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: tok, Progress: float64(i), Total: progressSteps, Message: fmt.Sprintf("step %d", i),
			})
			if err != nil {
				return nil, err
			}
		}
		return textResult("done"), nil
	})
	s.AddTool(mcptest.Tool("log"), func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, lvl := range []mcp.LoggingLevel{"debug", "info", "warning", "error"} {
			if err := r.Session.Log(ctx, &mcp.LoggingMessageParams{Level: lvl, Logger: "test", Data: map[string]string{"level": string(lvl)}}); err != nil {
				return nil, err
			}
		}
		return textResult("logged"), nil
	})
	s.AddTool(mcptest.Tool("block"), func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ ID string }
		_ = json.Unmarshal(r.Params.Arguments, &in)
		p.started <- in.ID
		select {
		case <-ctx.Done():
			p.cancelled <- ctx.Err()
			return nil, ctx.Err()
		case <-p.release:
			return textResult("released"), nil
		}
	})
	s.AddTool(mcptest.Tool("rpcfail"), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32010, Message: "teapot", Data: json.RawMessage(`{"why":"test"}`)}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "toolfail"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("the tool broke")
	})
	s.AddPrompt(mcptest.Prompt("greet"))
	s.AddResource(mcptest.Resource("file:///a.txt", func() string { return "hello a" }))
	s.AddResource(mcptest.Resource("file:///b.txt", func() string { return "hello b" }))
	s.AddResourceTemplate(mcptest.Template("file:///t/{name}"))
}

// dialSession opens a Session on url and closes it when the test ends.
func dialSession(t testing.TB, url string, opts *mcplive.Options) *mcplive.Session {
	t.Helper()
	s, err := mcplive.NewSession(testCtx(t), testTransport(t, url), eraOptions(opts))
	assertNoErr(t, err, "NewSession")
	t.Cleanup(func() { s.Close() })
	return s
}

// dialClient connects a Client to url and closes it when the test ends.
func dialClient(t testing.TB, url string, opts *mcplive.Options) *mcplive.Client {
	t.Helper()
	c, err := mcplive.Connect(testCtx(t), url, eraOptions(opts))
	assertNoErr(t, err, "Connect")
	t.Cleanup(func() { c.Close() })
	return c
}

func TestSessionInitialize(t *testing.T) {
	t.Parallel()
	onlyIn(t, "legacy")
	srv, p, rec := startSDKServer(t, nil)
	s := dialSession(t, srv.URL, &mcplive.Options{ClientInfo: mcplive.Implementation{Name: "tester", Version: "9.9"}})

	ip := recv(t, p.initParam, "initialize params")
	assertEqual(t, ip.ProtocolVersion, "2025-11-25", "protocolVersion sent")
	assertEqual(t, ip.ClientInfo.Name, "tester", "clientInfo.name sent")
	assertEqual(t, ip.ClientInfo.Version, "9.9", "clientInfo.version sent")

	res := s.InitializeResult()
	assertEqual(t, res.ProtocolVersion, mcplive.ProtocolVersion, "negotiated version")
	assertEqual(t, res.ServerInfo.Name, "mcptest", "server name")
	assertEqual(t, res.ServerInfo.Version, "1.0.0", "server version")
	assertEqual(t, res.Instructions, "be kind", "instructions")
	caps := res.Capabilities
	if caps.Tools == nil || !caps.Tools.ListChanged || caps.Prompts == nil || caps.Resources == nil ||
		!caps.Resources.Subscribe || caps.Logging == nil || caps.Completions == nil {
		t.Errorf("capabilities incomplete: %s", res.Raw)
	}
	if !json.Valid(res.Raw) || !strings.Contains(string(res.Raw), `"serverInfo"`) {
		t.Errorf("Raw is not the initialize result: %s", res.Raw)
	}
	// initialized follows initialize, before any other request.
	assertNoErr(t, s.Ping(testCtx(t)), "Ping")
	want := []string{"initialize", "notifications/initialized", "ping"}
	if testEra == "modern" {
		want = []string{"server/discover", "server/discover"} // the opening, then Ping
	}
	assertEqual(t, rec.Methods(), want, "methods the server received")
	select {
	case <-s.Done():
		t.Fatalf("Done closed on an open session: %v", s.Err())
	default:
	}
	assertEqual(t, s.Err(), nil, "Err of an open session")
}

// A go-sdk server limited to older revisions negotiates down; the client
// accepts 2025-06-18 and 2025-03-26 and refuses anything else.
func TestSessionVersionNegotiation(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"2025-06-18", "2025-03-26", "2024-11-05"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			srv, _, rec := startSDKServer(t, func(o *mcp.ServerOptions) { o.SupportedProtocolVersions = []string{v} })
			s, err := mcplive.NewSession(testCtx(t), testTransport(t, srv.URL), eraOptions(nil))
			if v == "2024-11-05" {
				assertErr(t, err, errs(mcplive.ErrProtocol), `"2024-11-05"`, `"2025-11-25"`, "initialize")
				if s != nil {
					t.Fatal("NewSession returned a session with its error")
				}
				assertEqual(t, rec.Count("notifications/initialized"), 0, "initialized sent after a refused version")
				return
			}
			assertNoErr(t, err, "NewSession")
			defer s.Close()
			assertEqual(t, s.InitializeResult().ProtocolVersion, v, "negotiated version")
			tools, err := s.ListTools(testCtx(t))
			assertNoErr(t, err, "ListTools")
			if len(tools) == 0 {
				t.Error("no tools listed")
			}
		})
	}
	t.Run("client", func(t *testing.T) {
		t.Parallel()
		srv, _, _ := startSDKServer(t, func(o *mcp.ServerOptions) { o.SupportedProtocolVersions = []string{"2025-06-18"} })
		c := dialClient(t, srv.URL, nil)
		assertEqual(t, c.ProtocolVersion(), "2025-06-18", "Client.ProtocolVersion")
		srv2, _, _ := startSDKServer(t, func(o *mcp.ServerOptions) { o.SupportedProtocolVersions = []string{"2024-11-05"} })
		c2, err := mcplive.Connect(testCtx(t), srv2.URL, eraOptions(nil))
		assertErr(t, err, errs(mcplive.ErrProtocol), "2024-11-05")
		if c2 != nil {
			t.Error("Connect returned a client with its error")
		}
	})
}

// listServer serves n of each list item, paged by pageSize.
func listServer(t testing.TB, pageSize, n int) (*mcptest.Server, *mcptest.Recorder) {
	var rec *mcptest.Recorder
	srv := mcptest.New(t, &mcptest.Options{PageSize: pageSize, Setup: func(s *mcp.Server) {
		rec = mcptest.Record(s)
		for i := 0; i < n; i++ {
			s.AddTool(mcptest.Tool(fmt.Sprintf("tool%02d", i)), mcptest.EchoHandler("x"))
			s.AddPrompt(mcptest.Prompt(fmt.Sprintf("prompt%02d", i)))
			s.AddResource(mcptest.Resource(fmt.Sprintf("file:///r%02d", i), func() string { return "" }))
			s.AddResourceTemplate(mcptest.Template(fmt.Sprintf("file:///t%02d/{x}", i)))
		}
	}})
	return srv, rec
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(prefix, i)
	}
	return out
}

func keys[T interface{ Key() string }](items []T) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Key()
	}
	return out
}

func TestSessionListPagination(t *testing.T) {
	t.Parallel()
	const n = 7
	for _, tc := range []struct{ pageSize, n int }{{1, n}, {3, n}, {100, n}, {1, 0}, {3, 0}, {7, 7}} {
		t.Run(fmt.Sprintf("page%d_items%d", tc.pageSize, tc.n), func(t *testing.T) {
			t.Parallel()
			srv, rec := listServer(t, tc.pageSize, tc.n)
			s := dialSession(t, srv.URL, nil)
			ctx := testCtx(t)
			pages := max(1, (tc.n+tc.pageSize-1)/tc.pageSize)

			tools, err := s.ListTools(ctx)
			assertNoErr(t, err, "ListTools")
			assertEqual(t, keys(tools), names("tool%02d", tc.n), "tools")
			prompts, err := s.ListPrompts(ctx)
			assertNoErr(t, err, "ListPrompts")
			assertEqual(t, keys(prompts), names("prompt%02d", tc.n), "prompts")
			res, err := s.ListResources(ctx)
			assertNoErr(t, err, "ListResources")
			assertEqual(t, keys(res), names("file:///r%02d", tc.n), "resources")
			tpl, err := s.ListResourceTemplates(ctx)
			assertNoErr(t, err, "ListResourceTemplates")
			assertEqual(t, keys(tpl), names("file:///t%02d/{x}", tc.n), "resource templates")

			for _, m := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
				assertEqual(t, rec.Count(m), pages, m+" requests (pages)")
			}
			if tc.n > 0 {
				// Every item keeps its raw JSON, and the decoded fields match it.
				tl := tools[0]
				var raw map[string]any
				assertNoErr(t, json.Unmarshal(tl.Raw, &raw), "tool raw JSON")
				assertEqual(t, raw["name"], any(tl.Name), "raw name")
				assertEqual(t, tl.Description, "tool tool00", "description")
				if !strings.Contains(string(tl.InputSchema), `"object"`) {
					t.Errorf("inputSchema = %s", tl.InputSchema)
				}
				// Raw JSON may share memory: appending to one item's must
				// not touch the next one's.
				if len(tools) > 1 {
					next := string(tools[1].Raw)
					_ = append(tools[0].Raw, `,"garbage"`...)
					assertEqual(t, string(tools[1].Raw), next, "next tool's raw JSON after an append to the first")
				}
				assertEqual(t, len(prompts[0].Arguments), 1, "prompt arguments")
				assertEqual(t, res[0].MIMEType, "text/plain", "resource mimeType")
			}
		})
	}
}

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

func TestSessionRPCErrors(t *testing.T) {
	t.Parallel()
	srv, _, _ := startSDKServer(t, nil)
	s := dialSession(t, srv.URL, nil)
	ctx := testCtx(t)

	check := func(err error, code int64, text string) *mcplive.RPCError {
		t.Helper()
		var re *mcplive.RPCError
		if !errors.As(err, &re) {
			t.Fatalf("error %v (%T) is not an *RPCError", err, err)
		}
		assertEqual(t, re.Code, code, "code of "+err.Error())
		if !strings.Contains(re.Message, text) || !strings.Contains(err.Error(), text) {
			t.Errorf("error %q: message %q does not mention %q", err, re.Message, text)
		}
		if errors.Is(err, mcplive.ErrClosed) || errors.Is(err, mcplive.ErrProtocol) {
			t.Errorf("a server error must not look like a broken connection: %v", err)
		}
		return re
	}
	_, err := s.CallTool(ctx, "nope", nil, nil)
	check(err, mcplive.CodeInvalidParams, "unknown tool")
	_, err = s.CallTool(ctx, "rpcfail", nil, nil)
	re := check(err, -32010, "teapot")
	assertEqual(t, string(re.Data), `{"why":"test"}`, "error data")
	_, err = s.GetPrompt(ctx, "nope", nil)
	check(err, mcplive.CodeInvalidParams, "nope")
	_, err = s.ReadResource(ctx, "file:///missing")
	check(err, mcp.CodeResourceNotFound, "not found")

	// A tool that fails reports it in the result, not as an error.
	res, err := s.CallTool(ctx, "toolfail", map[string]any{}, nil)
	assertNoErr(t, err, "CallTool toolfail")
	if !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "the tool broke") {
		t.Errorf("toolfail result = %s", res.Raw)
	}
	// The connection is still fine.
	assertNoErr(t, s.Ping(ctx), "Ping after errors")
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

// A request that gets no answer within RequestTimeout fails with
// ErrTimeout, and the server sees notifications/cancelled: go-sdk cancels
// the handler's context, which the "block" tool reports.
func TestSessionTimeout(t *testing.T) {
	t.Parallel()
	srv, p, _ := startSDKServer(t, nil)
	const timeout = time.Second
	s := dialSession(t, srv.URL, &mcplive.Options{RequestTimeout: timeout})
	_, err := s.CallTool(testCtx(t), "block", map[string]string{"id": "t"}, nil)
	assertErr(t, err, errs(mcplive.ErrTimeout), "tools/call", timeout.String())
	assertEqual(t, recv(t, p.started, "block started"), "t", "started")
	serverCancelled(t, p)
	// The connection survives a timeout: a ping is answered. (On a
	// loaded machine a ping may itself miss the one-second timeout: that
	// is asked again; a dead connection fails with another error.)
	ctx := testCtx(t)
	for {
		err := s.Ping(ctx)
		if !errors.Is(err, mcplive.ErrTimeout) || ctx.Err() != nil {
			assertNoErr(t, err, "Ping after a timeout")
			break
		}
	}
}

// A caller's deadline that ends first is the caller's: it matches
// context.DeadlineExceeded; the server still sees notifications/cancelled.
func TestSessionCallerDeadline(t *testing.T) {
	t.Parallel()
	srv, p, _ := startSDKServer(t, nil)
	s := dialSession(t, srv.URL, nil)
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		dctx, dcancel := context.WithDeadline(ctx, time.Now().Add(time.Hour))
		defer dcancel()
		go func() {
			<-p.started
			dcancel() // as if the deadline passed: Cancel, tested below
		}()
		_, err := s.CallTool(dctx, "block", nil, nil)
		errc <- err
	}()
	err := recv(t, errc, "CallTool result")
	assertErr(t, err, errs(context.Canceled))
	serverCancelled(t, p)

	// A real deadline of the caller.
	dctx, dcancel := context.WithTimeout(testCtx(t), time.Second)
	defer dcancel()
	_, err = s.CallTool(dctx, "block", nil, nil)
	assertErr(t, err, errs(context.DeadlineExceeded))
	recv(t, p.started, "block started")
	serverCancelled(t, p)
	assertNoErr(t, s.Ping(testCtx(t)), "Ping after a cancellation")
}

func TestSessionCancel(t *testing.T) {
	t.Parallel()
	srv, p, _ := startSDKServer(t, nil)
	s := dialSession(t, srv.URL, nil)
	ctx, cancel := context.WithCancel(testCtx(t))
	errc := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, "block", map[string]string{"id": "c"}, nil)
		errc <- err
	}()
	assertEqual(t, recv(t, p.started, "block started"), "c", "started")
	cancel()
	assertErr(t, recv(t, errc, "CallTool result"), errs(context.Canceled))
	serverCancelled(t, p)
	assertNoErr(t, s.Ping(testCtx(t)), "Ping after a cancellation")
}

// Close fails every call in flight with ErrClosed at once, and every later
// call too.
func TestSessionCloseInFlight(t *testing.T) {
	t.Parallel()
	srv, p, _ := startSDKServer(t, nil)
	s, err := mcplive.NewSession(testCtx(t), testTransport(t, srv.URL), eraOptions(nil))
	assertNoErr(t, err, "NewSession")
	const n = 3
	errc := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			_, err := s.CallTool(context.Background(), "block", map[string]string{"id": fmt.Sprint(i)}, nil)
			errc <- err
		}()
	}
	for i := 0; i < n; i++ {
		recv(t, p.started, "block started")
	}
	assertNoErr(t, s.Close(), "Close")
	for i := 0; i < n; i++ {
		assertErr(t, recv(t, errc, "call in flight to return"), errs(mcplive.ErrClosed), "closed")
	}
	select {
	case <-s.Done():
	default:
		t.Error("Done not closed after Close")
	}
	assertErr(t, s.Err(), errs(mcplive.ErrClosed))
	assertErr(t, s.Ping(testCtx(t)), errs(mcplive.ErrClosed), heartbeatMethod())
	_, err = s.ListTools(testCtx(t))
	assertErr(t, err, errs(mcplive.ErrClosed), "tools/list")
	assertNoErr(t, s.Close(), "second Close")
}

// The same calls through Client.
func TestClientCalls(t *testing.T) {
	t.Parallel()
	srv, p, _ := startSDKServer(t, nil)
	logs, onLog := logSink()
	c := dialClient(t, srv.URL, &mcplive.Options{OnLog: onLog})
	ctx := testCtx(t)

	assertEqual(t, c.State(), mcplive.StateReady, "state")
	assertEqual(t, c.ProtocolVersion(), eraVersion(), "protocol version")
	assertEqual(t, c.ServerInfo().Name, "mcptest", "server name")
	assertEqual(t, c.Instructions(), "be kind", "instructions")
	if !strings.Contains(string(c.Capabilities()), `"subscribe":true`) {
		t.Errorf("Capabilities = %s", c.Capabilities())
	}
	tools := c.Tools().Snapshot()
	assertEqual(t, tools.Status, mcplive.StatusReady, "tools status")
	assertEqual(t, keys(tools.Items), []string{"block", "echo", "log", "progress", "rpcfail", "toolfail"}, "tools")
	assertEqual(t, keys(c.Resources().Snapshot().Items), []string{"file:///a.txt", "file:///b.txt"}, "resources")

	res, err := c.CallTool(ctx, "echo", map[string]string{"text": "hi"}, nil)
	assertNoErr(t, err, "CallTool")
	assertEqual(t, res.Content[0].Text, "echo: hi", "CallTool result")
	var steps int
	_, err = c.CallTool(ctx, "progress", nil, &mcplive.CallToolOptions{OnProgress: func(mcplive.Progress) { steps++ }})
	assertNoErr(t, err, "CallTool progress")
	gp, err := c.GetPrompt(ctx, "greet", map[string]string{"text": "x"})
	assertNoErr(t, err, "GetPrompt")
	assertEqual(t, gp.Messages[0].Content.Text, "greet: x", "GetPrompt result")
	rr, err := c.ReadResource(ctx, "file:///b.txt")
	assertNoErr(t, err, "ReadResource")
	assertEqual(t, *rr.Contents[0].Text, "hello b", "ReadResource result")
	cr, err := c.Complete(ctx, mcplive.CompleteParams{Ref: mcplive.CompleteRef{Type: "ref/prompt", Name: "greet"}, Argument: mcplive.CompleteArgument{Name: "text", Value: "a"}})
	assertNoErr(t, err, "Complete")
	assertEqual(t, cr.Completion.Values, []string{"a-done"}, "Complete result")
	assertNoErr(t, c.Ping(ctx), "Ping")
	_, err = c.CallTool(ctx, "nope", nil, nil)
	var re *mcplive.RPCError
	if !errors.As(err, &re) || re.Code != mcplive.CodeInvalidParams {
		t.Errorf("unknown tool: %v", err)
	}
	checkLogging(t, logs,
		func(l string) error { return c.SetLoggingLevel(ctx, l) },
		func() error { _, err := c.CallTool(ctx, "log", nil, nil); return err })

	updates := make(chan string, 8)
	un, err := c.SubscribeResource(ctx, "file:///a.txt", func(uri string) { updates <- uri })
	assertNoErr(t, err, "SubscribeResource")
	assertEqual(t, recv(t, p.subs, "resources/subscribe"), "file:///a.txt", "subscribed")
	assertNoErr(t, srv.S.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "file:///a.txt"}), "ResourceUpdated")
	assertEqual(t, recv(t, updates, "resource update"), "file:///a.txt", "updated")
	assertNoErr(t, un(ctx), "unsubscribe")
	assertEqual(t, recv(t, p.unsubs, "resources/unsubscribe"), "file:///a.txt", "unsubscribed")
}

func TestClientUnsupported(t *testing.T) {
	t.Parallel()
	bare := mcptest.New(t, &mcptest.Options{ServerOptions: &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{}}})
	c := dialClient(t, bare.URL, nil)
	for _, st := range []mcplive.Status{c.Tools().Snapshot().Status, c.Prompts().Snapshot().Status,
		c.Resources().Snapshot().Status, c.ResourceTemplates().Snapshot().Status} {
		assertEqual(t, st, mcplive.StatusUnsupported, "list status")
	}
	ctx := testCtx(t)
	_, err := c.CallTool(ctx, "x", nil, nil)
	assertErr(t, err, errs(mcplive.ErrUnsupported), "tools/call")
	_, err = c.GetPrompt(ctx, "x", nil)
	assertErr(t, err, errs(mcplive.ErrUnsupported), "prompts/get")
	_, err = c.ReadResource(ctx, "file:///x")
	assertErr(t, err, errs(mcplive.ErrUnsupported), "resources/read")
	_, err = c.Complete(ctx, mcplive.CompleteParams{})
	assertErr(t, err, errs(mcplive.ErrUnsupported), "completion/complete")
	assertErr(t, c.SetLoggingLevel(ctx, "info"), errs(mcplive.ErrUnsupported), "logging/setLevel")
	_, err = c.SubscribeResource(ctx, "file:///x", func(string) {})
	assertErr(t, err, errs(mcplive.ErrUnsupported), "resources/subscribe")
	assertErr(t, c.Refresh(ctx, mcplive.KindTools), errs(mcplive.ErrUnsupported), "tools")
}

func TestClientTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	srv, p, _ := startSDKServer(t, nil)
	const timeout = time.Second
	c := dialClient(t, srv.URL, &mcplive.Options{RequestTimeout: timeout})
	_, err := c.CallTool(testCtx(t), "block", map[string]string{"id": "t"}, nil)
	assertErr(t, err, errs(mcplive.ErrTimeout), "tools/call")
	recv(t, p.started, "block started")
	serverCancelled(t, p)
	assertNoErr(t, c.Ping(testCtx(t)), "Ping after a timeout")
	assertEqual(t, c.State(), mcplive.StateReady, "state")

	// The cancellation, on a client with the default request timeout: the
	// test's cancel must end the call, however long a loaded machine takes
	// to tell the test that the call started.
	c = dialClient(t, srv.URL, nil)
	ctx, cancel := context.WithCancel(testCtx(t))
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "block", map[string]string{"id": "c"}, nil)
		errc <- err
	}()
	recv(t, p.started, "block started")
	cancel()
	assertErr(t, recv(t, errc, "CallTool result"), errs(context.Canceled))
	serverCancelled(t, p)
	assertNoErr(t, c.Ping(testCtx(t)), "Ping after a cancellation")
	assertEqual(t, c.State(), mcplive.StateReady, "state")
}

func TestClientCloseInFlight(t *testing.T) {
	t.Parallel()
	srv, p, _ := startSDKServer(t, nil)
	c, err := mcplive.Connect(testCtx(t), srv.URL, eraOptions(nil))
	assertNoErr(t, err, "Connect")
	const n = 3
	errc := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			_, err := c.CallTool(context.Background(), "block", map[string]string{"id": fmt.Sprint(i)}, nil)
			errc <- err
		}()
	}
	for i := 0; i < n; i++ {
		recv(t, p.started, "block started")
	}
	assertNoErr(t, c.Close(), "Close")
	for i := 0; i < n; i++ {
		assertErr(t, recv(t, errc, "call in flight to return"), errs(mcplive.ErrClosed))
	}
	assertEqual(t, c.State(), mcplive.StateClosed, "state")
	assertErr(t, c.Ping(testCtx(t)), errs(mcplive.ErrClosed), "closed")
	_, err = c.CallTool(testCtx(t), "echo", nil, nil)
	assertErr(t, err, errs(mcplive.ErrClosed), "tools/call")
	assertNoErr(t, c.Close(), "second Close")
}

// serverCancelled checks that the server's handler of a cancelled call saw
// its context end (in 2026-07-28 over Streamable HTTP, by the closing of the
// request's stream).
func serverCancelled(t *testing.T, p *sdkProbe) {
	t.Helper()
	assertEqual(t, recv(t, p.cancelled, "server-side cancellation"), context.Canceled, "handler context error")
}
