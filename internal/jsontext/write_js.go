//go:build js

package jsontext

import (
	"bytes"

	"github.com/mcplive/mcplive/internal/printf"
)

// writeUnknown fails: in the browser build every value mcplive sends
// comes from JS as JSON (json.RawMessage) or is one of the types Encoder.Write
// writes, and encoding/json's encoder stays out of the wasm (jsonenc.go).
// A value that reaches here is a bug of this package; the error names it.
func writeUnknown(_ *bytes.Buffer, v any, _ bool) error {
	return printf.Errorf("mcplive: cannot encode a %T as JSON in the browser build", v)
}
