package mcplive

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
)

func TestParseListPage(t *testing.T) {
	items, next, _, err := parseListPage([]byte(`{"tools":[{"name":"a"}],"nextCursor":"c2","_meta":{}}`), nil, "tools")
	if err != nil || string(items.raw) != `[{"name":"a"}]` || len(items.items) != 1 || next == nil || *next != "c2" {
		t.Fatalf("got %s %v %v", items.raw, next, err)
	}
	items, next, _, err = parseListPage([]byte(`{"tools":[]}`), nil, "tools")
	if err != nil || string(items.raw) != `[]` || !items.array || next != nil {
		t.Fatalf("got %s %v %v", items.raw, next, err)
	}
	// parseListPage takes results that jsonrpc.Decode validated; on
	// anything else it must still fail or succeed without a panic.
	for _, odd := range []string{`{"tools":[}`, `{"tools`, `{"a":"\`, `{"a":[[[`, `{`, `{"a"`, `{"a":`, `{"a":1,`, `{"tools":"x"}`} {
		parseListPage([]byte(odd), nil, "tools")
	}
	for _, bad := range []string{`[]`, `{"tools":[],"nextCursor":5}`, `"x"`, ``} {
		if _, _, _, err := parseListPage([]byte(bad), nil, "tools"); err == nil {
			t.Errorf("parseListPage(%s): no error", bad)
		}
	}
}

// FuzzParseListPage: on valid results it agrees with encoding/json; on
// anything it never panics. And its validation is lazy but sound: it
// validates everything but the items, which the walk validates when they
// are new (an item it reuses is byte for byte one validated before), so a
// page it accepts whose every item is valid JSON is valid JSON.
func FuzzParseListPage(f *testing.F) {
	for _, s := range []string{`{"tools":[{"name":"a"},{"name":"b"}],"nextCursor":"x"}`, `{"tools":[]}`, `{"nextCursor":null,"tools":[1]}`, `{"tools":[}`, `{"a":"\`,
		`{"tools":[{"name":"a"}}`, `{"tools":[{"name":"a"}},"x":1}`, `{"tools":[1,]}`, `{"tools":[1 2]}`, `{"tools":[{"a":[1}]}]}`,
		`{"tools":["\u00"]}`, `{"tools":[1],"tools":[2]}`, `{"tools":[1],"nextCursor":"\x"}`, `{"tools":[1],"ttlMs":01}`,
		`{"tools":[1]} x`, `{"tools":[1],}`, "{\"tools\":[1],\"x\":\"\x01\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		page, next, info, err := parseListPage(b, nil, "tools")
		// The envelope's pass reads an object result into an index: from it,
		// parseListPage must find what it finds in the bytes.
		msg := append(append([]byte(`{"jsonrpc":"2.0","id":1,"result":`), b...), '}')
		if m, _, derr := jsonrpc.Decode(msg); derr == nil && m.Index != nil && string(m.Result) == string(bytes.Trim(b, " \t\r\n")) {
			page2, next2, info2, err2 := parseListPage(m.Result, m.Index, "tools")
			if (err == nil) != (err2 == nil) || page.array != page2.array || len(page.items) != len(page2.items) ||
				(next == nil) != (next2 == nil) || (next != nil && *next != *next2) || info != info2 {
				t.Fatalf("%q: from the bytes %v, %d items, err %v; from the index %v, %d items, err %v", b, page.array, len(page.items), err, page2.array, len(page2.items), err2)
			}
			for i := range page.items {
				if string(page.items[i]) != string(page2.items[i]) {
					t.Fatalf("%q: item %d %q from the bytes, %q from the index", b, i, page.items[i], page2.items[i])
				}
			}
		}
		if err == nil && !json.Valid(b) {
			for _, it := range page.items {
				if jsontext.Check(it) != nil {
					return // the walk refuses the page when this item is new
				}
			}
			t.Fatalf("accepted %q, which is not valid JSON, with valid items %q", b, page.items)
		}
		if !json.Valid(b) || err != nil {
			return
		}
		items := page.raw
		if elems, ok := jsontext.SplitArray(items); ok != page.array || len(elems) != len(page.items) {
			t.Fatalf("%q: split %d elements (array %v), jsontext.SplitArray %d (%v)", items, len(page.items), page.array, len(elems), ok)
		} else {
			for i := range elems {
				if string(elems[i]) != string(page.items[i]) || cap(page.items[i]) != len(page.items[i]) {
					t.Fatalf("%q: element %d is %q (cap %d), jsontext.SplitArray %q", items, i, page.items[i], cap(page.items[i]), elems[i])
				}
			}
		}
		var m map[string]json.RawMessage // exact member names, last one wins
		if json.Unmarshal(b, &m) != nil {
			return
		}
		if string(items) != string(m["tools"]) {
			t.Fatalf("items %q, encoding/json %q", items, m["tools"])
		}
		var want *string
		if json.Unmarshal(m["nextCursor"], &want) != nil && m["nextCursor"] != nil {
			t.Fatalf("cursor %q accepted", m["nextCursor"])
		}
		if (next == nil) != (want == nil) || (next != nil && *next != *want) {
			t.Fatalf("cursor %v, encoding/json %v", next, want)
		}
	})
}
