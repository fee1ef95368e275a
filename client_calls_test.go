package mcplive_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

// TestClientRequestTimeoutWhileReconnecting: a call that waits for a
// reconnect and runs out of the client's own RequestTimeout fails with
// ErrTimeout (a caller's own deadline gives the caller's context error).
func TestClientRequestTimeoutWhileReconnecting(t *testing.T) {
	t.Parallel()
	srv := mcptest.New(t, &mcptest.Options{Setup: liveSDKSetup})
	// The timeout also bounds every request of Connect's first sync: long
	// enough for each of those on a loaded machine.
	c := liveConnect(t, srv.URL, &mcplive.Options{RequestTimeout: time.Second})
	states := liveWatchStates(t, c)
	srv.Stop()
	states.await(t, mcplive.StateReconnecting)
	_, err := c.CallTool(context.Background(), "tool00", nil, nil)
	if !errors.Is(err, mcplive.ErrTimeout) {
		t.Fatalf("call while the server is down: %v, want ErrTimeout", err)
	}
}
