package mcplive

import (
	"context"
	"errors"
	"maps"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/printf"
)

// Elicitation: a server asks the user, through the client, for input it
// needs to finish a call. In 2025-11-25 it sends the request
// elicitation/create while the call is in flight (over WebSocket on the
// socket, over Streamable HTTP on the call's event stream) and the client
// answers it. In 2026-07-28 the call itself is answered with resultType
// "input_required" and a map of input requests (multi round-trip requests);
// the client fulfils them and sends the call again with inputResponses and
// the requestState the server gave. Both reach the same Options.OnElicit.

const (
	methodElicit            = "elicitation/create"
	resultTypeInputRequired = "input_required"
)

// maxInputRounds bounds the rounds of one multi round-trip request: a
// server that asks again and again (or keeps shedding load) makes the call
// fail with ErrIncompleteResult instead of looping for ever.
const maxInputRounds = 10

// ElicitRequest is a server's request for user input (elicitation/create
// in form mode, the only mode this client declares).
type ElicitRequest struct {
	// Message tells the user what is asked and why.
	Message string `json:"message"`
	// RequestedSchema is the form: a JSON Schema object whose properties
	// are primitives (string, number, integer, boolean, enums), each with
	// an optional title, description and default.
	RequestedSchema RawMessage `json:"requestedSchema,omitempty"`
	// Raw is the request's params as the server sent them.
	Raw RawMessage `json:"-"`
}

// ElicitResult is the user's answer to an ElicitRequest.
type ElicitResult struct {
	// Action is "accept" (the user submitted the form), "decline" (the
	// user refused) or "cancel" (the user dismissed it without choosing).
	Action string `json:"action"`
	// Content holds the submitted values when Action is "accept" (it is
	// dropped otherwise). A property of RequestedSchema that it leaves out
	// and that has a default is filled in with that default (SEP-1034), so
	// accepting with no content accepts every default.
	Content map[string]any `json:"content,omitempty"`
}

// serverRequests are the server→client requests the session answers
// besides ping (internal/jsonrpc), by method.
func (s *Session) serverRequests() map[string]jsonrpc.Handler {
	if s.opts.OnElicit == nil {
		return nil
	}
	return map[string]jsonrpc.Handler{
		methodElicit: func(ctx context.Context, params RawMessage) (any, error) { return s.elicit(ctx, params) },
	}
}

// elicit asks Options.OnElicit what an elicitation/create asks (params as
// the server sent them), checks the answer and fills in the schema's
// defaults. A request it cannot take, or a bad answer, is an *RPCError.
func (s *Session) elicit(ctx context.Context, params RawMessage) (*ElicitResult, error) {
	// params come from a validated message: jsontext.WalkMembers reads them without
	// a decoder type of their own (each costs the wasm).
	req := &ElicitRequest{Raw: params}
	var mode string
	ok := jsontext.WalkMembers(params, func(key, val []byte) {
		switch jsontext.Unquote(key) {
		case "message":
			req.Message = unquoteString(val)
		case "requestedSchema":
			req.RequestedSchema = RawMessage(val)
		case "mode":
			mode = unquoteString(val)
		}
	})
	if !ok {
		return nil, &RPCError{Code: CodeInvalidParams, Message: "elicitation/create: params are not an elicitation request"}
	}
	if mode != "" && mode != "form" {
		return nil, &RPCError{Code: CodeInvalidParams, Message: printf.Sprintf("elicitation/create: mode %q is not supported (this client declares form mode only)", mode)}
	}
	res, err := callElicit(ctx, s.opts.OnElicit, req)
	if err != nil {
		return nil, err
	}
	switch {
	case res == nil:
		return nil, errors.New("mcplive: OnElicit returned no result")
	case res.Action == "accept":
		return &ElicitResult{Action: res.Action, Content: withDefaults(req.RequestedSchema, res.Content)}, nil
	case res.Action == "decline", res.Action == "cancel":
		return &ElicitResult{Action: res.Action}, nil
	}
	return nil, printf.Errorf("mcplive: OnElicit returned the action %q (want accept, decline or cancel)", res.Action)
}

// callElicit runs the app's handler; a panic in it becomes an error.
func callElicit(ctx context.Context, h func(context.Context, *ElicitRequest) (*ElicitResult, error), req *ElicitRequest) (res *ElicitResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, printf.Errorf("mcplive: OnElicit panicked: %v", p)
		}
	}()
	return h(ctx, req)
}

// withDefaults returns content (a copy: the app's map is not changed) with
// every property of schema that content leaves out and that has a default
// set to that default.
func withDefaults(schema RawMessage, content map[string]any) map[string]any {
	out := maps.Clone(content)
	if out == nil {
		out = map[string]any{}
	}
	jsontext.WalkMembers(schema, func(key, props []byte) {
		if jsontext.Unquote(key) != "properties" {
			return
		}
		jsontext.WalkMembers(props, func(name, prop []byte) {
			field := jsontext.Unquote(name)
			if _, set := out[field]; set {
				return
			}
			jsontext.WalkMembers(prop, func(k, v []byte) {
				if jsontext.Unquote(k) == "default" {
					out[field] = RawMessage(v)
				}
			})
		})
	})
	return out
}

// acceptsInput reports the calls a 2026-07-28 server may answer with
// resultType "input_required".
func acceptsInput(method string) bool {
	return method == methods.CallTool || method == methods.GetPrompt || method == methods.ReadResource
}

// fulfil runs the rounds of a multi round-trip request after its first
// answer, raw, asked for input: it fulfils the input requests (one at a
// time, in the server's order: a user answers one form after the other)
// and sends the call again, with a new id, the responses and the echoed
// requestState, until the server answers with a complete result. Each
// round trip is bounded by the request timeout; the app's handler only by
// ctx. (The result is read with jsontext.WalkMembers, not decoded into types of its
// own: every reflected type costs the wasm.)
func (s *Session) fulfil(ctx context.Context, method string, params map[string]any, raw RawMessage) (RawMessage, error) {
	for round := 1; topString(raw, "resultType") == resultTypeInputRequired; round++ {
		if round > maxInputRounds {
			return nil, printf.Errorf("%s: %w: the server still asks for input after %d rounds", method, ErrIncompleteResult, maxInputRounds)
		}
		// The retry carries this round's answers only: never those of an
		// earlier round, nor a requestState the server did not send again.
		next := make(map[string]any, len(params)+2)
		for k, v := range params {
			if k != "inputResponses" && k != "requestState" {
				next[k] = v
			}
		}
		var requests, state []byte
		jsontext.WalkMembers(raw, func(key, val []byte) {
			switch jsontext.Unquote(key) {
			case "inputRequests":
				requests = val
			case "requestState":
				state = val
			}
		})
		responses := map[string]any{}
		var err error
		jsontext.WalkMembers(requests, func(key, val []byte) {
			if err != nil {
				return
			}
			var p []byte
			jsontext.WalkMembers(val, func(k, v []byte) {
				if jsontext.Unquote(k) == "params" {
					p = v
				}
			})
			name, what := jsontext.Unquote(key), topString(val, "method")
			if what != methodElicit || s.opts.OnElicit == nil {
				err = printf.Errorf("%s: %w: the server asks for %s (input %q), and %s", method, ErrIncompleteResult, what, name, noInputReason(what))
				return
			}
			var res *ElicitResult
			if res, err = s.elicitWhileOpen(ctx, p); err != nil {
				err = printf.Errorf("%s: %s (input %q): %w", method, methodElicit, name, err)
				return
			}
			responses[name] = res
		})
		if err != nil {
			return nil, err
		}
		if len(responses) > 0 {
			next["inputResponses"] = responses
		}
		if len(state) > 0 && state[0] == '"' {
			next["requestState"] = unquoteString(state)
		} else if len(responses) == 0 {
			// The server must send one or the other: a retry of the same
			// request would only get the same answer.
			return nil, printf.Errorf("%s: %w: the server answered with resultType %q without inputRequests or requestState", method, ErrIncompleteResult, resultTypeInputRequired)
		}
		if r, ok := ctx.Value(retriedKey{}).(*bool); ok {
			*r = true
		}
		if raw, err = s.requestRaw(ctx, method, next); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

// retriedKey is the context key under which a caller that must know
// whether its request was retried (ReadResource: such results are never
// cached) has fulfil record it.
type retriedKey struct{}

// elicitWhileOpen is elicit with a ctx that also ends with the connection:
// the retry could not be sent anyway (a call fails with ErrClosed then).
func (s *Session) elicitWhileOpen(ctx context.Context, params RawMessage) (*ElicitResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.rpc.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	res, err := s.elicit(ctx, params)
	select {
	case <-s.rpc.Done():
		return nil, jsonrpc.ConnLost(s.rpc.Err())
	default:
	}
	return res, err
}

// unquoteString returns the JSON string val, "" when val is not a string.
func unquoteString(val []byte) string {
	if len(val) == 0 || val[0] != '"' {
		return ""
	}
	return jsontext.Unquote(val)
}

// noInputReason says why the client cannot fulfil an input request.
func noInputReason(method string) string {
	if method == methodElicit {
		return "Options.OnElicit is not set"
	}
	return "this client does not offer it"
}
