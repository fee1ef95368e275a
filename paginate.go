package mcplive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"
)

// rawRef is a JSON value kept as a sub-slice of the bytes it was decoded
// from, where json.RawMessage copies them. A list page is decoded from a
// result buffer this package owns and never reuses, so the page's items
// share it: one allocation per page instead of one per item. The capacity
// is cut to the value, so that an append to one item's raw JSON cannot
// overwrite the next one.
type rawRef []byte

// parseListPage returns a list result's items array (field: "tools",
// "prompts", "resources" or "resourceTemplates"), undecoded, and its
// cursor. res was validated with the whole message (parseEnvelope), so it
// is walked here without a second validation; the walk still checks every
// bound and never panics, whatever res holds. The items share res's bytes
// (see rawRef).
func parseListPage(res []byte, field string) (items rawRef, next *string, err error) {
	i := skipSpace(res, 0)
	if i >= len(res) || res[i] != '{' {
		return nil, nil, errors.New("the result is not a JSON object")
	}
	i = skipSpace(res, i+1)
	for i < len(res) && res[i] != '}' {
		keyEnd := skipValid(res, i)
		if res[i] != '"' || keyEnd < i+2 {
			return nil, nil, errSyntax
		}
		key := res[i:keyEnd]
		i = skipSpace(res, keyEnd)
		if i >= len(res) || res[i] != ':' {
			return nil, nil, errSyntax
		}
		i = skipSpace(res, i+1)
		end := skipValid(res, i)
		if end <= i {
			return nil, nil, errSyntax
		}
		val := res[i:end]
		switch unquote(key) {
		case field:
			items = rawRef(val[:len(val):len(val)])
		case "nextCursor":
			switch val[0] {
			case '"':
				s := unquote(val)
				next = &s
			case 'n':
				next = nil
			default:
				return nil, nil, errors.New(`"nextCursor" is not a string`)
			}
		}
		i = skipSpace(res, end)
		if i < len(res) && res[i] == ',' {
			i = skipSpace(res, i+1)
		}
	}
	return items, next, nil
}

// skipValid returns the index just past the JSON value at b[i], which is
// known to be valid; -1 if b ends first.
func skipValid(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end := skipValid(b, i)
				if end < 0 {
					return -1
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	default:
		for ; i < len(b); i++ {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
		}
		return i
	}
}

// kindSpec ties a list kind to its method, page field and capability.
type kindSpec struct {
	kind   Kind
	method string
	field  string // the items' member in a page
	cap    func(ServerCapabilities) bool
	name   string // the capability, for error texts
}

var kindSpecs = map[Kind]kindSpec{
	KindTools: {KindTools, methodListTools, "tools",
		func(c ServerCapabilities) bool { return c.Tools != nil }, "tools"},
	KindPrompts: {KindPrompts, methodListPrompts, "prompts",
		func(c ServerCapabilities) bool { return c.Prompts != nil }, "prompts"},
	KindResources: {KindResources, methodListResources, "resources",
		func(c ServerCapabilities) bool { return c.Resources != nil }, "resources"},
	KindResourceTemplates: {KindResourceTemplates, methodListTemplates, "resourceTemplates",
		func(c ServerCapabilities) bool { return c.Resources != nil }, "resources"},
}

// listRaw walks every page of a list and returns, in order, the items
// array of each page, undecoded. A cursor seen twice, or more than
// MaxPages pages, ends the walk with an error wrapping ErrProtocol.
func (s *Session) listRaw(ctx context.Context, kind Kind) ([]rawRef, error) {
	spec := kindSpecs[kind]
	if err := s.need(spec.method, spec.cap(s.caps()), spec.name); err != nil {
		return nil, err
	}
	var all []rawRef
	seen := make(map[string]bool)
	var cursor *string
	for page := 1; ; page++ {
		if page > s.opts.MaxPages {
			return nil, fmt.Errorf("%s: %w", spec.method, protocolError("more than %d pages; giving up (raise Options.MaxPages if the list is really that long)", s.opts.MaxPages))
		}
		var params any
		if cursor != nil {
			params = map[string]string{"cursor": *cursor}
		}
		res, err := s.request(ctx, spec.method, params)
		if err != nil {
			return nil, err
		}
		items, next, err := parseListPage(res, spec.field)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.method, protocolError("bad result: %v", err))
		}
		all = append(all, items)
		if next == nil || *next == "" {
			return all, nil
		}
		if seen[*next] {
			return nil, fmt.Errorf("%s: %w", spec.method, protocolError("the server repeated cursor %q on page %d; the walk would never end", *next, page))
		}
		seen[*next] = true
		cursor = next
	}
}

// splitArray returns the elements of the JSON array b as sub-slices of b.
// b must be valid JSON: it comes out of parseListPage, whose scanner
// checked it. That lets one plain pass over the bytes replace the scanner of
// encoding/json. A value that is not an array reports false; null is an
// empty list.
func splitArray(b []byte) ([]rawRef, bool) {
	i := skipSpace(b, 0)
	if i < len(b) && b[i] == 'n' {
		return nil, true
	}
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	var out []rawRef
	start, depth := -1, 0
	for i++; i < len(b); i++ {
		switch c := b[i]; c {
		case ' ', '\t', '\r', '\n':
		case '"':
			if start < 0 {
				start = i
			}
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if start < 0 {
				start = i
			}
			depth++
		case '}', ']':
			if depth > 0 {
				depth--
				continue
			}
			if start >= 0 {
				out = append(out, trimRef(b[start:i]))
			} else if len(out) > 0 {
				return nil, false // [1,]
			}
			return out, skipSpace(b, i+1) == len(b)
		case ',':
			if depth > 0 {
				continue
			}
			if start < 0 {
				return nil, false
			}
			out = append(out, trimRef(b[start:i]))
			start = -1
		default:
			if start < 0 {
				start = i
			}
		}
	}
	return nil, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// trimRef cuts trailing white space and the capacity.
func trimRef(b []byte) rawRef {
	n := len(b)
	for n > 0 && (b[n-1] == ' ' || b[n-1] == '\t' || b[n-1] == '\r' || b[n-1] == '\n') {
		n--
	}
	return rawRef(b[:n:n])
}

// decodeItems decodes the items arrays of a walk's pages into T, keeping
// each item's raw JSON, and rejects items without a key. Each page is
// split into its items' raw JSON by splitArray, then decoded with one call
// of json.Unmarshal, straight into the result, rather than one per item:
// per item that saves a decoder, a scanner and a copy of its raw JSON.
func decodeItems[T Item](kind Kind, pages []rawRef) ([]T, error) {
	method := kindSpecs[kind].method
	raws := make([][]rawRef, len(pages))
	total := 0
	for p, page := range pages {
		var ok bool
		if raws[p], ok = splitArray(page); !ok {
			return nil, fmt.Errorf("%s: %w", method, protocolError("page %d: the %s are not an array: %s", p+1, kind, snippet(page)))
		}
		total += len(raws[p])
	}
	items := make([]T, 0, total)
	for p, page := range pages {
		base := len(items)
		tail := items[base:base]
		if err := json.Unmarshal(page, &tail); err != nil || len(tail) != len(raws[p]) {
			// Find the item at fault, for the error text.
			for i, raw := range raws[p] {
				var it T
				if err := json.Unmarshal(raw, &it); err != nil {
					return nil, fmt.Errorf("%s: %w", method, protocolError("item %d: %v", base+i, err))
				}
			}
			return nil, fmt.Errorf("%s: %w", method, protocolError("page %d: %v", p+1, err))
		}
		// tail was decoded in place, in items' spare capacity (json reuses
		// a slice's capacity); should it ever not be, copy it.
		if len(tail) > 0 && &tail[0] != &items[:base+1][base] {
			items = append(items, tail...)
		} else {
			items = items[:base+len(tail)]
		}
		for i, raw := range raws[p] {
			it := &items[base+i]
			setRaw(it, json.RawMessage(raw))
			if (*it).Key() == "" {
				return nil, fmt.Errorf("%s: %w", method, protocolError("item %d has no %s: %s", base+i, keyName(kind), snippet(raw)))
			}
		}
	}
	return items, nil
}

func keyName(k Kind) string {
	switch k {
	case KindResources:
		return "uri"
	case KindResourceTemplates:
		return "uriTemplate"
	}
	return "name"
}

func setRaw[T Item](it *T, raw json.RawMessage) {
	switch v := any(it).(type) {
	case *Tool:
		v.Raw = raw
	case *Prompt:
		v.Raw = raw
	case *Resource:
		v.Raw = raw
	case *ResourceTemplate:
		v.Raw = raw
	}
}

func listTyped[T Item](ctx context.Context, s *Session, kind Kind) ([]T, error) {
	raws, err := s.listRaw(ctx, kind)
	if err != nil {
		return nil, err
	}
	return decodeItems[T](kind, raws)
}

// relist walks a list again and decodes only the items that are new or
// changed: an item whose raw JSON is byte for byte one of prev's is prev's
// item, reused as is. A re-list after one change of a 10,000-item list then
// decodes one item instead of 10,000, which matters most in wasm, where
// encoding/json is slow.
func relist[T Item](ctx context.Context, s *Session, kind Kind, prev []T) ([]T, error) {
	pages, err := s.listRaw(ctx, kind)
	if err != nil {
		return nil, err
	}
	if len(prev) == 0 {
		return decodeItems[T](kind, pages)
	}
	// Most items come back in the same order: try prev's next item first,
	// then a few further on (a removal); only then look the raw JSON up
	// in a map, built on first need. The raw JSON of a listed item is
	// never modified, so a string view of it is a safe map key.
	var known map[string]int
	lookup := func(raw []byte, next int) (int, bool) {
		for j := next; j < len(prev) && j < next+4; j++ {
			if sameBytes(prev[j].RawJSON(), raw) {
				return j, true
			}
		}
		if known == nil {
			known = make(map[string]int, len(prev))
			for i, it := range prev {
				if r := it.RawJSON(); len(r) > 0 {
					known[unsafe.String(&r[0], len(r))] = i
				}
			}
		}
		j, ok := known[string(raw)]
		return j, ok
	}
	method := kindSpecs[kind].method
	items := make([]T, 0, len(prev)+1)
	next := 0
	for p, page := range pages {
		raws, ok := splitArray(page)
		if !ok {
			return nil, fmt.Errorf("%s: %w", method, protocolError("page %d: the %s are not an array: %s", p+1, kind, snippet(page)))
		}
		for _, raw := range raws {
			if j, ok := lookup(raw, next); ok {
				items = append(items, prev[j])
				next = j + 1
				continue
			}
			var it T
			if err := json.Unmarshal(raw, &it); err != nil {
				return nil, fmt.Errorf("%s: %w", method, protocolError("item %d: %v", len(items), err))
			}
			setRaw(&it, json.RawMessage(raw))
			if it.Key() == "" {
				return nil, fmt.Errorf("%s: %w", method, protocolError("item %d has no %s: %s", len(items), keyName(kind), snippet(raw)))
			}
			items = append(items, it)
		}
	}
	return items, nil
}

// ListTools returns every tool, following nextCursor over all pages.
func (s *Session) ListTools(ctx context.Context) ([]Tool, error) {
	return listTyped[Tool](ctx, s, KindTools)
}

// ListPrompts returns every prompt, following nextCursor over all pages.
func (s *Session) ListPrompts(ctx context.Context) ([]Prompt, error) {
	return listTyped[Prompt](ctx, s, KindPrompts)
}

// ListResources returns every resource, following nextCursor over all pages.
func (s *Session) ListResources(ctx context.Context) ([]Resource, error) {
	return listTyped[Resource](ctx, s, KindResources)
}

// ListResourceTemplates returns every resource template, over all pages.
func (s *Session) ListResourceTemplates(ctx context.Context) ([]ResourceTemplate, error) {
	return listTyped[ResourceTemplate](ctx, s, KindResourceTemplates)
}
