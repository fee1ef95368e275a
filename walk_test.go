package mcplive_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/mcplive/mcplive/internal/scripted"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

// In this revision an empty-string cursor is a cursor: only an absent
// nextCursor ends a walk.
func TestModernEmptyCursor(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{EmptyCursors: true}, 2)
	var tools []json.RawMessage
	var want []string
	for i := range 7 {
		tools = append(tools, scripted.Tool(fmt.Sprint("t", i)))
		want = append(want, fmt.Sprint("t", i))
	}
	srv.Set(scripted.Tools, tools...)
	c := liveConnect(t, srv.URL, modernOptions())
	if got := liveKeys(c.Tools().Snapshot().Items); !liveSameKeys(got, want) {
		t.Fatalf("tools: %v, want %v", got, want)
	}
	assertEqual(t, srv.Count("tools/list"), 4, "pages")
}

// A result that is not complete is a clear error.
func TestModernIncompleteResult(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{ToolResult: json.RawMessage(`{"resultType":"input_required","inputRequests":{}}`)}, 0)
	c := liveConnect(t, srv.URL, modernOptions())
	_, err := c.CallTool(liveCtx(t), "a", nil, nil)
	if !errors.Is(err, mcplive.ErrIncompleteResult) || !strings.Contains(err.Error(), "input_required") {
		t.Fatalf("CallTool = %v, want ErrIncompleteResult naming input_required", err)
	}
}

// A cursor the server refuses (invalid params) starts the walk over from
// its first page, once; a second refusal is the walk's error.
func TestSeedRefusedCursorWalksAgain(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 2)
	srv.Set("tools", scripted.Tool("a"), scripted.Tool("b"), scripted.Tool("c"))
	var mu sync.Mutex
	refusals := 1
	srv.Hook = func(r *scripted.Request) error {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == "tools/list" && r.Cursor() != "" && refusals > 0 {
			refusals--
			return scripted.RawError(json.RawMessage(`{"code":-32602,"message":"invalid cursor"}`))
		}
		return nil
	}
	c := liveConnect(t, srv.URL, nil)
	if s := c.Tools().Snapshot(); s.Status != mcplive.StatusReady || !liveSameKeys(liveKeys(s.Items), []string{"a", "b", "c"}) {
		t.Fatalf("tools after a refused cursor: %s", liveDescribe(s))
	}
	assertEqual(t, srv.Count("tools/list"), 4, "tools/list requests (1 + the refused one, then 2 from the start)")
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
