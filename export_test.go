package mcplive

import "context"

// Walks reports how many list walks (every page of one list) the client has
// started for kind. Tests and benchmarks use it to count re-lists.
func (c *Client) Walks(kind Kind) uint64 {
	l, ok := c.lists[kind]
	if !ok {
		return 0
	}
	return l.syncer().walkCount()
}

// ListRaw walks a list as a client with Options.RawItems does (the raw
// builder: items validated and keyed, not decoded) and returns the keys.
func ListRaw(ctx context.Context, s *Session, kind Kind) ([]string, error) {
	spec, _ := specOf(kind)
	pages, _, err := s.listPages(ctx, spec)
	if err != nil {
		return nil, err
	}
	b := newRawBuild(spec)(rawEntries(nil))
	if err := decodeItems(spec, pages, b); err != nil {
		return nil, err
	}
	items := b.items()
	keys := make([]string, items.Len())
	for i := range keys {
		keys[i] = items.Key(i)
	}
	return keys, nil
}
