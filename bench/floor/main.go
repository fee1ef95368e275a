//go:build js && wasm

// Command floor is the least a Go wasm client can do for a live tool list
// over github.com/coder/websocket: the floor of mcplive's browser rows on
// this machine (see bench/README.md). It initializes (2025-11-25), and on
// each notifications/tools/list_changed it walks tools/list page by page.
// Go sees only bytes: each page's text goes to JS, whose JSON.parse reads
// it and returns the next cursor, and whose callback gets the list. No
// diff, no stores, no timeouts, no second goroutine: what is left is the
// Go runtime, the WebSocket package and the crossings between JS and Go.
package main

import (
	"bytes"
	"context"
	"runtime/debug"
	"strconv"
	"syscall/js"

	"github.com/coder/websocket"
)

func main() {
	// As mcplive's wasm (wasm/main.go): a wasm linear memory never shrinks,
	// so the heap's headroom is kept small.
	debug.SetGCPercent(25)
	js.Global().Set("floorConnect", js.FuncOf(func(_ js.Value, args []js.Value) any {
		url, onPage := args[0].String(), args[1]
		var resolve, reject js.Value
		p := js.Global().Get("Promise").New(js.FuncOf(func(_ js.Value, a []js.Value) any {
			resolve, reject = a[0], a[1]
			return nil
		}))
		go func() {
			if err := run(url, onPage, resolve); err != nil {
				reject.Invoke(err.Error())
			}
		}()
		return p
	}))
	select {}
}

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"1.0.0"}}}`

// run connects and then reads for as long as the connection lives; the
// promise resolves with the initialize answer once the first list is in. A walk
// is one request at a time; a notification during a walk restarts it when
// the walk ends (dirty), as mcplive coalesces them.
func run(url string, onPage js.Value, resolve js.Value) error {
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return err
	}
	c.SetReadLimit(64 << 20)
	if err := c.Write(ctx, websocket.MessageText, []byte(initialize)); err != nil {
		return err
	}
	js.Global().Set("floorClose", js.FuncOf(func(js.Value, []js.Value) any {
		c.Close(websocket.StatusNormalClosure, "")
		return nil
	}))
	var initialized string
	id, walking, dirty, first := 0, false, false, true
	request := func(cursor string) error {
		id++
		b := []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/list"`)
		if cursor != "" {
			b = append(b, `,"params":{"cursor":`...)
			b = strconv.AppendQuote(b, cursor)
			b = append(b, '}')
		}
		b = append(b, '}')
		walking = true
		return c.Write(ctx, websocket.MessageText, b)
	}
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return err
		}
		switch {
		case len(b) < 200 && bytes.Contains(b, []byte(`"notifications/tools/list_changed"`)):
			if walking {
				dirty = true
			} else if err := request(""); err != nil {
				return err
			}
		case bytes.Contains(b[:min(len(b), 40)], []byte(`"id":0,`)):
			initialized = string(b)
			if err := c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
				return err
			}
			if err := request(""); err != nil {
				return err
			}
		case bytes.Contains(b[:min(len(b), 40)], []byte(`"id":`)):
			// JS reads the page; it answers the next cursor ("" after the
			// last page, when it has handed the whole list to the app).
			next := onPage.Invoke(string(b)).String()
			switch {
			case next != "":
				err = request(next)
			case dirty:
				dirty = false
				err = request("")
			default:
				walking = false
				if first {
					first = false
					resolve.Invoke(initialized)
				}
			}
			if err != nil {
				return err
			}
		}
	}
}
