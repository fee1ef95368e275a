package mcplive_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/leakcheck"
	"github.com/mcplive/mcplive/internal/mcptest"
)

// Close leaves no goroutine behind, whatever state the Session or Client
// is in. TestMain checks the whole run; these tests check each state on its
// own. They do not call t.Parallel: they count every goroutine of the
// process.

// clientGoroutines returns the goroutines running code of the root
// package, by goroutine header ("goroutine 42 [select]:").
func clientGoroutines() map[string]string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := make(map[string]string)
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "github.com/mcplive/mcplive.") {
			header, _, _ := strings.Cut(g, " [")
			out[header] = g
		}
	}
	return out
}

// noClientGoroutinesSince fails unless every goroutine of the root package
// that was not in before has ended. A goroutine may still be on its way
// out right after Close, so it polls, as goleak does, for as long as a
// loaded machine may need.
func noClientGoroutinesSince(t *testing.T, before map[string]string) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		var left []string
		for h, g := range clientGoroutines() {
			if _, ok := before[h]; !ok {
				left = append(left, g)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutine(s) of the client left after Close:\n\n%s", len(left), strings.Join(left, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNoGoroutineLeaksSession(t *testing.T) {
	defer leakcheck.VerifyNone(t, goleak.IgnoreCurrent())

	t.Run("connected", func(t *testing.T) {
		srv, _, _ := startSDKServer(t, nil)
		before := clientGoroutines()
		s, err := mcplive.NewSession(testCtx(t), testTransport(t, srv.URL), eraOptions(nil))
		assertNoErr(t, err, "NewSession")
		_, err = s.ListTools(testCtx(t))
		assertNoErr(t, err, "ListTools")
		assertNoErr(t, s.Close(), "Close")
		noClientGoroutinesSince(t, before)
		srv.Stop()
	})
	t.Run("mid-call", func(t *testing.T) {
		srv, p, _ := startSDKServer(t, nil)
		before := clientGoroutines()
		s, err := mcplive.NewSession(testCtx(t), testTransport(t, srv.URL), eraOptions(nil))
		assertNoErr(t, err, "NewSession")
		done := async(func() error {
			_, err := s.CallTool(context.Background(), "block", nil, &mcplive.CallToolOptions{OnProgress: func(mcplive.Progress) {}})
			return err
		})
		recv(t, p.started, "block started")
		assertNoErr(t, s.Close(), "Close")
		assertErr(t, recv(t, done, "the call"), errs(mcplive.ErrClosed))
		noClientGoroutinesSince(t, before)
		srv.Stop()
	})
	t.Run("dropped-by-server", func(t *testing.T) {
		srv, _, _ := startSDKServer(t, nil)
		before := clientGoroutines()
		s, err := mcplive.NewSession(testCtx(t), testTransport(t, srv.URL), eraOptions(nil))
		assertNoErr(t, err, "NewSession")
		srv.Stop()
		if testEra == "modern" && mcptest.Transport() == "http" {
			// A 2026-07-28 session over Streamable HTTP holds no stream
			// open without a listen: the next request finds the server gone.
			assertErr(t, s.Ping(testCtx(t)), errs(mcplive.ErrClosed))
		}
		recv(t, s.Done(), "the session to see the drop")
		assertErr(t, s.Err(), errs(mcplive.ErrClosed))
		assertNoErr(t, s.Close(), "Close")
		noClientGoroutinesSince(t, before)
	})
	t.Run("initialize-refused", func(t *testing.T) {
		srv, _, _ := startSDKServer(t, func(o *mcp.ServerOptions) { o.SupportedProtocolVersions = []string{"2024-11-05"} })
		before := clientGoroutines()
		_, err := mcplive.NewSession(testCtx(t), testTransport(t, srv.URL), eraOptions(nil))
		assertErr(t, err, errs(mcplive.ErrProtocol))
		noClientGoroutinesSince(t, before)
		srv.Stop()
	})
	t.Run("protocol-violation", func(t *testing.T) {
		h := startHostile(t, hostileOpts{})
		before := clientGoroutines()
		s, c := hostileSession(t, h, 0, nil)
		c.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`) // an answer is being written
		c.write(websocket.MessageBinary, "garbage")        // a bad message skipped; a binary frame ends it
		recv(t, s.Done(), "the session to end")
		if code := c.closeCode(); code != 4002 && code != websocket.StatusNormalClosure {
			t.Errorf("close code %d", code)
		}
		assertNoErr(t, s.Close(), "Close")
		noClientGoroutinesSince(t, before)
	})
}

func TestNoGoroutineLeaksClient(t *testing.T) {
	defer leakcheck.VerifyNone(t, goleak.IgnoreCurrent())
	fast := mcplive.ReconnectOptions{InitialDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond}

	t.Run("connected", func(t *testing.T) {
		srv, _, _ := startSDKServer(t, nil)
		before := clientGoroutines()
		c, err := mcplive.Connect(testCtx(t), srv.URL, eraOptions(&mcplive.Options{HeartbeatInterval: time.Millisecond}))
		assertNoErr(t, err, "Connect")
		c.Tools().Subscribe(func(mcplive.Update[mcplive.Tool]) {})
		assertNoErr(t, c.Ping(testCtx(t)), "Ping")
		assertNoErr(t, c.Close(), "Close")
		noClientGoroutinesSince(t, before)
		srv.Stop()
	})
	t.Run("mid-call", func(t *testing.T) {
		srv, p, _ := startSDKServer(t, nil)
		before := clientGoroutines()
		c, err := mcplive.Connect(testCtx(t), srv.URL, eraOptions(nil))
		assertNoErr(t, err, "Connect")
		done := async(func() error { _, err := c.CallTool(context.Background(), "block", nil, nil); return err })
		recv(t, p.started, "block started")
		assertNoErr(t, c.Close(), "Close")
		assertErr(t, recv(t, done, "the call"), errs(mcplive.ErrClosed))
		noClientGoroutinesSince(t, before)
		srv.Stop()
	})
	t.Run("mid-sync", func(t *testing.T) {
		srv, _, _ := startSDKServer(t, nil)
		release := make(chan struct{})
		listing := make(chan struct{}, 16)
		srv.S.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					listing <- struct{}{}
					select {
					case <-release:
					case <-ctx.Done():
					}
				}
				return next(ctx, method, req)
			}
		})
		before := clientGoroutines()
		connected := make(chan *mcplive.Client, 1)
		go func() {
			c, _ := mcplive.Connect(context.Background(), srv.URL, eraOptions(nil))
			connected <- c
		}()
		recv(t, listing, "the first tools/list")
		release <- struct{}{}
		c := recv(t, connected, "Connect")
		if c == nil {
			t.Fatal("Connect failed")
		}
		srv.S.AddTool(mcptest.Tool("new"), mcptest.EchoHandler("new"))
		recv(t, listing, "the re-list after list_changed")
		assertNoErr(t, c.Close(), "Close during a re-list")
		noClientGoroutinesSince(t, before)
		srv.Stop()
	})
	t.Run("reconnecting", func(t *testing.T) {
		srv, _, _ := startSDKServer(t, nil)
		before := clientGoroutines()
		c, err := mcplive.Connect(testCtx(t), srv.URL, eraOptions(&mcplive.Options{Reconnect: fast}))
		assertNoErr(t, err, "Connect")
		states := make(chan mcplive.State, 16)
		c.WatchState(func(s mcplive.State) { states <- s })
		srv.Stop()
		for s := recv(t, states, "state"); s != mcplive.StateReconnecting; s = recv(t, states, "state") {
		}
		assertNoErr(t, c.Close(), "Close while reconnecting")
		assertEqual(t, c.State(), mcplive.StateClosed, "state")
		noClientGoroutinesSince(t, before)
	})
	t.Run("close-from-callback", func(t *testing.T) {
		srv, _, _ := startSDKServer(t, nil)
		before := clientGoroutines()
		c, err := mcplive.Connect(testCtx(t), srv.URL, eraOptions(nil))
		assertNoErr(t, err, "Connect")
		closed := make(chan struct{})
		c.Tools().Subscribe(func(mcplive.Update[mcplive.Tool]) {
			c.Close()
			close(closed)
		})
		srv.S.AddTool(mcptest.Tool("new"), mcptest.EchoHandler("new"))
		recv(t, closed, "Close from the subscriber")
		assertNoErr(t, c.Close(), "Close again")
		noClientGoroutinesSince(t, before)
		srv.Stop()
	})
	t.Run("connect-failed", func(t *testing.T) {
		h := startHostile(t, hostileOpts{InitReply: func(json.RawMessage) string { return "not json" }})
		before := clientGoroutines()
		_, err := mcplive.Connect(testCtx(t), h.URL, eraOptions(nil))
		assertErr(t, err, errs(mcplive.ErrProtocol))
		noClientGoroutinesSince(t, before)
	})
}
