package mcplive

import (
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/printf"
)

// Options.RawItems: the live lists keep each item as its key and its raw
// JSON, and a walk decodes no item into its Go type. In wasm that is most
// of what a re-list allocates and the garbage collector then scans:
// encoding/json's decode of one tool there costs more than the round trip
// that listed it, and a decoded 10,000-tool list holds eleven pointers per
// tool where a raw one holds two.

// rawItem is an item of a RawItems list.
type rawItem struct {
	key  string
	raw  RawMessage
	note any // what a transport read of it (transport.go, noteSlots)
}

// rawEntries is the itemSlice of a RawItems list.
type rawEntries []rawItem

func (e rawEntries) Len() int                 { return len(e) }
func (e rawEntries) Key(i int) string         { return e[i].key }
func (e rawEntries) RawJSON(i int) RawMessage { return e[i].raw }
func (e rawEntries) note(i int) *any          { return &e[i].note }

func (e rawEntries) pick(idx []int) itemSlice {
	if len(idx) == 0 {
		return rawEntries(nil)
	}
	out := make(rawEntries, len(idx))
	for n, i := range idx {
		out[n] = e[i]
	}
	return out
}

// decodeRaw decodes e's items into T for Snapshot and Subscribe. An item
// whose fields do not fit T keeps what did fit (encoding/json goes on past
// a type error), and always its raw JSON.
func decodeRaw[T Item](e rawEntries) []T {
	if len(e) == 0 {
		return nil
	}
	out := make([]T, len(e))
	for i := range e {
		_ = unmarshalJSON(e[i].raw, &out[i])
		if s, ok := any(&out[i]).(interface{ setRaw(RawMessage) }); ok {
			s.setRaw(e[i].raw)
		}
	}
	return out
}

// rawBuild is the builder of a RawItems list: it validates a new item's
// JSON and reads its key in one pass of the scanner, and decodes nothing
// else.
type rawBuild struct {
	keyField string
	prev     rawEntries
	out      rawEntries
}

func newRawBuild(spec kindSpec) func(prev Entries) builder {
	return func(prev Entries) builder {
		p, _ := prev.(rawEntries)
		return &rawBuild{keyField: spec.key, prev: p}
	}
}

func (b *rawBuild) grow(n int) { b.out = make(rawEntries, 0, n) }

// addPage appends n items whose keys setRaw then reads.
func (b *rawBuild) addPage(_ []byte, n int) (bool, error) {
	b.out = append(b.out, make(rawEntries, n)...)
	return true, nil
}

func (b *rawBuild) add(raw []byte) (string, error) {
	b.out = append(b.out, rawItem{})
	return b.setRaw(len(b.out)-1, raw)
}

func (b *rawBuild) reuse(from, to int) { b.out = append(b.out, b.prev[from:to]...) }

// setRaw validates raw (a walk hands it over unvalidated, see
// parseListPage) and reads item i's key from it in the same pass: "" when
// raw is not an object or its key member is not a string, which the walk
// reports as an item without a key.
func (b *rawBuild) setRaw(i int, raw []byte) (string, error) {
	it := rawItem{raw: RawMessage(raw)}
	if len(raw) == 0 || raw[0] != '{' {
		return "", jsontext.Check(raw)
	}
	end, err := jsontext.ScanObject(raw, 0, 1, func(k, v []byte) error {
		if jsontext.IsKey(k, b.keyField) && v[0] == '"' {
			it.key = jsontext.Unquote(v)
		}
		return nil
	})
	if err == nil && end != len(raw) {
		err = printf.Errorf("%w: data after the object at offset %d", jsontext.ErrSyntax, end)
	}
	if err != nil {
		return "", err
	}
	b.out[i] = it
	return it.key, nil
}

func (b *rawBuild) items() itemSlice { return b.out }
