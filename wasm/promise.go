//go:build js && wasm

package main

import (
	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive/internal/printf"
	"github.com/mcplive/mcplive/internal/wire"
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

// jsError is what a rejection carries: the errorInfo of err as JSON, which
// the JS package turns into an Error (js/src/errors.js). An Error made here
// would carry a stack of wasm frames.
func jsError(err error) any {
	b, e := wire.Marshal(describe(err))
	if e != nil {
		return `{"name":"Error","message":"mcplive: an error that cannot be encoded"}`
	}
	return string(b)
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
		return "", printf.Errorf("argument %d: want a string", i)
	}
	return v.String()
}

func argInt(args []safejs.Value, i int) (int, error) {
	v := arg(args, i)
	if v.Type() != safejs.TypeNumber {
		return 0, printf.Errorf("argument %d: want a number", i)
	}
	return v.Int()
}

func argFloat(args []safejs.Value, i int) (float64, error) {
	v := arg(args, i)
	if v.Type() != safejs.TypeNumber {
		return 0, printf.Errorf("argument %d: want a number", i)
	}
	return v.Float()
}
