//go:build js && wasm

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcplive/mcplive"
)

// TestListMsgEncode checks the hand-written encoder against json.Marshal.
func TestListMsgEncode(t *testing.T) {
	code := int64(-32603)
	msgs := []listMsg{
		{Kind: mcplive.KindTools, Version: 3, Status: mcplive.StatusReady, Keys: []string{"a", "b\"q\\\n\t\r\x01é€"},
			Added: []json.RawMessage{json.RawMessage(`{"name":"a"}`)}, Changed: []json.RawMessage{json.RawMessage(`{"name":"b\"q"}`)}, Removed: []string{"c"}},
		{Kind: mcplive.KindPrompts, Status: mcplive.StatusError, Error: describe(errors.New("boom <&>"))},
		{Kind: mcplive.KindResources, Status: mcplive.StatusReady, Keys: []string{}, Full: true},
		{Kind: mcplive.KindResourceTemplates, Status: mcplive.StatusError, Error: &errorInfo{Name: "RPCError", Message: "x", Code: &code, Data: json.RawMessage(`{"a":1}`)}},
	}
	for _, m := range msgs {
		got, err := m.encode()
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(&m)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("encode produced invalid JSON %s: %v", got, err)
		}
		json.Unmarshal(want, &w)
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if !bytes.Equal(gb, wb) {
			t.Errorf("encode = %s\nwant     %s", got, want)
		}
	}
}
