package mcplive

import (
	"context"
	"slices"
	"sync"
)

// resourceSubs is the registry of resource subscribers that Session and
// Client share: the subscribers of each URI in subscription order, and one
// (un)subscribe round trip at a time, so that a second subscriber never
// counts on a resources/subscribe still in flight that may fail.
type resourceSubs struct {
	op    sync.Mutex // held across an (un)subscribe round trip
	mu    sync.Mutex
	byURI map[string][]resourceSub
	next  int
}

type resourceSub struct {
	id int
	fn func(uri string)
}

// subscribe registers fn for uri. For the first subscriber of uri it calls
// send (resources/subscribe) and undoes the registration when that fails.
// The returned function removes fn and, for the last subscriber, calls
// unsend (resources/unsubscribe); calling it again does nothing.
func (r *resourceSubs) subscribe(ctx context.Context, uri string, fn func(string),
	send func(context.Context) error, unsend func(context.Context) error) (func(context.Context) error, error) {
	r.op.Lock()
	defer r.op.Unlock()
	r.mu.Lock()
	if r.byURI == nil {
		r.byURI = make(map[string][]resourceSub)
	}
	r.next++
	id := r.next
	first := len(r.byURI[uri]) == 0
	r.byURI[uri] = append(r.byURI[uri], resourceSub{id, fn})
	r.mu.Unlock()
	if first {
		if err := send(ctx); err != nil {
			r.remove(uri, id)
			return nil, err
		}
	}
	return func(ctx context.Context) error {
		r.op.Lock()
		defer r.op.Unlock()
		if !r.remove(uri, id) {
			return nil
		}
		return unsend(ctx)
	}, nil
}

// remove removes one subscriber; it reports whether it was the last one of
// its URI.
func (r *resourceSubs) remove(uri string, id int) (last bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	subs := r.byURI[uri]
	i := slices.IndexFunc(subs, func(s resourceSub) bool { return s.id == id })
	if i < 0 {
		return false
	}
	subs = slices.Delete(subs, i, i+1)
	if len(subs) > 0 {
		r.byURI[uri] = subs
		return false
	}
	delete(r.byURI, uri)
	return true
}

// fns returns the subscribers of uri, in subscription order.
func (r *resourceSubs) fns(uri string) []func(string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]func(string), len(r.byURI[uri]))
	for i, s := range r.byURI[uri] {
		out[i] = s.fn
	}
	return out
}

// uris returns the URIs that have subscribers, sorted.
func (r *resourceSubs) uris() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.byURI))
	for uri := range r.byURI {
		out = append(out, uri)
	}
	slices.Sort(out)
	return out
}
