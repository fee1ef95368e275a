package mcplive_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool parameters marked x-mcp-header (2026-07-28 over Streamable HTTP,
// SEP-2243), against the go-sdk server, which checks the Mcp-Param headers
// of a call against its body (a missing or wrong one fails the call with
// -32020): the tools list leaves out the tools whose marks are invalid
// (with a warning) and keeps the others; a call carries each marked
// argument in its header, encoded. In 2025-11-25 and over WebSocket the
// marks mean nothing: no tool is left out, no header is sent. The same for
// a Client's live list and a bare Session.
func TestHTTPParamHeaders(t *testing.T) {
	t.Parallel()
	for _, tr := range sdkTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			calls := make(chan http.Header, 2)
			srv := tr.start(t, &mcptest.Options{Setup: func(s *mcp.Server) { paramsSetup(s, calls) }})
			mirrors := srv.HTTP != nil && !legacyEra()
			wantTools := []string{"plain", "route"}
			wantHeaders := map[string]string{
				"Mcp-Param-Region":   "us-west1",
				"Mcp-Param-Priority": "42",
				"Mcp-Param-Verbose":  "false",
				"Mcp-Param-Greeting": "=?base64?SGVsbG8sIOS4lueVjA==?=", // the spec's example
				"Mcp-Param-Zone":     "=?base64?IHBhZGRlZCA=?=",
			}
			if !mirrors {
				wantTools = append(wantTools, slices.Collect(func(yield func(string) bool) {
					for name := range paramsInvalid {
						yield(name)
					}
				})...)
				wantHeaders = map[string]string{}
			}
			slices.Sort(wantTools)

			log := &liveLog{}
			o := liveOptions()
			o.Logger = log.Logger()
			c := liveConnect(t, srv.URL, o)
			got := liveKeys(c.Tools().Snapshot().Items)
			slices.Sort(got)
			assertEqual(t, got, wantTools, "tools in the store")
			for name, why := range paramsInvalid {
				found := len(log.find("left out of the tools list", "tool="+name, why)) > 0
				if found != mirrors {
					t.Errorf("warning for %s (%q) logged: %v, want %v; log: %v", name, why, found, mirrors, log.find(""))
				}
			}
			res, err := c.CallTool(liveCtx(t), "route", paramsArgs, nil)
			assertNoErr(t, err, "CallTool route")
			assertEqual(t, res.Content[0].Text, "routed", "result")
			assertEqual(t, paramHeaders(recv(t, calls, "the call's headers")), wantHeaders, "Mcp-Param headers of the Client's call")

			s := dialSession(t, srv.URL, o)
			tools, err := s.ListTools(liveCtx(t))
			assertNoErr(t, err, "Session.ListTools")
			got = liveKeys(tools)
			slices.Sort(got)
			assertEqual(t, got, wantTools, "Session.ListTools")
			_, err = s.CallTool(liveCtx(t), "route", paramsArgs, nil)
			assertNoErr(t, err, "Session.CallTool route")
			assertEqual(t, paramHeaders(recv(t, calls, "the call's headers")), wantHeaders, "Mcp-Param headers of the Session's call")
		})
	}
}

// paramsSchema marks five parameters of tool route (one nested) and leaves
// two unmarked.
const paramsSchema = `{"type":"object","properties":{
	"region":{"type":"string","x-mcp-header":"Region"},
	"priority":{"type":"integer","x-mcp-header":"Priority"},
	"verbose":{"type":"boolean","x-mcp-header":"Verbose"},
	"greeting":{"type":"string","x-mcp-header":"Greeting"},
	"absent":{"type":"string","x-mcp-header":"Absent"},
	"nothing":{"type":"string","x-mcp-header":"Nothing"},
	"target":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
	"query":{"type":"string"},
	"score":{"type":"number"}}}`

var paramsArgs = map[string]any{
	"region": "us-west1", "priority": 42, "verbose": false, "greeting": "Hello, 世界",
	"nothing": nil, "target": map[string]any{"zone": " padded "}, "query": "SELECT 1", "score": 3.5,
}

// paramsInvalid are tools the server's tools/list adds (go-sdk would not
// register them), with a part of the reason the client gives.
var paramsInvalid = map[string]string{
	"bad_empty":     "must be a non-empty HTTP token",
	"bad_number":    `of type "number"`,
	"bad_duplicate": "case-insensitive",
	"bad_items":     "not on a property",
}

func paramsSetup(s *mcp.Server, calls chan<- http.Header) {
	s.AddTool(&mcp.Tool{Name: "route", InputSchema: json.RawMessage(paramsSchema)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var h http.Header // none over WebSocket
			if req.Extra != nil {
				h = req.Extra.Header.Clone()
			}
			calls <- h
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "routed"}}}, nil
		})
	s.AddTool(mcptest.Tool("plain"), mcptest.EchoHandler("plain"))
	invalid := []*mcp.Tool{
		{Name: "bad_empty", InputSchema: json.RawMessage(`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":""}}}`)},
		{Name: "bad_number", InputSchema: json.RawMessage(`{"type":"object","properties":{"v":{"type":"number","x-mcp-header":"Score"}}}`)},
		{Name: "bad_duplicate", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}}`)},
		{Name: "bad_items", InputSchema: json.RawMessage(`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}`)},
	}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				out := *r
				out.Tools = append(slices.Clip(r.Tools), invalid...)
				return &out, nil
			}
			return res, err
		}
	})
}

// paramHeaders returns the Mcp-Param headers of h, by canonical name.
func paramHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		if strings.HasPrefix(k, "Mcp-Param-") {
			out[k] = strings.Join(v, ",")
		}
	}
	return out
}

// A server whose tools/list showed an older inputSchema than the one it
// checks calls against answers a call with HeaderMismatch (-32020): the
// client lists the tools again and sends the call once more, with the
// headers of the schema listed now. Where the marks mean nothing
// (2025-11-25, WebSocket) the call succeeds at once, without a re-list.
func TestHTTPParamHeaderMismatchRelists(t *testing.T) {
	t.Parallel()
	for _, tr := range sdkTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			var stale atomic.Bool // tools/list shows route without its marks
			var lists atomic.Int32
			stale.Store(true)
			calls := make(chan http.Header, 4)
			srv := tr.start(t, &mcptest.Options{Setup: func(s *mcp.Server) {
				s.AddTool(&mcp.Tool{Name: "route", InputSchema: json.RawMessage(paramsSchema)},
					func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						var h http.Header
						if req.Extra != nil {
							h = req.Extra.Header.Clone()
						}
						calls <- h
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "routed"}}}, nil
					})
				s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
					return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
						res, err := next(ctx, method, req)
						if r, ok := res.(*mcp.ListToolsResult); ok && err == nil {
							lists.Add(1)
							if stale.Load() {
								out := *r
								out.Tools = []*mcp.Tool{{Name: "route", InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string"}}}`)}}
								return &out, nil
							}
						}
						return res, err
					}
				})
			}})
			mirrors := srv.HTTP != nil && !legacyEra()
			c := liveConnect(t, srv.URL, liveOptions())
			before := lists.Load()
			stale.Store(false) // the schema changes without a list_changed

			res, err := c.CallTool(liveCtx(t), "route", paramsArgs, nil)
			assertNoErr(t, err, "CallTool route")
			assertEqual(t, res.Content[0].Text, "routed", "result")
			h := paramHeaders(recv(t, calls, "the call's headers"))
			relists := lists.Load() - before
			if mirrors {
				assertEqual(t, h["Mcp-Param-Region"], "us-west1", "Mcp-Param-Region of the call sent again")
				assertEqual(t, relists, int32(1), "tools/list requests after the mismatch")
			} else {
				assertEqual(t, h, map[string]string{}, "Mcp-Param headers")
				assertEqual(t, relists, int32(0), "tools/list requests")
			}
			select {
			case extra := <-calls:
				t.Fatalf("the tool ran twice (second headers %v)", extra)
			default:
			}
		})
	}
}
