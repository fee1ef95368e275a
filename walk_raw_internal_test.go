package mcplive

import (
	"reflect"
	"strings"
	"testing"
)

// TestRawItemsDecodeAsTyped checks that a RawItems list gives Snapshot the
// same items as a typed walk: keys, every field, the raw JSON and a tool's
// x-mcp-header marks.
func TestRawItemsDecodeAsTyped(t *testing.T) {
	tools := `{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}},` +
		`{"name":"b\u00e9","title":"T","annotations":{"readOnlyHint":true},"icons":[{"src":"data:,"}],"_meta":{"k":1},"extra":[1,2]}]}`
	prompts := `{"prompts":[{"name":"p","arguments":[{"name":"x","required":true}]},{"name":"q"}]}`
	check := func(t *testing.T, spec kindSpec, result string, typed, raw func(Entries) any) {
		tb := newBuild[Tool, *Tool](entries[Tool](nil))
		if spec.kind == KindPrompts {
			tb = newBuild[Prompt, *Prompt](entries[Prompt](nil))
		}
		rb := newRawBuild(spec)(rawEntries(nil))
		if err := decodeItems(spec, rawPages(t, spec, result), tb); err != nil {
			t.Fatal(err)
		}
		if err := decodeItems(spec, rawPages(t, spec, result), rb); err != nil {
			t.Fatal(err)
		}
		want, got := typed(tb.items()), raw(rb.items())
		if !reflect.DeepEqual(got, want) {
			t.Errorf("raw items decode to\n%+v\nwant\n%+v", got, want)
		}
		for i := range tb.items().Len() {
			if tb.items().Key(i) != rb.items().Key(i) || string(tb.items().RawJSON(i)) != string(rb.items().RawJSON(i)) {
				t.Errorf("item %d: raw key %q, JSON %s; typed %q, %s", i, rb.items().Key(i), rb.items().RawJSON(i), tb.items().Key(i), tb.items().RawJSON(i))
			}
		}
	}
	toolSpec, _ := specOf(KindTools)
	promptSpec, _ := specOf(KindPrompts)
	check(t, toolSpec, tools, func(e Entries) any { return itemsOf[Tool](e) }, func(e Entries) any { return itemsOf[Tool](e) })
	check(t, promptSpec, prompts, func(e Entries) any { return itemsOf[Prompt](e) }, func(e Entries) any { return itemsOf[Prompt](e) })
	// A walk reads no x-mcp-header mark: only a paramMirror does.
	if n := rawItemsOf(t, toolSpec, tools).(noteSlots).note(0); *n != nil {
		t.Errorf("tool a's slot after a walk: %v, want empty", *n)
	}
}

// TestRawItemsKeys: a RawItems walk refuses an item without a string key,
// as a typed walk does, and takes other members as they are (it decodes
// nothing else).
func TestRawItemsKeys(t *testing.T) {
	spec, _ := specOf(KindTools)
	for _, bad := range []string{`{"tools":[{"description":"x"}]}`, `{"tools":[{"name":7}]}`, `{"tools":[{"name":null}]}`, `{"tools":[[1]]}`, `{"tools":["a"]}`} {
		err := decodeItems(spec, rawPages(t, spec, bad), newRawBuild(spec)(rawEntries(nil)))
		if err == nil || !strings.Contains(err.Error(), "has no name") {
			t.Errorf("%s: err %v, want an item without a name", bad, err)
		}
	}
	items := rawItemsOf(t, spec, `{"tools":[{"description":5,"name":"a"}]}`)
	if items.Len() != 1 || items.Key(0) != "a" {
		t.Fatalf("got %d items, first key %q", items.Len(), items.Key(0))
	}
	// Snapshot decodes what fits and keeps the raw JSON.
	if got := itemsOf[Tool](items); got[0].Name != "a" || string(got[0].Raw) != `{"description":5,"name":"a"}` {
		t.Errorf("decoded %+v", got[0])
	}
}

// rawPages reads one list result into its pages, as a walk does.
func rawPages(t *testing.T, spec kindSpec, result string) []listPage {
	t.Helper()
	page, _, _, err := parseListPage([]byte(result), nil, spec.field)
	if err != nil {
		t.Fatal(err)
	}
	return []listPage{page}
}

func rawItemsOf(t *testing.T, spec kindSpec, result string) itemSlice {
	t.Helper()
	b := newRawBuild(spec)(rawEntries(nil))
	if err := decodeItems(spec, rawPages(t, spec, result), b); err != nil {
		t.Fatal(err)
	}
	return b.items()
}
