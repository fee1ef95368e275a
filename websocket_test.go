package mcplive_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCancelNeverBreaksTheConnection cancels many calls at random moments,
// some while their request is being written. coder/websocket closes the
// whole connection when a Write's context ends mid-frame; a user aborting
// one call must not take every other call down with it.
func TestCancelNeverBreaksTheConnection(t *testing.T) {
	t.Parallel()
	big := make(map[string]any)
	for i := range 200 { // a request of some size, so a cancel can hit its write
		big[fmt.Sprint("k", i)] = "some argument text to make the frame longer"
	}
	srv := mcptest.New(t, &mcptest.Options{Setup: func(s *mcp.Server) {
		s.AddTool(mcptest.Tool("slow"), func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-ctx.Done():
			case <-time.After(time.Millisecond):
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}})
	// No budget for the 300 calls together (a loaded machine may take
	// minutes): each call is bounded by the session's request timeout.
	ctx := testCtx(t)
	s, err := mcplive.NewSession(ctx, testTransport(t, srv.URL), eraOptions(nil))
	assertNoErr(t, err, "NewSession")
	defer s.Close()
	for i := range 300 {
		cctx, cancel := context.WithCancel(ctx)
		go func() {
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
			cancel()
		}()
		_, err := s.CallTool(cctx, "slow", big, nil)
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("call %d: %v (want success or context.Canceled)", i, err)
		}
		select {
		case <-s.Done():
			t.Fatalf("call %d: cancelling a call closed the connection: %v", i, s.Err())
		default:
		}
	}
	assertNoErr(t, s.Ping(ctx), "ping after 300 cancelled calls")
}
