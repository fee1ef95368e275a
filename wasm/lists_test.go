//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
)

// fakeEntries is Entries over a slice of raw items keyed by "name".
type fakeEntries []string

func (e fakeEntries) Len() int                      { return len(e) }
func (e fakeEntries) RawJSON(i int) json.RawMessage { return json.RawMessage(e[i]) }
func (e fakeEntries) Key(i int) string {
	var v struct{ Name string }
	json.Unmarshal([]byte(e[i]), &v)
	return v.Name
}

// TestListMsgEncode checks the hand-written encoder: valid JSON with the
// fields JS reads (js/src/lists.js).
func TestListMsgEncode(t *testing.T) {
	code := int64(-32603)
	odd := `{"name":"b\"q\\\n\t\r\u0001é€"}`
	cases := []struct {
		msg  listMsg
		want map[string]any
	}{
		{
			listMsg{Kind: mcplive.KindTools, Version: 3, Status: mcplive.StatusReady,
				Keys: fakeEntries{`{"name":"a"}`, odd}, Added: fakeEntries{`{"name":"a"}`}, Changed: fakeEntries{odd},
				Removed: fakeEntries{`{"name":"c"}`}, Cause: mcplive.CauseNotification, Latency: 1500 * time.Microsecond},
			map[string]any{"kind": "tools", "version": 3.0, "status": "ready", "error": nil, "live": false,
				"ttlMs": nil, "cacheScope": nil, "receivedAt": nil,
				"keys": []any{"a", "b\"q\\\n\t\r\x01é€"}, "added": []any{map[string]any{"name": "a"}},
				"changed": []any{map[string]any{"name": "b\"q\\\n\t\r\x01é€"}}, "removed": []any{"c"},
				"cause": "notification", "latencyMs": 1.5},
		},
		{
			listMsg{Kind: mcplive.KindPrompts, Status: mcplive.StatusError, Error: describe(errors.New("boom <&>"))},
			map[string]any{"kind": "prompts", "version": 0.0, "status": "error", "live": false,
				"ttlMs": nil, "cacheScope": nil, "receivedAt": nil,
				"error": map[string]any{"name": "Error", "message": "boom <&>"}, "keys": nil},
		},
		{
			listMsg{Kind: mcplive.KindResources, Status: mcplive.StatusReady, Keys: fakeEntries{}, Full: true, Cause: causeResync,
				Live: true, Cache: &mcplive.CacheHint{TTL: 90 * time.Second, HasTTL: true, Scope: "private", Received: time.UnixMilli(1764500000123)}},
			map[string]any{"kind": "resources", "version": 0.0, "status": "ready", "error": nil, "full": true, "live": true,
				"ttlMs": 90000.0, "cacheScope": "private", "receivedAt": 1764500000123.0,
				"keys": []any{}, "cause": "resync", "latencyMs": nil},
		},
		{
			listMsg{Kind: mcplive.KindResourceTemplates, Status: mcplive.StatusError,
				Error: &errorInfo{Name: "RPCError", Message: "x", Code: &code, Data: json.RawMessage(`{"a":1}`)},
				// A TTL of 0 is a TTL ("stale at once"); an unknown scope is left out.
				Cache: &mcplive.CacheHint{HasTTL: true, Scope: "shared", Received: time.UnixMilli(5)}},
			map[string]any{"kind": "resourceTemplates", "version": 0.0, "status": "error", "keys": nil, "live": false,
				"ttlMs": 0.0, "cacheScope": nil, "receivedAt": 5.0,
				"error": map[string]any{"name": "RPCError", "message": "x", "code": -32603.0, "data": map[string]any{"a": 1.0}}},
		},
	}
	for _, c := range cases {
		got := c.msg.encode()
		var g map[string]any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("encode produced invalid JSON %s: %v", got, err)
		}
		if !reflect.DeepEqual(g, c.want) {
			t.Errorf("encode = %s\nwant     %v", got, c.want)
		}
	}
}
