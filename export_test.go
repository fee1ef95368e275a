package mcplive

// Walks reports how many list walks (every page of one list) the client has
// started for kind. Tests and benchmarks use it to count re-lists.
func (c *Client) Walks(kind Kind) uint64 {
	l, ok := c.lists[kind]
	if !ok {
		return 0
	}
	return l.syncer().walkCount()
}

// SetDefaultVersion sets the revision a client speaks when
// Options.ProtocolVersion is empty ("": the modern era first): the tests
// run once per era.
func SetDefaultVersion(v string) { defaultVersion = v }
