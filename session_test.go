package mcplive_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// serverCancelled checks that the server's handler of a cancelled call saw
// its context end (in 2026-07-28 over Streamable HTTP, by the closing of the
// request's stream).
func serverCancelled(t *testing.T, p *sdkProbe) {
	t.Helper()
	assertEqual(t, recv(t, p.cancelled, "server-side cancellation"), context.Canceled, "handler context error")
}
