package mcplive

import (
	"context"
	"encoding/json"
	"fmt"
	"unsafe"
)

// listRaw walks every page of a list and returns, in order, the items
// array of each page, undecoded, and the pages' caching hints. A cursor
// seen twice, or more than MaxPages pages, ends the walk with an error
// wrapping ErrProtocol. In the legacy era an empty nextCursor ends a walk;
// in the modern era it is a cursor like any other, and only an absent one
// ends it.
func (s *Session) listRaw(ctx context.Context, spec kindSpec) ([]rawRef, *CacheHint, error) {
	if err := s.need(spec.method, spec.offered(s.caps()), spec.capability); err != nil {
		return nil, nil, err
	}
	var hint *CacheHint
	var all []rawRef
	seen := make(map[string]bool)
	var cursor *string
	for page := 1; ; page++ {
		if page > s.opts.MaxPages {
			return nil, nil, fmt.Errorf("%s: %w", spec.method, protocolError("more than %d pages; giving up (raise Options.MaxPages if the list is really that long)", s.opts.MaxPages))
		}
		var params any
		if cursor != nil {
			params = map[string]string{"cursor": *cursor}
		}
		res, err := s.requestRaw(ctx, spec.method, params)
		if err != nil {
			return nil, nil, err
		}
		items, next, info, err := parseListPage(res, spec.field)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", spec.method, protocolError("bad result: %v", err))
		}
		if s.modern && info.resultType != "" && info.resultType != "complete" {
			return nil, nil, fmt.Errorf("%s: %w: the server answered a list page with resultType %q", spec.method, ErrIncompleteResult, info.resultType)
		}
		hint = hint.merge(info)
		all = append(all, items)
		if next == nil || (*next == "" && !s.modern) {
			return all, hint, nil
		}
		if seen[*next] {
			return nil, nil, fmt.Errorf("%s: %w", spec.method, protocolError("the server repeated cursor %q on page %d; the walk would never end", *next, page))
		}
		seen[*next] = true
		cursor = next
	}
}

// decodeItems decodes the items arrays of a walk's pages into T, keeping
// each item's raw JSON, and rejects items without a key. Each page is
// split into its items' raw JSON by splitArray, then decoded with one call
// of json.Unmarshal, straight into the result, rather than one per item:
// per item that saves a decoder, a scanner and a copy of its raw JSON.
func decodeItems[T Item, PT rawSetter[T]](spec kindSpec, pages []rawRef) ([]T, error) {
	method, kind := spec.method, spec.kind
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
			PT(it).setRaw(json.RawMessage(raw))
			if (*it).Key() == "" {
				return nil, fmt.Errorf("%s: %w", method, protocolError("item %d has no %s: %s", base+i, spec.key, snippet(raw)))
			}
		}
	}
	return items, nil
}

// rawSetter is *T for an Item T: its raw JSON can be set.
type rawSetter[T Item] interface {
	*T
	setRaw(json.RawMessage)
}

func listTyped[T Item, PT rawSetter[T]](ctx context.Context, s *Session, kind Kind) ([]T, error) {
	spec, _ := specOf(kind)
	raws, _, err := s.listRaw(ctx, spec)
	if err != nil {
		return nil, err
	}
	return decodeItems[T, PT](spec, raws)
}

// relist walks a list again and decodes only the items that are new or
// changed: an item whose raw JSON is byte for byte one of prev's is prev's
// item, reused as is. A re-list after one change of a 10,000-item list then
// decodes one item instead of 10,000, which matters most in wasm, where
// encoding/json is slow.
func relist[T Item, PT rawSetter[T]](ctx context.Context, s *Session, spec kindSpec, prev []T) ([]T, *CacheHint, error) {
	pages, hint, err := s.listRaw(ctx, spec)
	if err != nil {
		return nil, nil, err
	}
	if len(prev) == 0 {
		items, err := decodeItems[T, PT](spec, pages)
		return items, hint, err
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
	method, kind := spec.method, spec.kind
	items := make([]T, 0, len(prev)+1)
	next := 0
	for p, page := range pages {
		raws, ok := splitArray(page)
		if !ok {
			return nil, nil, fmt.Errorf("%s: %w", method, protocolError("page %d: the %s are not an array: %s", p+1, kind, snippet(page)))
		}
		for _, raw := range raws {
			if j, ok := lookup(raw, next); ok {
				items = append(items, prev[j])
				next = j + 1
				continue
			}
			var it T
			if err := json.Unmarshal(raw, &it); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", method, protocolError("item %d: %v", len(items), err))
			}
			PT(&it).setRaw(json.RawMessage(raw))
			if it.Key() == "" {
				return nil, nil, fmt.Errorf("%s: %w", method, protocolError("item %d has no %s: %s", len(items), spec.key, snippet(raw)))
			}
			items = append(items, it)
		}
	}
	return items, hint, nil
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
