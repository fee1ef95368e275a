//go:build js && mcplive_rawitems

package jsontext

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestOwnRawMessageActsAsJSONs holds the npm package's wasm's RawMessage to
// encoding/json's: the same bytes out of json.Marshal and Encoder.Write, the
// same value out of json.Unmarshal, with and without a value.
func TestOwnRawMessageActsAsJSONs(t *testing.T) {
	type own struct {
		A RawMessage `json:"a"`
		B RawMessage `json:"b,omitempty"`
	}
	type std struct {
		A json.RawMessage `json:"a"`
		B json.RawMessage `json:"b,omitempty"`
	}
	for _, in := range []string{`{"a":{"x":[1,2]},"b":"s"}`, `{"a":null}`, `{}`, `{"a":7,"b":[]}`} {
		var o own
		var s std
		errO, errS := json.Unmarshal([]byte(in), &o), json.Unmarshal([]byte(in), &s)
		if (errO == nil) != (errS == nil) || !bytes.Equal(o.A, s.A) || !bytes.Equal(o.B, s.B) || (o.A == nil) != (s.A == nil) {
			t.Errorf("Unmarshal %s: own %q %q %v; encoding/json %q %q %v", in, o.A, o.B, errO, s.A, s.B, errS)
		}
		bo, errO := json.Marshal(o)
		bs, errS := json.Marshal(s)
		if !bytes.Equal(bo, bs) || (errO == nil) != (errS == nil) {
			t.Errorf("Marshal %s: own %s %v; encoding/json %s %v", in, bo, errO, bs, errS)
		}
		var w bytes.Buffer
		if err := (Encoder{}).Write(&w, o.A, true); err != nil || w.String() != string(mustMarshal(t, s.A)) {
			t.Errorf("Encoder.Write(%q) = %s, %v; encoding/json %s", o.A, w.String(), err, mustMarshal(t, s.A))
		}
	}
	var nilPtr *RawMessage
	if err := nilPtr.UnmarshalJSON([]byte("1")); err == nil || err.Error() != (*json.RawMessage)(nil).UnmarshalJSON([]byte("1")).Error() {
		t.Errorf("UnmarshalJSON on a nil pointer: %v", err)
	}
	var m Marshaler = RawMessage("1")
	if _, ok := m.(json.Marshaler); !ok {
		t.Error("a Marshaler is not a json.Marshaler")
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
