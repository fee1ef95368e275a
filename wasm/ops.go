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
// bounded by the call's timeoutMs), its client, and the progress callback
// JS passed, if any.
type call struct {
	ctx        context.Context
	cl         *client
	onProgress safejs.Value
}

// op is one operation JS can run on a client (bridge.call).
type op struct {
	method string // the MCP method (or the binding's own name), for error messages
	run    func(c *call, args []byte) (any, error)
}

// handle makes an op of fn, whose arguments A are decoded from the JSON
// object JS sent: each operation has its own small arguments type.
func handle[A any](method string, fn func(c *call, a *A) (any, error)) op {
	return op{method, func(c *call, raw []byte) (any, error) {
		a := new(A)
		if err := decodeArgs(method, raw, a); err != nil {
			return nil, err
		}
		return fn(c, a)
	}}
}

// decodeArgs is handle's decoding, out of the generic function: each
// instantiation stays a few hundred bytes of wasm.
func decodeArgs(method string, raw []byte, into any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("%s: %w: %v", method, errArgs, err)
	}
	return nil
}

// ops is every operation JS may call, by name. Test builds add one
// (debug.go).
var ops = map[string]op{
	"callTool":            handle("tools/call", callTool),
	"getPrompt":           handle("prompts/get", getPrompt),
	"readResource":        handle("resources/read", readResource),
	"complete":            handle("completion/complete", complete),
	"setLoggingLevel":     handle("logging/setLevel", setLoggingLevel),
	"ping":                handle("ping", ping),
	"refresh":             handle("refresh", refresh),
	"subscribeResource":   handle("resources/subscribe", subscribeResource),
	"unsubscribeResource": handle("resources/unsubscribe", unsubscribeResource),
	"resync":              handle("resync", resync),
}

type callToolArgs struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func callTool(c *call, a *callToolArgs) (any, error) {
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

type getPromptArgs struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments"`
}

func getPrompt(c *call, a *getPromptArgs) (any, error) {
	if a.Name == "" {
		return nil, fmt.Errorf("getPrompt: %w: the prompt name is empty", errArgs)
	}
	res, err := c.cl.c.GetPrompt(c.ctx, a.Name, a.Arguments)
	if err != nil {
		return nil, err
	}
	return rawResult(res.Raw, res)
}

type uriArgs struct {
	URI string `json:"uri"`
}

func readResource(c *call, a *uriArgs) (any, error) {
	res, err := c.cl.c.ReadResource(c.ctx, a.URI)
	if err != nil {
		return nil, err
	}
	return rawResult(res.Raw, res)
}

type completeArgs struct {
	Params mcplive.CompleteParams `json:"params"`
}

func complete(c *call, a *completeArgs) (any, error) {
	res, err := c.cl.c.Complete(c.ctx, a.Params)
	if err != nil {
		return nil, err
	}
	return rawResult(res.Raw, res)
}

type levelArgs struct {
	Level string `json:"level"`
}

func setLoggingLevel(c *call, a *levelArgs) (any, error) {
	return nil, c.cl.c.SetLoggingLevel(c.ctx, a.Level)
}

type noArgs struct{}

func ping(c *call, _ *noArgs) (any, error) { return nil, c.cl.c.Ping(c.ctx) }

type kindArgs struct {
	Kind mcplive.Kind `json:"kind"`
}

func refresh(c *call, a *kindArgs) (any, error) { return nil, c.cl.c.Refresh(c.ctx, a.Kind) }

// resync sends kind's full list again: JS found that an update did not fit
// what it holds.
func resync(c *call, a *kindArgs) (any, error) {
	c.cl.mu.Lock()
	fn := c.cl.resyncs[a.Kind]
	c.cl.mu.Unlock()
	if fn == nil {
		return nil, fmt.Errorf("resync: %w: unknown list kind %q", errArgs, a.Kind)
	}
	fn()
	return nil, nil
}

func subscribeResource(c *call, a *uriArgs) (any, error) { return c.cl.subscribe(c.ctx, a.URI) }

type subArgs struct {
	ID int `json:"id"`
}

func unsubscribeResource(c *call, a *subArgs) (any, error) {
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
