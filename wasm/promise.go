//go:build js && wasm

package main

import (
	"fmt"
	"runtime/debug"

	"github.com/hack-pad/safejs"
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

// reportPanic logs a recovered panic with its stack to the console and
// returns the error that rejects the caller's Promise.
func reportPanic(name string, p any) error {
	err := fmt.Errorf("internal error in %s (please report it at https://github.com/mcplive/mcplive/issues): %v", name, p)
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

// invokeWithDone calls fn(done, args...), where done is a one-shot JS
// callback through which JS hands back one string once the app's async
// callback settled (auth.go's token, elicit.go's answer): it returns what
// fn returned and the channel that string arrives on. The Go side waits on
// the channel, never blocking the JS event loop. If fn throws, done is
// released and the error returned.
func invokeWithDone(fn safejs.Value, args ...any) (safejs.Value, <-chan string, error) {
	ch := make(chan string, 1)
	var done safejs.Func
	done, err := safejs.FuncOf(func(_ safejs.Value, a []safejs.Value) any {
		done.Release()
		r, _ := argString(a, 0)
		ch <- r
		return nil
	})
	if err != nil {
		return safejs.Undefined(), nil, err
	}
	ret, err := fn.Invoke(append([]any{done}, args...)...)
	if err != nil {
		done.Release()
		return safejs.Undefined(), nil, err
	}
	return ret, ch, nil
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

func argFloat(args []safejs.Value, i int) (float64, error) {
	v := arg(args, i)
	if v.Type() != safejs.TypeNumber {
		return 0, fmt.Errorf("argument %d: want a number", i)
	}
	return v.Float()
}
