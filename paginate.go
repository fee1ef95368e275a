package mcplive

import (
	"context"
	"encoding/json"
	"fmt"
)

// listPage is one page of any of the four list results.
type listPage struct {
	Tools             []json.RawMessage `json:"tools"`
	Prompts           []json.RawMessage `json:"prompts"`
	Resources         []json.RawMessage `json:"resources"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates"`
	NextCursor        *string           `json:"nextCursor"`
}

// kindSpec ties a list kind to its method, page field and capability.
type kindSpec struct {
	kind   Kind
	method string
	items  func(*listPage) []json.RawMessage
	cap    func(ServerCapabilities) bool
	name   string // the capability, for error texts
}

var kindSpecs = map[Kind]kindSpec{
	KindTools: {KindTools, methodListTools, func(p *listPage) []json.RawMessage { return p.Tools },
		func(c ServerCapabilities) bool { return c.Tools != nil }, "tools"},
	KindPrompts: {KindPrompts, methodListPrompts, func(p *listPage) []json.RawMessage { return p.Prompts },
		func(c ServerCapabilities) bool { return c.Prompts != nil }, "prompts"},
	KindResources: {KindResources, methodListResources, func(p *listPage) []json.RawMessage { return p.Resources },
		func(c ServerCapabilities) bool { return c.Resources != nil }, "resources"},
	KindResourceTemplates: {KindResourceTemplates, methodListTemplates, func(p *listPage) []json.RawMessage { return p.ResourceTemplates },
		func(c ServerCapabilities) bool { return c.Resources != nil }, "resources"},
}

// listRaw walks every page of a list and returns the raw items in order. A
// cursor seen twice, or more than MaxPages pages, ends the walk with an
// error wrapping ErrProtocol.
func (s *Session) listRaw(ctx context.Context, kind Kind) ([]json.RawMessage, error) {
	spec := kindSpecs[kind]
	if err := s.need(spec.method, spec.cap(s.caps()), spec.name); err != nil {
		return nil, err
	}
	var all []json.RawMessage
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
		var p listPage
		if err := s.requestInto(ctx, spec.method, params, &p, nil); err != nil {
			return nil, err
		}
		all = append(all, spec.items(&p)...)
		if p.NextCursor == nil || *p.NextCursor == "" {
			return all, nil
		}
		if seen[*p.NextCursor] {
			return nil, fmt.Errorf("%s: %w", spec.method, protocolError("the server repeated cursor %q on page %d; the walk would never end", *p.NextCursor, page))
		}
		seen[*p.NextCursor] = true
		cursor = p.NextCursor
	}
}

// decodeItems decodes raw list items into T, keeping each one's raw JSON,
// and rejects items without a key.
func decodeItems[T Item](kind Kind, raws []json.RawMessage) ([]T, error) {
	items := make([]T, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &items[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", kindSpecs[kind].method, protocolError("item %d: %v", i, err))
		}
		setRaw(&items[i], raw)
		if items[i].Key() == "" {
			return nil, fmt.Errorf("%s: %w", kindSpecs[kind].method, protocolError("item %d has no %s: %s", i, keyName(kind), snippet(raw)))
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
