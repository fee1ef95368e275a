//go:build js && wasm

package main

import (
	"context"

	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/printf"
	"github.com/mcplive/mcplive/internal/wire"
)

// call is one operation in flight: its context (cancelled by abort,
// bounded by the call's timeoutMs), its client, the arguments JS sent (a
// JSON object) and the progress callback JS passed, if any.
type call struct {
	ctx        context.Context
	cl         *client
	method     string
	raw        []byte
	onProgress safejs.Value
}

// decode reads raw, a JSON object or null, into fields as encoding/json
// reads it into a struct (typ names it in errors): internal/jsontext's
// reader, which the root package reads its own messages with.
func decode(raw []byte, typ string, fields ...jsontext.Field) error {
	return jsontext.Decode(raw, typ, fields)
}

// args reads the call's arguments (a JSON object) into fields, as
// encoding/json would read them into a struct with those fields.
func (c *call) args(fields ...jsontext.Field) error {
	if len(c.raw) == 0 {
		return nil
	}
	if err := decode(c.raw, c.method, fields...); err != nil {
		return printf.Errorf("%s: %w: %v", c.method, errArgs, err)
	}
	return nil
}

// op is one operation JS can run on a client (bridge.call): a small
// handler that decodes its own arguments type (call.args).
type op struct {
	name   string // what JS calls it
	method string // the MCP method (or the binding's own name), for error messages
	run    func(c *call) (any, error)
}

// ops is every operation JS may call. Test builds add one (debug.go).
// (A slice of plain functions is static data; a map, or instances of one
// generic decoder, cost the wasm kilobytes of code.)
var ops = []op{
	{"callTool", methods.CallTool, callTool},
	{"getPrompt", methods.GetPrompt, getPrompt},
	{"readResource", methods.ReadResource, readResource},
	{"complete", methods.Complete, complete},
	{"setLoggingLevel", methods.SetLevel, setLoggingLevel},
	{"ping", methods.Ping, ping},
	{"refresh", "refresh", refresh},
	{"subscribeResource", methods.Subscribe, subscribeResource},
	{"unsubscribeResource", methods.Unsubscribe, unsubscribeResource},
	{"resync", "resync", resync},
}

// opNamed returns the operation JS calls name.
func opNamed(name string) (op, bool) {
	for _, o := range ops {
		if o.name == name {
			return o, true
		}
	}
	return op{}, false
}

func callTool(c *call) (any, error) {
	var a struct {
		Name      string
		Arguments mcplive.RawMessage
	}
	if err := c.args(jsontext.Field{Name: "name", Dst: &a.Name}, jsontext.Field{Name: "arguments", Dst: &a.Arguments}); err != nil {
		return nil, err
	}
	if a.Name == "" {
		return nil, printf.Errorf("callTool: %w: the tool name is empty", errArgs)
	}
	var opts *mcplive.CallToolOptions
	if fn := c.onProgress; fn.Type() == safejs.TypeFunction {
		opts = &mcplive.CallToolOptions{OnProgress: func(p mcplive.Progress) {
			defer recoverHook("progress")
			if b, err := wire.Marshal(p); err == nil {
				invoke(fn, string(b))
			}
		}}
	}
	var args any // nil, not a nil RawMessage: "arguments" stays out
	if len(a.Arguments) > 0 && string(a.Arguments) != "null" {
		args = a.Arguments
	}
	res, err := c.cl.c.CallTool(c.ctx, a.Name, args, opts)
	if err != nil {
		return nil, err
	}
	return rawResult(res.Raw)
}

func getPrompt(c *call) (any, error) {
	var a struct {
		Name      string
		Arguments map[string]string
	}
	if err := c.args(jsontext.Field{Name: "name", Dst: &a.Name}, jsontext.Field{Name: "arguments", Dst: &a.Arguments}); err != nil {
		return nil, err
	}
	if a.Name == "" {
		return nil, printf.Errorf("getPrompt: %w: the prompt name is empty", errArgs)
	}
	res, err := c.cl.c.GetPrompt(c.ctx, a.Name, a.Arguments)
	if err != nil {
		return nil, err
	}
	return rawResult(res.Raw)
}

func readResource(c *call) (any, error) {
	var uri string
	if err := c.args(jsontext.Field{Name: "uri", Dst: &uri}); err != nil {
		return nil, err
	}
	res, err := c.cl.c.ReadResource(c.ctx, uri)
	if err != nil {
		return nil, err
	}
	if res.Retried && len(res.Raw) > 0 {
		// In an array: JS must not cache it (js/src/clientcalls.js: readResource).
		return "[" + string(res.Raw) + "]", nil
	}
	return rawResult(res.Raw)
}

func complete(c *call) (any, error) {
	var p mcplive.CompleteParams
	if err := c.args(jsontext.Field{Name: "params", Dst: completeParams(&p)}); err != nil {
		return nil, err
	}
	res, err := c.cl.c.Complete(c.ctx, p)
	if err != nil {
		return nil, err
	}
	return rawResult(res.Raw)
}

// completeParams reads the params of completion/complete as encoding/json
// reads them into a CompleteParams.
func completeParams(p *mcplive.CompleteParams) func([]byte) error {
	return func(v []byte) error {
		return decode(v, "CompleteParams",
			jsontext.Field{Name: "ref", Dst: func(v []byte) error {
				return decode(v, "CompleteRef", jsontext.Field{Name: "type", Dst: &p.Ref.Type},
					jsontext.Field{Name: "name", Dst: &p.Ref.Name}, jsontext.Field{Name: "uri", Dst: &p.Ref.URI})
			}},
			jsontext.Field{Name: "argument", Dst: func(v []byte) error {
				return decode(v, "CompleteArgument", jsontext.Field{Name: "name", Dst: &p.Argument.Name},
					jsontext.Field{Name: "value", Dst: &p.Argument.Value})
			}},
			jsontext.Field{Name: "context", Dst: func(v []byte) error {
				if v[0] == 'n' {
					p.Context = nil
					return nil
				}
				if p.Context == nil {
					p.Context = new(mcplive.CompleteContext)
				}
				return decode(v, "CompleteContext", jsontext.Field{Name: "arguments", Dst: &p.Context.Arguments})
			}},
		)
	}
}

func setLoggingLevel(c *call) (any, error) {
	var level string
	if err := c.args(jsontext.Field{Name: "level", Dst: &level}); err != nil {
		return nil, err
	}
	return nil, c.cl.c.SetLoggingLevel(c.ctx, level)
}

func ping(c *call) (any, error) { return nil, c.cl.c.Ping(c.ctx) }

// kindArg reads the argument kind of the operations on one list.
func kindArg(c *call) (mcplive.Kind, error) {
	var kind string
	err := c.args(jsontext.Field{Name: "kind", Dst: &kind})
	return mcplive.Kind(kind), err
}

func refresh(c *call) (any, error) {
	kind, err := kindArg(c)
	if err != nil {
		return nil, err
	}
	// A re-list that finds the same list changes nothing JS holds: the
	// store keeps its value (get() returns the same object until a change,
	// which React's getSnapshot relies on), receivedAt included.
	return nil, c.cl.c.Refresh(c.ctx, kind)
}

// resync sends kind's full list again: JS found that an update did not fit
// what it holds.
func resync(c *call) (any, error) {
	kind, err := kindArg(c)
	if err != nil {
		return nil, err
	}
	c.cl.mu.Lock()
	fn := c.cl.resyncs[kind]
	c.cl.mu.Unlock()
	if fn == nil {
		return nil, printf.Errorf("resync: %w: unknown list kind %q", errArgs, string(kind))
	}
	fn(causeResync)
	return nil, nil
}

func subscribeResource(c *call) (any, error) {
	var uri string
	if err := c.args(jsontext.Field{Name: "uri", Dst: &uri}); err != nil {
		return nil, err
	}
	return c.cl.subscribe(c.ctx, uri)
}

func unsubscribeResource(c *call) (any, error) {
	var id int
	if err := c.args(jsontext.Field{Name: "id", Dst: &id}); err != nil {
		return nil, err
	}
	return nil, c.cl.unsubscribe(c.ctx, id)
}

// rawResult returns a result's exact JSON as a JS string. A result that
// decoded always has its JSON (Session.requestInto keeps it).
func rawResult(raw mcplive.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, printf.Errorf("mcplive: %w: the result kept no JSON", mcplive.ErrProtocol)
	}
	return string(raw), nil
}
