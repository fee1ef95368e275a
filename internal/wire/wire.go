// Package wire hands mcplive's JSON writer to its wasm binding (package
// main in wasm/), which writes what it sends to JS with it: mcplive's own
// types among those values (LogMessage, Progress) write themselves with
// methods of that package, so the writer is mcplive's, not only
// internal/jsontext's, and the wasm then links no encoder of encoding/json
// (jsonenc.go in the root package). Package mcplive sets Marshal when it
// is initialised; nothing else sets it. The binding reads JSON with
// internal/jsontext directly.
package wire

// Marshal returns v as json.Marshal does, for the values the binding sends
// to JS: strings, numbers, bools, maps with string keys, slices,
// json.RawMessage, json.Marshaler and mcplive's LogMessage and Progress.
// Any other type is an error (the wasm links no encoder of encoding/json).
var Marshal func(v any) ([]byte, error)
