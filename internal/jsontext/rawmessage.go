//go:build !(js && mcplive_rawitems)

package jsontext

import "encoding/json"

// RawMessage is encoding/json's RawMessage (an alias: the same type) in
// every build but the npm package's wasm (rawmessage_own.go).
type RawMessage = json.RawMessage

// Marshaler is encoding/json's Marshaler.
type Marshaler = json.Marshaler
