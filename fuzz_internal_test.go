package mcplive

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
)

// decodeSeeds are valid and broken messages: the fuzzer starts from them.
var decodeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"c1"}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":{"x":[1,2]}}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
	`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}`,
	`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5,"total":1}}`,
	`{"jsonrpc":"2.0","id":"s-1","method":"ping"}`,
	`{"jsonrpc":"2.0","id":"<a&b>\u2028","method":"ping"}`,
	`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"messages":[]}}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":null}`,
	`{"jsonrpc":"1.0","id":1,"result":{}}`,
	`{"id":1,"result":{}}`,
	`{"jsonrpc":"2.0"}`,
	`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
	`  {"jsonrpc":"2.0","id":1,"result":{}}  `,
	`{"jsonrpc":"2.0","id":1,"result":`,
	`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":true,"result":{}}`,
	`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":"boom"}`,
	`{"jsonrpc":"2.0","id":1,"error":null}`,
	`{"JSONRPC":"2.0","ID":1,"Result":{}}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`,
	"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}",
	`hello`,
	``,
	`null`,
	`"2.0"`,
	`{}`,
}

// FuzzDecodeMessage checks that jsonrpc.Decode never panics, that every
// failure wraps ErrProtocol with a short message, and that every success
// has the shape its kind promises and survives a round trip.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, kind, err := jsonrpc.Decode(data)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error %q does not wrap ErrProtocol", err)
			}
			if m != nil || kind != 0 {
				t.Fatalf("error %q came with a message (kind %d)", err, kind)
			}
			if n := len(err.Error()); n > 1000 {
				t.Fatalf("error message of %d bytes for a %d-byte input", n, len(data))
			}
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("error message is not valid UTF-8: %q", err)
			}
			return
		}
		if m == nil {
			t.Fatalf("no message and no error for %q", data)
		}
		checkShape(t, m, kind, data)
		// The Streamable HTTP transport tells a request's response on its
		// stream without reading the whole message: it must agree.
		if len(m.ID) > 0 && isResponseTo(data, m.ID) != (kind == jsonrpc.KindResponse) {
			t.Fatalf("isResponseTo(%q, %s) = %v for a message of kind %d", data, m.ID, !(kind == jsonrpc.KindResponse), kind)
		}
		if m.Result != nil && jsontext.Check(m.Result) != nil {
			// A result is validated by whoever reads it (see
			// parseEnvelope): jsonrpc.Connection.CallWith refuses this one.
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}

		// What decodes must encode, and decode again to the same thing.
		b, err := jsonrpc.Encode(m)
		if err != nil {
			t.Fatalf("re-encoding %q: %v", data, err)
		}
		m2, kind2, err := jsonrpc.Decode(b)
		if err != nil {
			t.Fatalf("re-encoded %q of %q does not decode: %v", b, data, err)
		}
		if kind2 != kind || m2.Method != m.Method || !bytes.Equal(m2.ID, compact(m.ID)) {
			t.Fatalf("round trip of %q changed it: kind %d→%d, %+v → %+v", data, kind, kind2, m, m2)
		}
	})
}

func checkShape(t *testing.T, m *jsonrpc.Message, kind jsonrpc.Kind, data []byte) {
	t.Helper()
	if m.JSONRPC != "2.0" {
		t.Fatalf("accepted jsonrpc %q in %q", m.JSONRPC, data)
	}
	hasID := len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null"))
	if len(m.ID) > 0 && !validID(m.ID) {
		t.Fatalf("accepted id %s (JSON-RPC ids are strings, numbers or null) in %q", m.ID, data)
	}
	switch kind {
	case jsonrpc.KindRequest:
		if m.Method == "" || !hasID || m.Result != nil || m.Error != nil {
			t.Fatalf("request of the wrong shape: %+v from %q", m, data)
		}
	case jsonrpc.KindNotification:
		if m.Method == "" || len(m.ID) > 0 || m.Result != nil || m.Error != nil {
			t.Fatalf("notification of the wrong shape: %+v from %q", m, data)
		}
	case jsonrpc.KindResponse:
		if m.Method != "" || (m.Result == nil) == (m.Error == nil) {
			t.Fatalf("response of the wrong shape: %+v from %q", m, data)
		}
		if m.Result != nil && !hasID {
			t.Fatalf("result without an id accepted: %q", data)
		}
	default:
		t.Fatalf("unknown kind %d for %q", kind, data)
	}
}

// validID reports a JSON string, number or null.
func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64, nil:
		return true
	}
	return false
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}
