// Package wire hands mcplive's JSON readers to its wasm binding (package
// main in wasm/), which reads the arguments that JS sends as JSON with
// them: the wasm then links no decoder of encoding/json (jsonwire.go in
// the root package says why). Package mcplive sets the functions when it
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
)
