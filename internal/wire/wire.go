// Package wire hands mcplive's JSON readers and writer to its wasm binding
// (package main in wasm/), which reads the arguments that JS sends as JSON
// and writes what it sends back with them: the wasm then links no part of
// encoding/json but its types (jsonwire.go and jsonenc.go in the root
// package say why). Package mcplive sets the functions when it
// is initialised; nothing else sets or calls them.
package wire

// Field is a member Decode takes: its name (matched as encoding/json
// matches a struct field's) and where its value goes: *string, *bool,
// *int, *int64, *float64, *json.RawMessage (kept as sent), *[]string,
// *map[string]string, or a func([]byte) error that reads the value itself.
type Field struct {
	Name string
	Dst  any
}

var (
	// Decode reads the JSON text raw, an object or null, into fields as
	// encoding/json reads it into a struct (typ names it in errors).
	Decode func(raw []byte, typ string, fields ...Field) error
	// Valid reports whether b is one JSON value, as json.Valid does.
	Valid func(b []byte) bool
	// Marshal returns v as json.Marshal does, for the values the binding
	// sends to JS: strings, numbers, bools, maps with string keys, slices,
	// json.RawMessage, json.Marshaler and mcplive's LogMessage and Progress.
	// Any other type is an error (the wasm links no encoder of
	// encoding/json).
	Marshal func(v any) ([]byte, error)
)
