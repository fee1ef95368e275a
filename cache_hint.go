package mcplive

import (
	"time"
)

// CacheHint is what a server said about the freshness of a list: the
// smallest ttlMs of its pages and their cacheScope ("private" when any page
// says so). The stores never poll: a TTL is a freshness hint, not a polling
// interval (spec 2026-07-28, caching), and a list_changed invalidates a list
// whatever its TTL. Received is when the walk's first page arrived (every
// page came at or after it): the list is fresh while time.Since(Received) < TTL.
type CacheHint struct {
	TTL      time.Duration
	HasTTL   bool
	Scope    string
	Received time.Time
}

// sameHint compares two hints but for the time they were received.
func sameHint(a, b *CacheHint) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.TTL == b.TTL && a.HasTTL == b.HasTTL && a.Scope == b.Scope
}

// merge folds one page's hints into h (nil: none so far). The walk sets
// Received once, when its last page has come (time.Now is a call into JS
// in the browser: not one per page).
func (h *CacheHint) merge(p pageInfo) *CacheHint {
	if p.ttlMs < 0 && p.cacheScope == "" {
		return h
	}
	if h == nil {
		h = &CacheHint{}
	}
	if ttl := time.Duration(p.ttlMs) * time.Millisecond; p.ttlMs >= 0 && (!h.HasTTL || ttl < h.TTL) {
		h.TTL, h.HasTTL = ttl, true
	}
	if h.Scope != "private" && p.cacheScope != "" {
		h.Scope = p.cacheScope
	}
	return h
}
