//go:build js && wasm && fatfloor

package main

// A "fat floor" (issue 49's cold-start aim): the floor's program with
// mcplive's package linked in and never called, so that its wasm is of
// mcplive's size while it does only the floor's work. Built only with
// -tags fatfloor (bench/README.md, "The floor").

import (
	"context"
	"syscall/js"

	"github.com/mcplive/mcplive"
)

func init() {
	// Never true: the page sets no such global. The linker keeps what
	// Connect, the lists and the calls reach, as mcplive's binding does.
	if js.Global().Get("__mcpliveFatFloorNever").Truthy() {
		c, err := mcplive.Connect(context.Background(), js.Global().Get("location").String(), &mcplive.Options{RawItems: true})
		if err == nil {
			_, _ = c.CallTool(context.Background(), "x", nil, nil)
			_, _ = c.GetPrompt(context.Background(), "x", nil)
			_, _ = c.ReadResource(context.Background(), "x")
			_ = c.Tools().Snapshot()
			_ = c.Prompts().Snapshot()
			_ = c.Resources().Snapshot()
			_ = c.ResourceTemplates().Snapshot()
			_ = c.Close()
		}
	}
}
