package mcplive_test

import (
	"slices"
	"testing"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Against the real go-sdk server, the lists stay live through resource
// subscriptions: each subscribe and unsubscribe changes the listen
// stream's filter (a new stream, the old one cancelled), and a tool added
// after it still reaches the list; the updates of the resources subscribed
// still reach their subscribers. go-sdk v1.8.0 keys a session's
// subscriptions by session, not by stream: the cleanup of a cancelled
// stream drops the registrations of the stream that replaced it (over one
// connection: WebSocket) unless the client waits for the old stream's end
// before opening the new one.
func TestModernSDKListsLiveThroughSubscriptions(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	const a, b = "file:///a", "file:///b"
	var rec *mcptest.Recorder
	srv := mcptest.New(t, &mcptest.Options{Setup: func(s *mcp.Server) {
		rec = mcptest.Record(s)
		s.AddTool(mcptest.Tool("t0"), mcptest.EchoHandler("t0"))
		for _, uri := range []string{a, b} {
			s.AddResource(mcptest.Resource(uri, func() string { return "v" }))
		}
	}})
	c := liveConnect(t, srv.URL, modernOptions())
	ctx := liveCtx(t)
	tools := []string{"t0"}
	addTool := func(step string) {
		t.Helper()
		name := "after " + step
		srv.S.AddTool(mcptest.Tool(name), mcptest.EchoHandler(name))
		tools = append(tools, name)
		liveWait(t, c.Tools(), name, liveHasKeys[mcplive.Tool](slices.Clone(tools)))
	}
	updated := func(uri string, got chan string) {
		t.Helper()
		if err := srv.S.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		assertEqual(t, liveRecv(t, got, "update of "+uri), uri, "updated uri")
	}
	methods := []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list", "subscriptions/listen"}
	counts := func() []int {
		var n []int
		for _, m := range methods {
			n = append(n, rec.Count(m))
		}
		return n
	}
	base := counts()

	gotA, gotB := make(chan string, 16), make(chan string, 16)
	unA, err := c.SubscribeResource(ctx, a, func(uri string) { gotA <- uri })
	assertNoErr(t, err, "subscribe a")
	addTool("subscribe a")
	updated(a, gotA)

	unB, err := c.SubscribeResource(ctx, b, func(uri string) { gotB <- uri })
	assertNoErr(t, err, "subscribe b")
	addTool("subscribe b")
	updated(a, gotA)
	updated(b, gotB)

	assertNoErr(t, unA(ctx), "unsubscribe a")
	addTool("unsubscribe a")
	updated(b, gotB)

	assertNoErr(t, unB(ctx), "unsubscribe b")
	addTool("unsubscribe b")
	end := counts()
	for i, m := range methods {
		t.Logf("%s after Connect: %d", m, end[i]-base[i])
	}
	t.Logf("(4 subscription changes; 4 tools added: 4 walks of tools/list follow them at the least)")
}
