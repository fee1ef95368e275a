package mcplive

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"time"
	"unsafe"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/printf"
)

// listRaw walks every page of a list and hands onPage, in order, the
// items array of each page, undecoded but split into its elements: each
// while the request of the next page is in flight (the last once it has
// come), so that the walker reads a page while the server makes the next.
// It returns the pages' caching hints. An error from onPage ends the walk
// with it. A cursor seen twice, or more than MaxPages pages, ends the walk
// with an error wrapping ErrProtocol. In the legacy era an empty
// nextCursor ends a walk; in the modern era it is a cursor like any other,
// and only an absent one ends it.
func (s *Session) listRaw(ctx context.Context, spec kindSpec, onPage func(listPage) error) (*CacheHint, error) {
	if err := s.need(spec.method, spec.offered(s.caps()), spec.capability); err != nil {
		return nil, err
	}
	var hint *CacheHint
	var received time.Time
	// The page received and not yet handed to onPage, and onPage's error.
	var (
		held    listPage
		holding bool
		pageErr error
	)
	hand := func() {
		if holding && pageErr == nil {
			pageErr = onPage(held)
		}
		held, holding = listPage{}, false
	}
	seen := make(map[string]bool)
	var cursor *string
	for page := 1; ; page++ {
		if page > s.opts.MaxPages {
			return nil, printf.Errorf("%s: %w", spec.method, jsonrpc.ProtocolError("more than %d pages; giving up (raise Options.MaxPages if the list is really that long)", s.opts.MaxPages))
		}
		res, err := s.requestPage(ctx, spec.method, cursor, hand)
		if pageErr != nil {
			return nil, pageErr
		}
		var rpcErr *RPCError
		if err != nil && cursor != nil && errors.As(err, &rpcErr) && rpcErr.Code == CodeInvalidParams {
			return nil, &cursorRefusedError{err}
		}
		if err != nil {
			return nil, err
		}
		items, next, info, err := parseListPage(res.Result, res.Index, spec.field)
		if err != nil {
			return nil, printf.Errorf("%s: %w", spec.method, jsonrpc.ProtocolError("bad result: %v", err))
		}
		if s.modern && info.resultType != "" && info.resultType != "complete" {
			return nil, printf.Errorf("%s: %w: the server answered a list page with resultType %q", spec.method, ErrIncompleteResult, info.resultType)
		}
		if page == 1 {
			// Every page of the walk came at or after this: the list is
			// fresh while every page is (caching, 2026-07-28).
			received = time.Now()
		}
		hint = hint.merge(info)
		held, holding = items, true
		if next == nil || (*next == "" && !s.modern) {
			hand()
			if pageErr != nil {
				return nil, pageErr
			}
			if hint != nil {
				hint.Received = received
			}
			return hint, nil
		}
		if seen[*next] {
			return nil, printf.Errorf("%s: %w", spec.method, jsonrpc.ProtocolError("the server repeated cursor %q on page %d; the walk would never end", *next, page))
		}
		seen[*next] = true
		cursor = next
	}
}

// cursorRefusedError is a walk that the server ended by refusing one of
// its cursors (invalid params on a page after the first: the cursor
// expired, or the list changed under it). The walk is started again from
// the first page, once (pagination and caching, 2026-07-28: "discard all
// cached pages and re-fetch from the beginning").
type cursorRefusedError struct{ err error }

func (e *cursorRefusedError) Error() string { return e.err.Error() }
func (e *cursorRefusedError) Unwrap() error { return e.err }

// listPages is listRaw that returns the pages, for a reader that needs
// them all before it decodes any.
func (s *Session) listPages(ctx context.Context, spec kindSpec) ([]listPage, *CacheHint, error) {
	var pages []listPage
	hint, err := s.listRaw(ctx, spec, func(p listPage) error {
		pages = append(pages, p)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return pages, hint, nil
}

// builder gathers the items of one walk: the only part of decoding and
// re-listing that depends on the kind, so that the walk itself is compiled
// once rather than once per kind.
type builder interface {
	// grow makes room for n items.
	grow(n int)
	// addPage decodes a page's items array of n items and appends them,
	// without their raw JSON; ok is false, with json's error if any, when
	// the page did not decode into n items.
	addPage(page []byte, n int) (ok bool, err error)
	// add decodes one item, appends it with raw as its raw JSON and
	// returns its key.
	add(raw []byte) (key string, err error)
	// reuse appends the builder's previous items [from, to) as they are.
	reuse(from, to int)
	// setRaw sets the raw JSON of item i and returns its key; an error
	// when raw is not valid JSON (a builder that decoded it knows it is).
	setRaw(i int, raw []byte) (key string, err error)
	// items returns what was built.
	items() itemSlice
}

// build is the builder of a kind; prev is the list a re-list started from.
type build[T Item, PT rawSetter[T]] struct {
	prev, out []T
}

func newBuild[T Item, PT rawSetter[T]](prev Entries) builder {
	return &build[T, PT]{prev: itemsOf[T](prev)}
}

func (b *build[T, PT]) grow(n int) { b.out = make([]T, 0, n) }

// addPage decodes with one call of json.Unmarshal, straight into b.out,
// rather than one per item: per item that saves a decoder, a scanner and a
// copy of its raw JSON.
func (b *build[T, PT]) addPage(page []byte, n int) (bool, error) {
	base := len(b.out)
	tail := b.out[base:base]
	if err := unmarshalJSON(page, &tail); err != nil || len(tail) != n {
		return false, err
	}
	// tail was decoded in place, in the spare capacity (json reuses a
	// slice's capacity); should it ever not be, copy it.
	if len(tail) > 0 && &tail[0] != &b.out[:base+1][base] {
		b.out = append(b.out, tail...)
	} else {
		b.out = b.out[:base+len(tail)]
	}
	return true, nil
}

func (b *build[T, PT]) add(raw []byte) (string, error) {
	var it T
	if err := unmarshalJSON(raw, &it); err != nil {
		return "", err
	}
	PT(&it).setRaw(RawMessage(raw))
	b.out = append(b.out, it)
	return it.Key(), nil
}

func (b *build[T, PT]) reuse(from, to int) { b.out = append(b.out, b.prev[from:to]...) }

func (b *build[T, PT]) setRaw(i int, raw []byte) (string, error) {
	PT(&b.out[i]).setRaw(RawMessage(raw))
	return b.out[i].Key(), nil
}

func (b *build[T, PT]) items() itemSlice { return entries[T](b.out) }

// rawSetter is *T for an Item T: its raw JSON can be set.
type rawSetter[T Item] interface {
	*T
	setRaw(RawMessage)
}

// decodeItems decodes the items arrays of a walk's pages into b, keeping
// each item's raw JSON, and rejects items without a key. Each page was
// split into its items' raw JSON by parseListPage, and is decoded at once
// by addPage.
func decodeItems(spec kindSpec, pages []listPage, b builder) error {
	method := spec.method
	total := 0
	for p, page := range pages {
		if err := checkArray(spec, p, page); err != nil {
			return err
		}
		total += len(page.items)
	}
	b.grow(total)
	base := 0
	for p, page := range pages {
		if ok, err := b.addPage(page.raw, len(page.items)); !ok {
			// Find the item at fault, for the error text.
			for i, raw := range page.items {
				if _, err := b.add(raw); err != nil {
					return printf.Errorf("%s: %w", method, jsonrpc.ProtocolError("item %d: %v", base+i, err))
				}
			}
			return printf.Errorf("%s: %w", method, jsonrpc.ProtocolError("page %d: %v", p+1, err))
		}
		for i, raw := range page.items {
			key, err := b.setRaw(base+i, raw)
			if err != nil {
				return printf.Errorf("%s: %w", method, jsonrpc.ProtocolError("item %d: %v", base+i, err))
			}
			if key == "" {
				return printf.Errorf("%s: %w", method, jsonrpc.ProtocolError("item %d has no %s: %s", base+i, spec.key, jsontext.Snippet(raw)))
			}
		}
		base += len(page.items)
	}
	return nil
}

// checkArray fails a page whose items are not an array.
func checkArray(spec kindSpec, p int, page listPage) error {
	if page.array {
		return nil
	}
	return printf.Errorf("%s: %w", spec.method, jsonrpc.ProtocolError("page %d: the %s are not an array: %s", p+1, string(spec.kind), jsontext.Snippet(page.raw)))
}

func listTyped[T Item, PT rawSetter[T]](ctx context.Context, s *Session, kind Kind) ([]T, error) {
	spec, _ := specOf(kind)
	raws, _, err := s.listPages(ctx, spec)
	if err != nil {
		return nil, err
	}
	var b build[T, PT]
	if err := decodeItems(spec, raws, &b); err != nil {
		return nil, err
	}
	return itemsOf[T](s.listed(kind, b.items())), nil
}

// listed returns the items of a walk (its own slice) as the list shows
// them: a tools list of 2026-07-28 goes through a transport that mirrors
// parameters into headers (paramMirror), which may leave tools out; every
// other list is shown as it was walked.
func (s *Session) listed(kind Kind, items itemSlice) itemSlice {
	if m, ok := s.rpc.Conn().(paramMirror); ok && s.modern && kind == KindTools {
		return m.toolsListed(items, s.opts.Logger)
	}
	return items
}

// mirrorsParams reports whether tools/call mirrors x-mcp-header parameters
// into Mcp-Param headers in s: 2026-07-28 over Streamable HTTP.
func (s *Session) mirrorsParams() bool {
	_, ok := s.rpc.Conn().(paramMirror)
	return ok && s.modern
}

// relist walks a list again into b and decodes only the items that are new
// or changed: an item whose raw JSON is byte for byte one of prev's is
// prev's item, reused as is (b was made from prev). A re-list after one
// change of a 10,000-item list then decodes one item instead of 10,000,
// which matters most in wasm, where encoding/json is slow. It returns, with
// the pages' hints, the alignment of the new list with prev (see
// relister.runs), which the diff and the wasm binding read rather than
// align the two lists again.
// runs are appended to buf.
func relist(ctx context.Context, s *Session, spec kindSpec, prev Entries, b builder, buf []int) (*CacheHint, []int, error) {
	if prev.Len() == 0 {
		pages, hint, err := s.listPages(ctx, spec)
		if err != nil {
			return nil, nil, err
		}
		if err := decodeItems(spec, pages, b); err != nil {
			return nil, nil, err
		}
		return hint, freshRuns(buf, b.items().Len()), nil
	}
	r := relister{prev: prev, b: b, runs: buf}
	b.grow(prev.Len() + 1)
	// Each page is compared with prev while the server makes the next one.
	p := 0
	onPage := func(page listPage) error {
		if err := checkArray(spec, p, page); err != nil {
			return err
		}
		p++
		for _, raw := range page.items {
			key, fresh, err := r.item(raw)
			if err != nil {
				return printf.Errorf("%s: %w", spec.method, jsonrpc.ProtocolError("item %d: %v", r.count-1, err))
			}
			if fresh && key == "" {
				return printf.Errorf("%s: %w", spec.method, jsonrpc.ProtocolError("item %d has no %s: %s", r.count-1, spec.key, jsontext.Snippet(raw)))
			}
		}
		return nil
	}
	hint, err := s.listRaw(ctx, spec, onPage)
	if err != nil {
		return nil, nil, err
	}
	r.flush()
	return hint, r.runs, nil
}

// relister compares the items of a re-list with prev's, in order, and
// builds the new list into b (relist).
type relister struct {
	prev Entries
	b    builder
	// runs is the new list by positions in prev, as it was built: pairs
	// (x ≥ 0, n), prev's items x to x+n-1 reused as they are, and (-1, n),
	// n items decoded anew. A run of prev ends where the next item is not
	// prev's next one (a fresh item, a jump), and fresh runs are merged:
	// the wasm binding's positional messages read it as it is.
	runs []int
	// Reused items are appended in runs, [from, next): one copy per run
	// rather than one append per item.
	from, next int
	count      int // items so far
	known      map[string]int
	scans      int
}

// item takes the next item of the new list: prev's item when its raw JSON
// is byte for byte one of prev's, else decoded by the builder (fresh, with
// its key).
func (r *relister) item(raw []byte) (key string, fresh bool, err error) {
	r.count++
	if j, ok := r.lookup(raw); ok {
		if j != r.next {
			r.flush()
			r.from = j
		}
		r.next = j + 1
		return "", false, nil
	}
	r.flush()
	r.from = r.next
	if n := len(r.runs); n > 0 && r.runs[n-2] < 0 {
		r.runs[n-1]++
	} else {
		r.runs = append(r.runs, -1, 1)
	}
	key, err = r.b.add(raw)
	return key, true, err
}

// flush appends the run of prev's items [from, next).
func (r *relister) flush() {
	if r.from < r.next {
		r.b.reuse(r.from, r.next)
		r.runs = append(r.runs, r.from, r.next-r.from)
		r.from = r.next
	}
}

// lookup returns the position in prev of raw JSON raw. Most items come
// back in the same order: it tries prev's next item first, then a few
// further on (a removal); then, for the first few items not found there (a
// new item, a move), every item of prev; only then it looks the raw JSON up
// in a map, built on first need: in wasm, hashing the raw JSON of 10,000
// items costs more than comparing their lengths a few times over. The raw
// JSON of a listed item is never modified, so a string view of it is a
// safe map key.
func (r *relister) lookup(raw []byte) (int, bool) {
	prev, n, next := r.prev, r.prev.Len(), r.next
	for j := next; j < n && j < next+4; j++ {
		if sameBytes(prev.RawJSON(j), raw) {
			return j, true
		}
	}
	if r.known == nil && r.scans < maxScans {
		r.scans++
		for j := range n {
			if sameBytes(prev.RawJSON(j), raw) {
				return j, true
			}
		}
		return 0, false
	}
	if r.known == nil {
		r.known = make(map[string]int, n)
		for i := range n {
			if raw := prev.RawJSON(i); len(raw) > 0 {
				r.known[unsafe.String(&raw[0], len(raw))] = i
			}
		}
	}
	j, ok := r.known[string(raw)]
	return j, ok
}

// freshRuns appends to buf the runs of a list of n items all decoded anew.
func freshRuns(buf []int, n int) []int {
	if n == 0 {
		return buf[:0:0]
	}
	return append(buf, -1, n)
}

// maxScans is how many items a re-list looks for in all of prev by
// comparison before it builds a map of prev's raw JSON.
const maxScans = 8

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

// pageInfo is what a list page says besides its items and cursor.
type pageInfo struct {
	resultType string
	ttlMs      int64 // -1: absent
	cacheScope string
}

// listPage is one page of a list walk: its items array, undecoded, and
// the array's elements (array is false when the member is absent or not an
// array; null is an empty array).
type listPage struct {
	raw   jsontext.Ref
	items []jsontext.Ref
	array bool
}

// parseListPage returns a list result's items array (field: "tools",
// "prompts", "resources" or "resourceTemplates"), split into its elements,
// its cursor and its caching hints. idx is res as the envelope's pass read
// it (see jsonrpc.Decode); nil makes it here. Either way the object and
// every member but the items array are validated, and the array's own
// syntax (brackets, commas) is checked; the items themselves are validated
// by the walk's builders when new — an item the walk reuses is byte for
// byte one validated before. It checks every bound and never panics,
// whatever res holds. The items share res's bytes (see jsontext.Ref).
func parseListPage(res []byte, idx *jsonrpc.ResultIndex, field string) (page listPage, next *string, info pageInfo, err error) {
	info.ttlMs = -1
	if idx == nil {
		if idx, err = readResultObject(res); err != nil {
			return listPage{}, nil, info, err
		}
	}
	for _, m := range idx.Members {
		isItems := m.Array && jsontext.IsKey(m.Key, field)
		switch {
		case isItems && page.array:
			// The first array's items were not validated (see above).
			return listPage{}, nil, info, printf.Errorf("the member %q appears twice", field)
		case isItems:
			page = listPage{raw: jsontext.Ref(m.Val[:len(m.Val):len(m.Val)]), items: m.Items, array: true}
		default:
			for _, it := range m.Items {
				if err := jsontext.Check(it); err != nil { // another member's array
					return listPage{}, nil, info, err
				}
			}
		}
		switch jsontext.Unquote(m.Key) {
		case field:
			if !isItems {
				page = listPage{raw: jsontext.Ref(m.Val[:len(m.Val):len(m.Val)])}
			}
		case "nextCursor":
			switch m.Val[0] {
			case '"':
				s := jsontext.Unquote(m.Val)
				next = &s
			case 'n':
				next = nil
			default:
				return listPage{}, nil, info, errors.New(`"nextCursor" is not a string`)
			}
		case "resultType":
			if m.Val[0] == '"' {
				info.resultType = jsontext.Unquote(m.Val)
			}
		case "ttlMs":
			if n, perr := strconv.ParseFloat(string(m.Val), 64); perr == nil {
				info.ttlMs = int64(max(n, 0))
			}
		case "cacheScope":
			if m.Val[0] == '"' {
				info.cacheScope = jsontext.Unquote(m.Val)
			}
		}
	}
	return page, next, info, nil
}

// readResultObject reads a result on its own (not in its message) as
// jsonrpc.IndexResult does: an error when it is not one JSON object.
func readResultObject(res []byte) (*jsonrpc.ResultIndex, error) {
	i := jsontext.SkipWS(res, 0)
	if i >= len(res) || res[i] != '{' {
		if err := jsontext.Check(res); err != nil {
			return nil, err
		}
		return nil, errors.New("the result is not a JSON object")
	}
	idx, end, err := jsonrpc.IndexResult(res, i, 1)
	if err == nil && jsontext.SkipWS(res, end) != len(res) {
		err = printf.Errorf("%w: data after the object at offset %d", jsontext.ErrSyntax, end)
	}
	return idx, err
}

// sameBytes is bytes.Equal that answers at once for the same slice: a
// re-list reuses unchanged items, raw JSON included.
func sameBytes(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return bytes.Equal(a, b)
}
