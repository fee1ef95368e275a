package mcplive

import (
	"context"
	"slices"
	"sync"
)

// resourceSubs is the registry of resource subscribers that Session and
// Client share: the subscribers of each URI in subscription order, and one
// (un)subscribe round trip at a time, so that a second subscriber never
// counts on a resources/subscribe still in flight that may fail. Each
// URI's subscribers are a watchers registry, as a list's are.
type resourceSubs struct {
	op    sync.Mutex // held across an (un)subscribe round trip
	mu    sync.Mutex
	byURI map[string]*watchers[string]
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
		r.byURI = make(map[string]*watchers[string])
	}
	w := r.byURI[uri]
	if w == nil {
		w = new(watchers[string])
		r.byURI[uri] = w
	}
	first := w.len() == 0
	remove := w.add(fn)
	r.mu.Unlock()
	if first {
		if err := send(ctx); err != nil {
			r.remove(uri, w, remove)
			return nil, err
		}
	}
	return func(ctx context.Context) error {
		r.op.Lock()
		defer r.op.Unlock()
		if !r.remove(uri, w, remove) {
			return nil
		}
		return unsend(ctx)
	}, nil
}

// remove removes one subscriber of uri (w's); it reports whether it was
// the last one.
func (r *resourceSubs) remove(uri string, w *watchers[string], remove func() bool) (last bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !remove() || w.len() > 0 {
		return false
	}
	delete(r.byURI, uri)
	return true
}

// fns returns the subscribers of uri, in subscription order.
func (r *resourceSubs) fns(uri string) []func(string) {
	r.mu.Lock()
	w := r.byURI[uri]
	r.mu.Unlock()
	if w == nil {
		return nil
	}
	return w.now()
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
