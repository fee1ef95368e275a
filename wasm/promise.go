//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
)

// promise returns a JS Promise settled by work, which runs on its own
// goroutine (a JS-called Go function must never block). A panic in work
// rejects the Promise and is logged to the console; the runtime lives on.
// The executor js.Func is released as soon as the Promise constructor has
// called it (it calls it synchronously).
func promise(name string, work func() (any, error)) any {
	executor, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		resolve, reject := arg(args, 0), arg(args, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					invoke(reject, jsError(reportPanic(name, p)))
				}
			}()
			v, err := work()
			if err != nil {
				invoke(reject, jsError(err))
				return
			}
			if v == nil {
				v = safejs.Undefined()
			}
			invoke(resolve, v)
		}()
		return nil
	})
	if err != nil {
		consoleError("mcplive: " + name + ": " + err.Error())
		return nil
	}
	defer executor.Release()
	ctor, err := safejs.Global().Get("Promise")
	if err != nil {
		return nil
	}
	p, err := ctor.New(executor)
	if err != nil {
		consoleError("mcplive: " + name + ": " + err.Error())
		return nil
	}
	return p
}

// rejected returns Promise.reject(jsError(err)).
func rejected(err error) any {
	ctor, e := safejs.Global().Get("Promise")
	if e != nil {
		return nil
	}
	p, e := ctor.Call("reject", jsError(err))
	if e != nil {
		return nil
	}
	return p
}

// errorInfo is how an error crosses to JS, both as a rejection (built into
// an Error here) and inside list messages (built into an Error by JS).
type errorInfo struct {
	Name    string          `json:"name"`
	Message string          `json:"message"`
	Code    *int64          `json:"code,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// describe classifies err for JS. The name lets JS code tell the kinds
// apart without parsing messages; an RPC error also carries code and data.
func describe(err error) *errorInfo {
	if err == nil {
		return nil
	}
	info := &errorInfo{Name: "Error", Message: err.Error()}
	var rpc *mcplive.RPCError
	switch {
	case errors.As(err, &rpc):
		info.Name = "RPCError"
		code := rpc.Code
		info.Code = &code
		if len(rpc.Data) > 0 && json.Valid(rpc.Data) {
			info.Data = rpc.Data
		}
	case errors.Is(err, mcplive.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		info.Name = "TimeoutError"
	case errors.Is(err, context.Canceled):
		info.Name = "AbortError"
	case errors.Is(err, mcplive.ErrClosed):
		info.Name = "ClosedError"
	case errors.Is(err, mcplive.ErrUnsupported):
		info.Name = "UnsupportedError"
	case errors.Is(err, mcplive.ErrProtocol):
		info.Name = "ProtocolError"
	}
	return info
}

// jsError builds a real JS Error for err, with name, and for RPC errors code
// and data (parsed JSON). It never fails: at worst it returns the message.
func jsError(err error) any {
	info := describe(err)
	ctor, e := safejs.Global().Get("Error")
	if e != nil {
		return info.Message
	}
	v, e := ctor.New(info.Message)
	if e != nil {
		return info.Message
	}
	v.Set("name", info.Name)
	if info.Code != nil {
		v.Set("code", float64(*info.Code))
	}
	if info.Data != nil {
		if data, e := parseJSON(string(info.Data)); e == nil {
			v.Set("data", data)
		}
	}
	return v
}

func parseJSON(s string) (safejs.Value, error) {
	j, err := safejs.Global().Get("JSON")
	if err != nil {
		return safejs.Undefined(), err
	}
	return j.Call("parse", s)
}

// reportPanic logs a recovered panic with its stack to the console and
// returns the error that rejects the caller's Promise.
func reportPanic(name string, p any) error {
	err := fmt.Errorf("mcplive: internal error in %s (please report it): %v", name, p)
	consoleError(err.Error() + "\n" + string(debug.Stack()))
	return err
}

// consoleError reports to the JS console; it is how a recovered panic or a
// throwing hook gets noticed.
func consoleError(msg string) {
	console, err := safejs.Global().Get("console")
	if err != nil {
		return
	}
	console.Call("error", msg)
}

// invoke calls a JS function value, logging (never panicking) when it throws.
func invoke(fn safejs.Value, args ...any) {
	if fn.Type() != safejs.TypeFunction {
		return
	}
	if _, err := fn.Invoke(args...); err != nil {
		consoleError("mcplive: a JS callback threw: " + err.Error())
	}
}

func newObject() (safejs.Value, error) {
	ctor, err := safejs.Global().Get("Object")
	if err != nil {
		return safejs.Undefined(), err
	}
	return ctor.New()
}

func arg(args []safejs.Value, i int) safejs.Value {
	if i < len(args) {
		return args[i]
	}
	return safejs.Undefined()
}

func argString(args []safejs.Value, i int) (string, error) {
	v := arg(args, i)
	if v.Type() != safejs.TypeString {
		return "", fmt.Errorf("argument %d: want a string", i)
	}
	return v.String()
}

func argInt(args []safejs.Value, i int) (int, error) {
	v := arg(args, i)
	if v.Type() != safejs.TypeNumber {
		return 0, fmt.Errorf("argument %d: want a number", i)
	}
	return v.Int()
}
