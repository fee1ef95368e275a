//go:build js && mcplive_rawitems

package jsontext

import "errors"

// RawMessage is a raw encoded JSON value, with the JSON behaviour of
// encoding/json's RawMessage (its MarshalJSON and UnmarshalJSON, copied).
// It is a type of its own only in the npm package's wasm (GOOS=js with the
// build tag mcplive_rawitems, see build.sh): importing encoding/json, even
// for its RawMessage alone, runs its package initialisation, which keeps
// reflection, fmt and os in the wasm (about 26 KB brotli, measured
// 2026-12-07). Every other build uses json.RawMessage itself
// (rawmessage.go), so the Go API's types stay encoding/json's.
type RawMessage []byte

// MarshalJSON returns m as the JSON encoding of m.
func (m RawMessage) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	return m, nil
}

// UnmarshalJSON sets *m to a copy of data.
func (m *RawMessage) UnmarshalJSON(data []byte) error {
	if m == nil {
		return errors.New("json.RawMessage: UnmarshalJSON on nil pointer")
	}
	*m = append((*m)[0:0], data...)
	return nil
}

// Marshaler is encoding/json's Marshaler: the same method set, so any
// type that implements one implements the other.
type Marshaler interface {
	MarshalJSON() ([]byte, error)
}
