//go:build js && wasm

package main

import (
	"reflect"
	"strings"
	"syscall/js"
	"testing"
	"time"

	"github.com/hack-pad/safejs"
	"github.com/mcplive/mcplive"
)

// The options object as toGoOptions (js/src/options.js) makes it, read
// member by member (not through encoding/json): every member must reach
// mcplive.Options, and a member of the wrong type must be an error that
// names it.
func TestReadOptions(t *testing.T) {
	o := safejs.Safe(js.ValueOf(map[string]any{
		"clientInfo":              `{"name":"app","version":"2","title":"T","icons":[{"src":"https://i","sizes":["48x48"]}]}`,
		"protocolVersion":         "2025-11-25",
		"headers":                 []any{"X-Api-Key", "k", "Authorization", "Bearer t", "X-Api-Key", "k2"},
		"requestTimeoutMs":        1500,
		"dialTimeoutMs":           250.5,
		"readLimit":               1 << 20,
		"maxPages":                7,
		"heartbeatIntervalMs":     -1,
		"heartbeatTimeoutMs":      900,
		"reconnect":               false,
		"reconnectInitialDelayMs": 10,
		"reconnectMaxDelayMs":     2000,
		"prior":                   `{"supportedVersions":["2026-07-28"]}`,
		"priorReceivedAt":         1700000000123,
		"unknown":                 "ignored",
	}))
	opts, headers, err := parseOptions(o)
	if err != nil {
		t.Fatal(err)
	}
	wantInfo := mcplive.Implementation{Name: "app", Version: "2", Title: "T", Icons: []mcplive.Icon{{Src: "https://i", Sizes: []string{"48x48"}}}}
	if !reflect.DeepEqual(opts.ClientInfo, wantInfo) {
		t.Errorf("ClientInfo = %+v, want %+v", opts.ClientInfo, wantInfo)
	}
	if want := (mcplive.Header{"X-Api-Key": {"k2"}, "Authorization": {"Bearer t"}}); !reflect.DeepEqual(headers, want) {
		t.Errorf("headers = %v, want %v", headers, want)
	}
	got := []any{opts.ProtocolVersion, opts.RequestTimeout, opts.DialTimeout, opts.ReadLimit, opts.MaxPages,
		opts.HeartbeatInterval, opts.HeartbeatTimeout, opts.Reconnect.Disabled, opts.Reconnect.InitialDelay, opts.Reconnect.MaxDelay, opts.RawItems}
	want := []any{"2025-11-25", 1500 * time.Millisecond, 250500 * time.Microsecond, int64(1 << 20), 7,
		time.Duration(-1), 900 * time.Millisecond, true, 10 * time.Millisecond, 2 * time.Second, true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("options = %v, want %v", got, want)
	}

	if p := opts.Prior; p == nil || string(p.Discover) != `{"supportedVersions":["2026-07-28"]}` || p.Received.UnixMilli() != 1700000000123 {
		t.Errorf("Prior = %+v", p)
	}

	// Nothing given: the defaults (0), no headers, reconnecting.
	for _, v := range []safejs.Value{safejs.Safe(js.ValueOf(map[string]any{})), safejs.Undefined(), safejs.Null()} {
		opts, headers, err := parseOptions(v)
		if err != nil || headers != nil || opts.RequestTimeout != 0 || opts.Reconnect.Disabled || opts.ClientInfo.Name != "" || opts.Prior != nil {
			t.Errorf("empty options: %+v, %v, %v", opts, headers, err)
		}
	}

	for _, c := range []struct {
		v    any
		want string
	}{
		{map[string]any{"requestTimeoutMs": "5"}, "requestTimeoutMs: want a number"},
		{map[string]any{"protocolVersion": 5}, "protocolVersion: want a string"},
		{map[string]any{"reconnect": "no"}, "reconnect: want a boolean"},
		{map[string]any{"headers": []any{"X-A"}}, "headers: want an array of names and values"},
		{map[string]any{"headers": []any{"X-A", 1}}, "headers: want an array of names and values"},
		{map[string]any{"clientInfo": `{"name":"n","icons":"x"}`}, "clientInfo: json: cannot unmarshal string"},
		{map[string]any{"clientInfo": `{"name":`}, "clientInfo:"},
		{"a string", "want an object"},
	} {
		if _, _, err := parseOptions(safejs.Safe(js.ValueOf(c.v))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseOptions(%v): error %v, want one that says %q", c.v, err, c.want)
		}
	}
}

// The kept lists of the JS catalog cache (js/src/client.js: seedsFor) and
// the remembered revision reach mcplive.Options; a seed that does not read
// is left out, never an error.
func TestReadSeeds(t *testing.T) {
	o := safejs.Safe(js.ValueOf(map[string]any{
		"revisionHint": "2025-11-25",
		"seeds": []any{
			"tools", `[{"name":"a"}]`, 60000, 1764500000123, "public",
			"prompts", 5, 60000, 1, "private", // items not a string: left out
			"resources", `[]`, 1000, 2, "private",
			"resourceTemplates", `[]`, // cut short: left out
		},
	}))
	opts, _, err := parseOptions(o)
	if err != nil {
		t.Fatal(err)
	}
	if opts.RevisionHint != "2025-11-25" {
		t.Errorf("RevisionHint = %q", opts.RevisionHint)
	}
	want := []mcplive.Seed{
		{Kind: mcplive.KindTools, Items: []byte(`[{"name":"a"}]`), TTL: time.Minute, Scope: "public", Received: time.UnixMilli(1764500000123)},
		{Kind: mcplive.KindResources, Items: []byte(`[]`), TTL: time.Second, Scope: "private", Received: time.UnixMilli(2)},
	}
	if !reflect.DeepEqual(opts.Seeds, want) {
		t.Errorf("Seeds = %+v, want %+v", opts.Seeds, want)
	}
}
