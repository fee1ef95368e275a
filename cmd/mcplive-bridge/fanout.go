package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// subscriptions/listen through the shared process (2026-07-28 over
// Streamable HTTP). The bridge answers each page's listen stream itself
// and fans out to it the list changes and resource updates it asked for,
// from listen streams of its own towards the process ("feeds"): the first
// asks for the changes of every list, each later one for the resource URIs
// no feed asked for yet. A feed is never cancelled while the process runs.
//
// Why not pass every page's listen through with its id remapped: a stdio
// server is one connection, and servers keep one subscription per
// connection — go-sdk's keeps the newest listen stream of a connection
// for each kind, and the end of any of them drops them all — so with two
// pages the first would stop hearing changes. The pages see what the
// specification promises: an acknowledgment first (what they asked for
// that the server acknowledged), then only the notifications they asked
// for, each with their own listen request's id as the subscription id.

// pageListen is one page's subscriptions/listen stream.
type pageListen struct {
	pageID jsonrpc.ID
	lists  map[string]bool // "toolsListChanged", … asked for
	uris   map[string]bool // resources asked for
	q      *outQueue
}

func (pl *pageListen) wants(method string, params map[string]json.RawMessage) bool {
	if f, ok := listFields[method]; ok {
		return pl.lists[f]
	}
	if method == "notifications/resources/updated" {
		var uri string
		json.Unmarshal(params["uri"], &uri)
		return pl.uris[uri]
	}
	return false
}

// feed is one subscriptions/listen of the bridge's towards the process.
type feed struct {
	lists     bool     // it asks for the changes of every list
	uris      []string // the resources it asks for
	acked     chan struct{}
	ackOnce   bool
	done      chan struct{} // closed when it ended
	err       error         // why (nil: a graceful end); set before done
	cancelled bool          // cancelled by the bridge: its end is expected
	live      bool          // acknowledged
	doneOnce  sync.Once
}

// feedState is what the feeds acknowledged (guarded by modernProc.mu).
type feedState struct {
	hasLists bool            // a feed asks for the list changes
	lists    map[string]bool // list changes a feed acknowledged
	uris     map[string]bool // resources a feed acknowledged
	asked    map[string]bool // resources a feed asked for
}

func (fs *feedState) reset() { *fs = feedState{} }

var listKinds = []string{"toolsListChanged", "promptsListChanged", "resourcesListChanged"}

// bridgeMeta is the _meta of the bridge's own requests.
const bridgeMeta = `{"` + metaVersion + `":"` + modernVersion + `","io.modelcontextprotocol/clientInfo":{"name":"mcplive-bridge","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// serveListen answers a page's subscriptions/listen.
func (p *modernProc) serveListen(w http.ResponseWriter, r *http.Request, pageID jsonrpc.ID, filter json.RawMessage) {
	var f map[string]json.RawMessage
	if json.Unmarshal(filter, &f) != nil || f == nil {
		writeRPCError(w, http.StatusOK, idJSON(pageID), -32602, "mcplive-bridge: subscriptions/listen needs its notifications filter (an object)", nil)
		return
	}
	pl := &pageListen{pageID: pageID, lists: map[string]bool{}, uris: map[string]bool{}, q: newOutQueue(p.log)}
	for _, k := range listKinds {
		pl.lists[k] = string(f[k]) == "true"
	}
	var uris []string
	json.Unmarshal(f["resourceSubscriptions"], &uris)
	for _, u := range uris {
		pl.uris[u] = true
	}
	if err := p.openFeeds(r.Context(), pl); err != nil {
		if r.Context().Err() != nil {
			return
		}
		code, msg := int64(-32000), err.Error()
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			code, msg = we.Code, we.Message
		}
		writeRPCError(w, http.StatusOK, idJSON(pageID), int(code), msg, nil)
		return
	}
	p.mu.Lock()
	select {
	case <-p.done:
		p.mu.Unlock()
		writeRPCError(w, http.StatusOK, idJSON(pageID), -32000, p.cause.Error(), nil)
		return
	default:
	}
	// Registered and acknowledged at once: nothing comes before the
	// acknowledgment, nothing after it is missed.
	p.listens[pl] = struct{}{}
	acked := map[string]any{}
	for _, k := range listKinds {
		if pl.lists[k] && p.feeds.lists[k] {
			acked[k] = true
		}
	}
	if _, ok := f["resourceSubscriptions"]; ok {
		got := []string{}
		for _, u := range uris {
			if p.feeds.uris[u] {
				got = append(got, u)
			}
		}
		acked["resourceSubscriptions"] = got
	}
	params, _ := json.Marshal(map[string]any{"_meta": map[string]any{metaSubID: pageID.Raw()}, "notifications": acked})
	pl.q.push(encode(&jsonrpc.Request{Method: "notifications/subscriptions/acknowledged", Params: params}), false)
	p.mu.Unlock()
	p.stream(w, r, pl.q, true, func() {
		p.mu.Lock()
		delete(p.listens, pl)
		p.mu.Unlock()
	})
}

// openFeeds opens a feed for what pl asks that no feed asked for yet, and
// waits for its acknowledgment.
func (p *modernProc) openFeeds(ctx context.Context, pl *pageListen) error {
	p.feedMu.Lock()
	defer p.feedMu.Unlock()
	// Feeds the bridge cancelled must have ended before a new one opens
	// (their end would drop its subscriptions in go-sdk's server), and a
	// feed still waiting for its acknowledgment (its page gave up
	// waiting) must have it: what it acknowledges counts for this page.
	for {
		var done, acked chan struct{}
		p.mu.Lock()
		for _, call := range p.calls {
			if f := call.feed; f != nil && (f.cancelled || !f.ackOnce) {
				done = f.done
				if !f.cancelled {
					acked = f.acked
				}
				break
			}
		}
		p.mu.Unlock()
		if done == nil {
			break
		}
		select {
		case <-done:
		case <-acked:
		case <-p.done:
			return p.cause
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f := &feed{acked: make(chan struct{}), done: make(chan struct{})}
	p.mu.Lock()
	if !p.feeds.hasLists {
		f.lists = true
		p.feeds.hasLists = true
	}
	if p.feeds.asked == nil {
		p.feeds.asked = map[string]bool{}
	}
	for u := range pl.uris {
		if !p.feeds.asked[u] {
			f.uris = append(f.uris, u)
			p.feeds.asked[u] = true
		}
	}
	p.mu.Unlock()
	if !f.lists && len(f.uris) == 0 {
		return nil
	}
	filter := map[string]any{}
	if f.lists {
		for _, k := range listKinds {
			filter[k] = true
		}
	}
	if len(f.uris) > 0 {
		filter["resourceSubscriptions"] = f.uris
	}
	fj, _ := json.Marshal(filter)
	params := json.RawMessage(`{"_meta":` + bridgeMeta + `,"notifications":` + string(fj) + `}`)
	undo := func() {
		p.mu.Lock()
		if f.lists {
			p.feeds.hasLists = false
		}
		for _, u := range f.uris {
			delete(p.feeds.asked, u)
		}
		p.mu.Unlock()
	}
	if _, err := p.send(&modernCall{method: methodListen, feed: f}, &jsonrpc.Request{Method: methodListen, Params: params}); err != nil {
		undo()
		return err
	}
	select {
	case <-f.acked:
		return nil
	case <-f.done:
		undo()
		if f.err != nil {
			return f.err
		}
		return errors.New("mcplive-bridge: the server ended subscriptions/listen without acknowledging it")
	case <-p.done:
		return p.cause
	case <-ctx.Done():
		// It goes on: its acknowledgment, when it comes, is noted.
		return ctx.Err()
	}
}

// acknowledged notes what a feed's server agreed to (called with p.mu
// held).
func (p *modernProc) acknowledged(params map[string]json.RawMessage) {
	var meta map[string]json.RawMessage
	json.Unmarshal(params["_meta"], &meta)
	var f *feed
	if id, err := strconv.ParseInt(string(meta[metaSubID]), 10, 64); err == nil {
		if call := p.calls[id]; call != nil {
			f = call.feed
		}
	} else {
		// No subscription id: the feed still waiting (one opens at a time).
		for _, call := range p.calls {
			if call.feed != nil && !call.feed.ackOnce {
				f = call.feed
			}
		}
	}
	if f == nil || f.ackOnce {
		p.log.Debug("an acknowledgment for no listen stream of the bridge's", "params", string(params["_meta"]))
		return
	}
	var got map[string]json.RawMessage
	json.Unmarshal(params["notifications"], &got)
	if p.feeds.lists == nil {
		p.feeds.lists, p.feeds.uris = map[string]bool{}, map[string]bool{}
	}
	if f.lists {
		for _, k := range listKinds {
			if string(got[k]) == "true" {
				p.feeds.lists[k] = true
			}
		}
	}
	var uris []string
	json.Unmarshal(got["resourceSubscriptions"], &uris)
	for _, u := range uris {
		p.feeds.uris[u] = true
	}
	f.ackOnce, f.live = true, true
	close(f.acked)
}

// feedEnded: the process answered one of the bridge's listen streams. One
// that was live ending by the server's doing ends every page's listen
// stream (gracefully, as the server did), and the other feeds: the next
// listen stream of a page opens new ones.
func (p *modernProc) feedEnded(f *feed, resp *jsonrpc.Response) {
	var err error
	if resp.Error != nil {
		err = resp.Error
	}
	p.mu.Lock()
	wasLive := f.live && !f.cancelled
	f.live = false
	f.end(err)
	if !wasLive {
		p.mu.Unlock()
		return
	}
	p.log.Warn("the server ended the bridge's subscriptions/listen: every page's listen stream ends", "error", err)
	p.feeds.reset()
	var cancel []int64
	for id, call := range p.calls {
		if call.feed != nil && !call.feed.cancelled {
			call.feed.cancelled = true
			call.feed.live = false
			cancel = append(cancel, id)
		}
	}
	listens := p.listens
	p.listens = map[*pageListen]struct{}{}
	p.mu.Unlock()
	for _, id := range cancel {
		params, _ := json.Marshal(map[string]any{"requestId": id, "reason": "the bridge re-opens its subscriptions"})
		p.c.conn.Write(context.Background(), &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
	}
	for pl := range listens {
		result, _ := json.Marshal(map[string]any{"resultType": "complete", "_meta": map[string]any{metaSubID: pl.pageID.Raw()}})
		pl.q.push(encode(&jsonrpc.Response{ID: pl.pageID, Result: result}), true)
	}
}

// all returns the feeds among calls.
func (fs *feedState) all(calls map[int64]*modernCall) []*feed {
	var out []*feed
	for _, call := range calls {
		if call.feed != nil {
			out = append(out, call.feed)
		}
	}
	return out
}

// end notes a feed's end (its answer, or its process's end).
func (f *feed) end(cause error) {
	f.doneOnce.Do(func() {
		f.err = cause
		close(f.done)
	})
}
