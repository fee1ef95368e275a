//go:build js && wasm

package main

import (
	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/printf"
	"github.com/mcplive/mcplive/internal/wire"
)

// logger returns the Options.Logger that hands the client's diagnostics
// (a tool left out of the list, a reconnect that failed, a listen stream
// that ended) to the app's logger option, or nil when the app passed none
// (they are then dropped, as in Go).
func (h *hooks) logger() mcplive.Logger {
	if h.diagFn.Type() != safejs.TypeFunction {
		return nil
	}
	return jsLogger{h}
}

// jsLogger calls the diag hook as diag(level, message, attrsJSON): JS
// calls the app's logger[level](message, attrs).
type jsLogger struct{ h *hooks }

func (l jsLogger) Debug(msg string, args ...any) { l.h.diag("debug", msg, args) }
func (l jsLogger) Info(msg string, args ...any)  { l.h.diag("info", msg, args) }
func (l jsLogger) Warn(msg string, args ...any)  { l.h.diag("warn", msg, args) }
func (l jsLogger) Error(msg string, args ...any) { l.h.diag("error", msg, args) }

func (h *hooks) diag(level, msg string, args []any) {
	defer recoverHook("logger")
	invoke(h.diagFn, level, msg, string(attrsJSON(args)))
}

// attrsJSON turns slog-style key/value pairs into a JSON object; an error
// or any other value that is not a string or a number becomes its text.
func attrsJSON(args []any) []byte {
	m := make(map[string]any, len(args)/2)
	for i := 0; i+1 < len(args); i += 2 {
		k, ok := args[i].(string)
		if !ok {
			k = printf.Sprint(args[i])
		}
		switch v := args[i+1].(type) {
		case string, bool, int, int64, uint64, float64:
			m[k] = v
		case error:
			m[k] = v.Error()
		default:
			m[k] = printf.Sprint(v)
		}
	}
	b, err := wire.Marshal(m)
	if err != nil {
		return []byte("{}")
	}
	return b
}
