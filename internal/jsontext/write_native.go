//go:build !js

package jsontext

import (
	"bytes"
	"encoding/json"
)

// writeUnknown writes a value that Encoder.Write has no case for (an app's
// own type, say a struct as a tool's arguments) with encoding/json, which
// a native build links anyway (net/http does).
func writeUnknown(b *bytes.Buffer, v any, esc bool) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(esc)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}
