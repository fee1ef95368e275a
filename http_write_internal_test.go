package mcplive

import (
	"encoding/json"
	"testing"

	"github.com/mcplive/mcplive/internal/jsonrpc"
)

// What the JSON-RPC layer tells the transport of a message (describe) is
// what the transport would read of the message's bytes (parseOutgoing):
// Write no longer reads every message again, and must not learn less.
func TestDescribeMatchesParseOutgoing(t *testing.T) {
	o := (*Options)(nil).withDefaults()
	for _, modern := range []bool{true, false} {
		s := &Session{opts: o, modern: modern}
		s.setMeta(ModernVersion, "")
		for name, params := range map[string]any{
			"none":      nil,
			"cursor":    cursorParams{"c1"},
			"listen":    listenParams{filter: map[string]any{"toolsListChanged": true}},
			"tool":      map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}},
			"tool meta": map[string]any{"name": "é \"x\"", "_meta": map[string]any{"progressToken": json.RawMessage(`"1"`)}},
			"resource":  map[string]any{"uri": "file:///a"},
			"both":      map[string]any{"name": "", "uri": "file:///b"},
			"complete":  CompleteParams{Ref: CompleteRef{Type: "ref/prompt", Name: "p"}},
		} {
			p, err := s.withMeta(params)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range []*int64{nil, new(int64)} {
				b, err := jsonrpc.MarshalMessage(id, "tools/call", p, marshalJSON)
				if err != nil {
					t.Fatal(err)
				}
				want, err := parseOutgoing(b)
				if err != nil {
					t.Fatal(err)
				}
				got := jsonrpc.Describe(id, "tools/call", p)
				if !modern {
					// Mcp-Name goes only with 2026-07-28: a legacy
					// message's name is not told.
					want.Name = ""
				}
				if string(got.ID) != string(want.ID) || got.Method != want.Method || got.Version != want.Version || got.Name != want.Name {
					t.Errorf("modern %v, %s, id %v: describe = %+v, parseOutgoing(%s) = %+v", modern, name, id != nil, got, b, want)
				}
			}
		}
	}
}
