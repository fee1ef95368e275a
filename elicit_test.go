package mcplive_test

// Elicitation (Options.OnElicit): against a go-sdk server in every era and
// transport (2025-11-25: the server request elicitation/create;
// 2026-07-28: input_required results, go-sdk's multi round-trip requests),
// on the wire against the hostile server (2025-11-25), and the rounds of a
// multi round-trip request against the scripted server (2026-07-28).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/mcptest"
	"github.com/mcplive/mcplive/internal/scripted"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askSchema is the form of the tool "ask": name without a default, the
// other fields with one of each type (SEP-1034).
const askSchema = `{"type":"object","properties":{
	"name":{"type":"string"},
	"age":{"type":"integer","default":30},
	"score":{"type":"number","default":95.5},
	"status":{"type":"string","enum":["active","inactive"],"default":"active"},
	"verified":{"type":"boolean","default":true}}}`

// askDefaults is the content of an accepted askSchema form with name "Ada"
// and the defaults, as go-sdk decodes it.
var askDefaults = map[string]any{"name": "Ada", "age": float64(30), "score": 95.5, "status": "active", "verified": true}

// elicitProbe is what the go-sdk server of elicitServer saw.
type elicitProbe struct {
	wire    chan *mcp.ElicitResult // each answer as the client sent it
	cancels chan func()            // 2025-11-25: cancels the elicitation/create in flight
	// hold, when set, keeps the tool from answering after a failed Elicit
	// until it is closed: over Streamable HTTP go-sdk sends the
	// notifications/cancelled of its request on the tool call's stream,
	// which the tool's answer ends.
	hold chan struct{}
}

// elicitServer starts a go-sdk server whose tool "ask" asks for the
// askSchema form and answers with what it got (as JSON, or "error: …"): in
// 2025-11-25 through ServerSession.Elicit, a server request; in 2026-07-28
// with an input_required result (go-sdk refuses server requests there).
func elicitServer(t *testing.T) (*mcptest.Server, *elicitProbe) {
	t.Helper()
	p := &elicitProbe{wire: make(chan *mcp.ElicitResult, 4), cancels: make(chan func(), 4)}
	// A handler still in Elicit when its test ends (the client closed the
	// session) is let go before the server stops: go-sdk's streamable
	// server ties no handler to its POST, and closing a session waits for
	// its handlers, so it would wait for an answer that cannot come. This
	// cleanup is registered after mcptest.New's Stop, and so runs first.
	ended, endAll := context.WithCancel(context.Background())
	ask := func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		params := &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: json.RawMessage(askSchema)}
		var res *mcp.ElicitResult
		if testEra == "modern" {
			in, ok := r.Params.InputResponses["who"]
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"who": params}}, nil
			}
			res, _ = in.(*mcp.ElicitResult)
			p.wire <- res
		} else {
			ectx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(ended, cancel)()
			p.cancels <- cancel
			var err error
			if res, err = r.Session.Elicit(ectx, params); err != nil {
				if p.hold != nil {
					select {
					case <-p.hold:
					case <-ctx.Done():
					}
				}
				return textResult("error: " + err.Error()), nil
			}
		}
		b, _ := json.Marshal(res)
		return textResult(string(b)), nil
	}
	srv := mcptest.New(t, &mcptest.Options{Setup: func(s *mcp.Server) {
		s.AddTool(mcptest.Tool("ask"), ask)
		// The answer as it came, before go-sdk's Elicit checks it and
		// fills in the defaults itself.
		s.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if er, ok := res.(*mcp.ElicitResult); ok && err == nil {
					cp := *er
					cp.Content = maps.Clone(er.Content)
					p.wire <- &cp
				}
				return res, err
			}
		})
	}})
	t.Cleanup(endAll)
	return srv, p
}

// callText calls the tool name and returns its text.
func callText(t *testing.T, c *mcplive.Client, name string) (string, error) {
	t.Helper()
	res, err := c.CallTool(testCtx(t), name, nil, nil)
	if err != nil {
		return "", err
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: result %s", name, res.Raw)
	}
	return res.Content[0].Text, nil
}

// An accepted form reaches the server with the user's values and the
// schema's defaults for the rest; the handler sees the message and schema.
func TestElicitAcceptFillsDefaults(t *testing.T) {
	t.Parallel()
	srv, p := elicitServer(t)
	reqs := make(chan *mcplive.ElicitRequest, 1)
	c := dialClient(t, srv.URL, &mcplive.Options{OnElicit: func(_ context.Context, r *mcplive.ElicitRequest) (*mcplive.ElicitResult, error) {
		reqs <- r
		return &mcplive.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}})
	assertEqual(t, c.ProtocolVersion(), eraVersion(), "protocol version")
	text, err := callText(t, c, "ask")
	assertNoErr(t, err, "CallTool ask")
	r := recv(t, reqs, "the handler's request")
	assertEqual(t, r.Message, "Who are you?", "message")
	var schema struct{ Properties map[string]json.RawMessage }
	assertNoErr(t, json.Unmarshal(r.RequestedSchema, &schema), "requestedSchema")
	assertEqual(t, len(schema.Properties), 5, "schema properties")
	got := recv(t, p.wire, "the answer on the wire")
	assertEqual(t, got.Action, "accept", "action")
	assertEqual(t, got.Content, askDefaults, "content on the wire")
	if !strings.Contains(text, `"name":"Ada"`) || !strings.Contains(text, `"verified":true`) {
		t.Errorf("tool result %q", text)
	}
}

// A declined form reaches the server without content.
func TestElicitDecline(t *testing.T) {
	t.Parallel()
	srv, p := elicitServer(t)
	c := dialClient(t, srv.URL, &mcplive.Options{OnElicit: func(context.Context, *mcplive.ElicitRequest) (*mcplive.ElicitResult, error) {
		return &mcplive.ElicitResult{Action: "decline", Content: map[string]any{"name": "leaked"}}, nil
	}})
	_, err := callText(t, c, "ask")
	assertNoErr(t, err, "CallTool ask")
	got := recv(t, p.wire, "the answer on the wire")
	assertEqual(t, got.Action, "decline", "action")
	assertEqual(t, got.Content, map[string]any(nil), "content of a decline")
}

// A handler's error goes to the server (2025-11-25: the answer to its
// request) or fails the call (2026-07-28: there is no request to answer).
func TestElicitHandlerError(t *testing.T) {
	t.Parallel()
	srv, _ := elicitServer(t)
	away := errors.New("the user is away")
	c := dialClient(t, srv.URL, &mcplive.Options{OnElicit: func(context.Context, *mcplive.ElicitRequest) (*mcplive.ElicitResult, error) {
		return nil, away
	}})
	text, err := callText(t, c, "ask")
	if testEra == "modern" {
		assertErr(t, err, errs(away), "tools/call", "elicitation/create", `"who"`)
		return
	}
	assertNoErr(t, err, "CallTool ask")
	if !strings.HasPrefix(text, "error: ") || !strings.Contains(text, "the user is away") {
		t.Errorf("the server got %q, want the handler's error", text)
	}
}

// Without a handler the client declares no elicitation capability: go-sdk
// does not ask (2025-11-25); a server that asks anyway fails the call with
// ErrIncompleteResult (2026-07-28).
func TestElicitWithoutHandler(t *testing.T) {
	t.Parallel()
	srv, _ := elicitServer(t)
	c := dialClient(t, srv.URL, nil)
	text, err := callText(t, c, "ask")
	if testEra == "modern" {
		assertErr(t, err, errs(mcplive.ErrIncompleteResult), "tools/call", "elicitation/create", "OnElicit is not set")
		return
	}
	assertNoErr(t, err, "CallTool ask")
	if !strings.Contains(text, "does not support elicitation") {
		t.Errorf("the server got %q, want go-sdk's refusal for a client without the capability", text)
	}
}

// A handler that waits for a user who never comes ends when the server
// cancels its request (2025-11-25) or the caller cancels the call
// (2026-07-28).
func TestElicitCancelled(t *testing.T) {
	t.Parallel()
	srv, p := elicitServer(t)
	p.hold = make(chan struct{})
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	c := dialClient(t, srv.URL, &mcplive.Options{OnElicit: func(ctx context.Context, _ *mcplive.ElicitRequest) (*mcplive.ElicitResult, error) {
		started <- struct{}{}
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	}})
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	done := async(func() error {
		res, err := c.CallTool(ctx, "ask", nil, nil)
		if err == nil && (len(res.Content) != 1 || !strings.HasPrefix(res.Content[0].Text, "error: ")) {
			return fmt.Errorf("result %s, want the server's Elicit to fail", res.Raw)
		}
		return err
	})
	recv(t, started, "the handler to start")
	if testEra == "modern" {
		cancel()
	} else {
		recv(t, p.cancels, "the server's cancel func")() // go-sdk sends notifications/cancelled
	}
	assertErr(t, recv(t, ended, "the handler's context to end"), errs(context.Canceled))
	close(p.hold)
	err := recv(t, done, "the call to return")
	if testEra == "modern" {
		assertErr(t, err, errs(context.Canceled))
	} else {
		assertNoErr(t, err, "CallTool ask after the server cancelled its request")
	}
}

// Closing the session ends a handler that still waits.
func TestElicitEndsWithSession(t *testing.T) {
	t.Parallel()
	srv, _ := elicitServer(t)
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	s := dialSession(t, srv.URL, &mcplive.Options{OnElicit: func(ctx context.Context, _ *mcplive.ElicitRequest) (*mcplive.ElicitResult, error) {
		started <- struct{}{}
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	}})
	done := async(func() error {
		_, err := s.CallTool(testCtx(t), "ask", nil, nil)
		return err
	})
	recv(t, started, "the handler to start")
	assertNoErr(t, s.Close(), "Close")
	assertErr(t, recv(t, ended, "the handler's context to end"), errs(context.Canceled))
	assertErr(t, recv(t, done, "the call to fail"), errs(mcplive.ErrClosed))
}

// On the wire (2025-11-25): the capability, the answer with the defaults,
// the refusal of URL mode, a handler's error or panic as -32603, a
// cancelled request left unanswered, and -32601 without a handler.
func TestElicitServerRequestWire(t *testing.T) {
	t.Parallel()
	onlyIn(t, "legacy")
	h := startHostile(t, hostileOpts{})
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	s, c := hostileSession(t, h, 0, &mcplive.Options{OnElicit: func(ctx context.Context, r *mcplive.ElicitRequest) (*mcplive.ElicitResult, error) {
		switch r.Message {
		case "fail":
			return nil, errors.New("no form today")
		case "panic":
			panic("boom")
		case "wait":
			started <- struct{}{}
			<-ctx.Done()
			ended <- ctx.Err()
			return nil, ctx.Err()
		}
		return &mcplive.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}})
	var init struct{ Capabilities json.RawMessage }
	assertNoErr(t, json.Unmarshal(recv(t, h.inits, "initialize").Params, &init), "initialize params")
	assertEqual(t, string(init.Capabilities), `{"elicitation":{"form":{}}}`, "capabilities with a handler")

	ask := func(id, params string) hmsg {
		t.Helper()
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"elicitation/create","params":` + params + `}`)
		m := c.read()
		assertEqual(t, string(m.ID), id, "answer id")
		return m
	}
	m := ask(`"e1"`, `{"message":"hi","requestedSchema":`+askSchema+`}`)
	var res struct {
		Action  string
		Content map[string]any
	}
	assertNoErr(t, json.Unmarshal(m.Result, &res), "result")
	assertEqual(t, res.Action, "accept", "action")
	assertEqual(t, res.Content, askDefaults, "content")

	for _, tc := range []struct{ params, text string }{
		{`{"mode":"url","message":"go","url":"https://example.com","elicitationId":"x"}`, `mode "url" is not supported`},
		{`{"message":"fail","requestedSchema":{"type":"object"}}`, "no form today"},
		{`{"message":"panic","requestedSchema":{"type":"object"}}`, "panicked: boom"},
	} {
		m := ask("2", tc.params)
		if m.Error == nil || !strings.Contains(m.Error.Message, tc.text) || m.Result != nil {
			t.Errorf("answer to %s: %+v, want an error with %q", tc.params, m, tc.text)
		} else if code := m.Error.Code; code != mcplive.CodeInvalidParams && code != mcplive.CodeInternalError {
			t.Errorf("answer to %s: code %d", tc.params, code)
		}
	}

	c.send(`{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"message":"wait","requestedSchema":{"type":"object"}}}`)
	recv(t, started, "the handler to start")
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"changed my mind"}}`)
	assertErr(t, recv(t, ended, "the handler's context to end"), errs(context.Canceled))
	pingWorks(t, s, c) // the next message is the ping: no answer to the cancelled request

	h2 := startHostile(t, hostileOpts{})
	_, c2 := hostileSession(t, h2, 0, nil)
	assertNoErr(t, json.Unmarshal(recv(t, h2.inits, "initialize").Params, &init), "initialize params")
	assertEqual(t, string(init.Capabilities), `{}`, "capabilities without a handler")
	c2.send(`{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"message":"hi","requestedSchema":{"type":"object"}}}`)
	if m := c2.read(); m.Error == nil || m.Error.Code != mcplive.CodeMethodNotFound {
		t.Errorf("answer without a handler: %+v, want -32601", m)
	}
}

// mrtrRecorder records the requests a scripted server gets for method.
type mrtrRecorder struct {
	mu   sync.Mutex
	reqs []*scripted.Request
}

// hook is the server's Hook.
func (r *mrtrRecorder) hook(q *scripted.Request) error {
	r.mu.Lock()
	r.reqs = append(r.reqs, q)
	r.mu.Unlock()
	return nil
}

// of returns the requests of method, in order.
func (r *mrtrRecorder) of(method string) []*scripted.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*scripted.Request
	for _, q := range r.reqs {
		if q.Method == method {
			out = append(out, q)
		}
	}
	return out
}

// mrtrParams are what a retry carries.
type mrtrParams struct {
	InputResponses map[string]struct {
		Action  string
		Content map[string]any
	} `json:"inputResponses"`
	RequestState *string `json:"requestState"`
	Meta         struct {
		Caps json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	} `json:"_meta"`
}

func mrtrDecode(t *testing.T, r *scripted.Request) mrtrParams {
	t.Helper()
	var p mrtrParams
	assertNoErr(t, json.Unmarshal(r.Params, &p), "params of "+r.Method)
	return p
}

// The rounds of a multi round-trip request (2026-07-28): every round a new
// id, the responses of that round only (form after form, in the server's order),
// the requestState echoed exactly, none when the server sent none; a
// round with only requestState (load shedding) retried at once.
func TestElicitInputRounds(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	const form = `{"method":"elicitation/create","params":{"message":%q,"requestedSchema":` + askSchema + `}}`
	state1 := `{"opaque": "x\u00e9=="}`
	srv := modernScripted(t, scripted.ModernOptions{Answer: func(r *scripted.Request) json.RawMessage {
		var p struct {
			InputResponses json.RawMessage `json:"inputResponses"`
			RequestState   *string         `json:"requestState"`
		}
		_ = json.Unmarshal(r.Params, &p)
		switch {
		case r.Method == "prompts/get" && p.InputResponses == nil:
			return json.RawMessage(`{"resultType":"input_required","inputRequests":{"only":` + fmt.Sprintf(form, "p") + `}}`)
		case r.Method == "prompts/get":
			return json.RawMessage(`{"messages":[]}`) // no resultType: complete
		case p.RequestState == nil:
			st, _ := json.Marshal(state1)
			return json.RawMessage(`{"resultType":"input_required","requestState":` + string(st) +
				`,"inputRequests":{"b":` + fmt.Sprintf(form, "b") + `,"a":` + fmt.Sprintf(form, "a") + `}}`)
		case *p.RequestState == state1:
			return json.RawMessage(`{"resultType":"input_required","requestState":"s2"}`)
		}
		return json.RawMessage(`{"resultType":"complete","content":[{"type":"text","text":"done"}]}`)
	}}, 0)
	var rec mrtrRecorder
	srv.Hook = rec.hook
	var asked []string
	o := modernOptions()
	o.OnElicit = func(_ context.Context, r *mcplive.ElicitRequest) (*mcplive.ElicitResult, error) {
		asked = append(asked, r.Message) // one at a time: no lock needed
		return &mcplive.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}
	c := liveConnect(t, srv.URL, o)
	text, err := callText(t, c, "a")
	assertNoErr(t, err, "CallTool")
	assertEqual(t, text, "done", "result")
	assertEqual(t, asked, []string{"b", "a"}, "forms asked, in the server's order")

	reqs := rec.of("tools/call")
	if len(reqs) != 3 {
		t.Fatalf("%d tools/call requests, want 3", len(reqs))
	}
	ids := map[string]bool{}
	for _, r := range reqs {
		ids[string(r.ID)] = true
	}
	assertEqual(t, len(ids), 3, "distinct ids of the rounds")
	first, second, third := mrtrDecode(t, reqs[0]), mrtrDecode(t, reqs[1]), mrtrDecode(t, reqs[2])
	if first.InputResponses != nil || first.RequestState != nil {
		t.Errorf("first round carries %s", reqs[0].Params)
	}
	assertEqual(t, string(first.Meta.Caps), `{"elicitation":{"form":{}}}`, "clientCapabilities in _meta")
	if second.RequestState == nil || *second.RequestState != state1 {
		t.Errorf("second round: requestState %v, want %q echoed", second.RequestState, state1)
	}
	assertEqual(t, len(second.InputResponses), 2, "responses of the second round")
	for _, k := range []string{"a", "b"} {
		assertEqual(t, second.InputResponses[k].Action, "accept", "action of "+k)
		assertEqual(t, second.InputResponses[k].Content, askDefaults, "content of "+k)
	}
	if third.InputResponses != nil || third.RequestState == nil || *third.RequestState != "s2" {
		t.Errorf("third round (after load shedding) carries %s, want only requestState s2", reqs[2].Params)
	}

	_, err = c.GetPrompt(testCtx(t), "p", nil)
	assertNoErr(t, err, "GetPrompt")
	prompts := rec.of("prompts/get")
	if len(prompts) != 2 || mrtrDecode(t, prompts[1]).RequestState != nil || len(mrtrDecode(t, prompts[1]).InputResponses) != 1 {
		t.Errorf("prompts/get rounds: %d, want 2, the retry without requestState", len(prompts))
	}
}

// A server that never stops asking, one that asks for what this client
// does not offer, a client without a handler: ErrIncompleteResult.
func TestElicitInputRoundsFail(t *testing.T) {
	t.Parallel()
	onlyIn(t, "modern")
	srv := modernScripted(t, scripted.ModernOptions{Answer: func(r *scripted.Request) json.RawMessage {
		var p struct{ Name string }
		_ = json.Unmarshal(r.Params, &p)
		if p.Name == "sample" {
			return json.RawMessage(`{"resultType":"input_required","inputRequests":{"s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}}}`)
		}
		return json.RawMessage(`{"resultType":"input_required","requestState":"again","inputRequests":{"f":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object"}}}}}`)
	}}, 0)
	var rec mrtrRecorder
	srv.Hook = rec.hook
	o := modernOptions()
	o.OnElicit = func(context.Context, *mcplive.ElicitRequest) (*mcplive.ElicitResult, error) {
		return &mcplive.ElicitResult{Action: "cancel"}, nil
	}
	c := liveConnect(t, srv.URL, o)
	_, err := callText(t, c, "forever")
	assertErr(t, err, errs(mcplive.ErrIncompleteResult), "tools/call", "after 10 rounds")
	assertEqual(t, len(rec.of("tools/call")), 11, "tools/call requests: the first and 10 retries")
	_, err = callText(t, c, "sample")
	assertErr(t, err, errs(mcplive.ErrIncompleteResult), "sampling/createMessage", "does not offer")

	bare := liveConnect(t, srv.URL, modernOptions())
	_, err = callText(t, bare, "forever")
	assertErr(t, err, errs(mcplive.ErrIncompleteResult), "OnElicit is not set")
	reqs := rec.of("tools/call")
	assertEqual(t, string(mrtrDecode(t, reqs[len(reqs)-1]).Meta.Caps), `{}`, "clientCapabilities without a handler")
}
