package mcplive

import "context"

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

// RefreshTriggers is how many re-lists of kind the client's syncer has
// been asked for so far (by notifications, Refresh, reconnects).
func RefreshTriggers(c *Client, kind Kind) uint64 {
	s := c.lists[kind].syncer()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqGen
}
