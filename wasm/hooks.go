//go:build js && wasm

package main

import (
	"encoding/json"

	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
)

// hooks are the JS functions a client reports to. Go calls them
// synchronously and in order; a hook that throws is logged, never fatal.
type hooks struct {
	listFn, statusFn, logFn, notificationFn, updatedFn safejs.Value
	beforeDialFn, afterDialFn                          safejs.Value
	tokenFn                                            safejs.Value // Streamable HTTP: auth.go
	elicitFn                                           safejs.Value // elicit.go
	diagFn                                             safejs.Value // logger.go
}

func newHooks(obj safejs.Value) *hooks {
	get := func(name string) safejs.Value {
		if obj.Type() != safejs.TypeObject {
			return safejs.Undefined()
		}
		v, err := obj.Get(name)
		if err != nil {
			return safejs.Undefined()
		}
		return v
	}
	return &hooks{
		listFn:         get("list"),
		statusFn:       get("status"),
		logFn:          get("log"),
		notificationFn: get("notification"),
		updatedFn:      get("updated"),
		beforeDialFn:   get("beforeDial"),
		afterDialFn:    get("afterDial"),
		tokenFn:        get("token"),
		elicitFn:       get("elicit"),
		diagFn:         get("diag"),
	}
}

// list hands one list message (JSON) to JS: one crossing per change.
func (h *hooks) list(msg []byte) { invoke(h.listFn, string(msg)) }

// status reports a connection state; info is the server's latest
// initialize result when the state is "ready", else nil.
func (h *hooks) status(state mcplive.State, info []byte) {
	if info == nil {
		invoke(h.statusFn, string(state))
		return
	}
	invoke(h.statusFn, string(state), string(info))
}

func (h *hooks) log(m mcplive.LogMessage) {
	defer recoverHook("log")
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	invoke(h.logFn, string(b))
}

func (h *hooks) notification(method string, params json.RawMessage) {
	defer recoverHook("notification")
	if len(params) == 0 {
		invoke(h.notificationFn, method)
		return
	}
	invoke(h.notificationFn, method, string(params))
}

func (h *hooks) updated(sub int, uri string) { invoke(h.updatedFn, sub, uri) }

// beforeDial runs right before a dial (see failFast); its result goes back
// to afterDial once the dial returned.
func (h *hooks) beforeDial() safejs.Value {
	if h.beforeDialFn.Type() != safejs.TypeFunction {
		return safejs.Undefined()
	}
	v, err := h.beforeDialFn.Invoke()
	if err != nil {
		consoleError("mcplive: a JS callback threw: " + err.Error())
		return safejs.Undefined()
	}
	return v
}

func (h *hooks) afterDial(token safejs.Value) { invoke(h.afterDialFn, token) }

// recoverHook keeps a panic in a callback that the root package runs on
// its own goroutine from killing the runtime.
func recoverHook(name string) {
	if p := recover(); p != nil {
		reportPanic(name, p)
	}
}
