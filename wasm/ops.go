//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
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

// args decodes the call's arguments into the handler's own arguments type.
func (c *call) args(into any) error {
	if len(c.raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.raw, into); err != nil {
		return fmt.Errorf("%s: %w: %v", c.method, errArgs, err)
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
	{"callTool", "tools/call", callTool},
	{"getPrompt", "prompts/get", getPrompt},
	{"readResource", "resources/read", readResource},
	{"complete", "completion/complete", complete},
	{"setLoggingLevel", "logging/setLevel", setLoggingLevel},
	{"ping", "ping", ping},
	{"refresh", "refresh", refresh},
	{"subscribeResource", "resources/subscribe", subscribeResource},
	{"unsubscribeResource", "resources/unsubscribe", unsubscribeResource},
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
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := c.args(&a); err != nil {
		return nil, err
	}
	if a.Name == "" {
		return nil, fmt.Errorf("callTool: %w: the tool name is empty", errArgs)
	}
	var opts *mcplive.CallToolOptions
	if fn := c.onProgress; fn.Type() == safejs.TypeFunction {
		opts = &mcplive.CallToolOptions{OnProgress: func(p mcplive.Progress) {
			defer recoverHook("progress")
			if b, err := json.Marshal(p); err == nil {
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
	return rawResult(res.Raw, res)
}

func getPrompt(c *call) (any, error) {
	var a struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := c.args(&a); err != nil {
		return nil, err
	}
	if a.Name == "" {
		return nil, fmt.Errorf("getPrompt: %w: the prompt name is empty", errArgs)
	}
	res, err := c.cl.c.GetPrompt(c.ctx, a.Name, a.Arguments)
	if err != nil {
		return nil, err
	}
	return rawResult(res.Raw, res)
}

// uriArgs are the arguments of the operations on one resource.
type uriArgs struct {
	URI string `json:"uri"`
}

func readResource(c *call) (any, error) {
	var a uriArgs
	if err := c.args(&a); err != nil {
		return nil, err
	}
	res, err := c.cl.c.ReadResource(c.ctx, a.URI)
	if err != nil {
		return nil, err
	}
	return rawResult(res.Raw, res)
}

func complete(c *call) (any, error) {
	var a struct {
		Params mcplive.CompleteParams `json:"params"`
	}
	if err := c.args(&a); err != nil {
		return nil, err
	}
	res, err := c.cl.c.Complete(c.ctx, a.Params)
	if err != nil {
		return nil, err
	}
	return rawResult(res.Raw, res)
}

func setLoggingLevel(c *call) (any, error) {
	var a struct {
		Level string `json:"level"`
	}
	if err := c.args(&a); err != nil {
		return nil, err
	}
	return nil, c.cl.c.SetLoggingLevel(c.ctx, a.Level)
}

func ping(c *call) (any, error) { return nil, c.cl.c.Ping(c.ctx) }

// kindArgs are the arguments of the operations on one list.
type kindArgs struct {
	Kind mcplive.Kind `json:"kind"`
}

func refresh(c *call) (any, error) {
	var a kindArgs
	if err := c.args(&a); err != nil {
		return nil, err
	}
	// A re-list that finds the same list changes nothing JS holds: the
	// store keeps its value (get() returns the same object until a change,
	// which React's getSnapshot relies on), receivedAt included.
	return nil, c.cl.c.Refresh(c.ctx, a.Kind)
}

// resync sends kind's full list again: JS found that an update did not fit
// what it holds.
func resync(c *call) (any, error) {
	var a kindArgs
	if err := c.args(&a); err != nil {
		return nil, err
	}
	c.cl.mu.Lock()
	fn := c.cl.resyncs[a.Kind]
	c.cl.mu.Unlock()
	if fn == nil {
		return nil, fmt.Errorf("resync: %w: unknown list kind %q", errArgs, a.Kind)
	}
	fn(causeResync)
	return nil, nil
}

func subscribeResource(c *call) (any, error) {
	var a uriArgs
	if err := c.args(&a); err != nil {
		return nil, err
	}
	return c.cl.subscribe(c.ctx, a.URI)
}

func unsubscribeResource(c *call) (any, error) {
	var a struct {
		ID int `json:"id"`
	}
	if err := c.args(&a); err != nil {
		return nil, err
	}
	return nil, c.cl.unsubscribe(c.ctx, a.ID)
}

// rawResult returns a result's exact JSON as a JS string.
func rawResult(raw json.RawMessage, v any) (any, error) {
	if len(raw) == 0 {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	return string(raw), nil
}
