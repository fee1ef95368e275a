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
