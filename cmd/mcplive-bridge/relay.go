package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// relay is the page's side of one Streamable HTTP session (2025-11-25), as
// an mcp.Connection for the pump: what the page POSTs is read, what the
// child says is written to the right event stream.
//
// Why not go-sdk's StreamableServerTransport: it routes a server's message
// to the stream of the request it belongs to through the context of its own
// mcp.Server's handler, which a byte-for-byte relay does not have; its
// progress notifications would all go to the GET stream, after the result
// (the specification asks that messages about a request go on its stream).
// Here a response goes on the stream of its request, a progress
// notification on the stream of the request that gave its progressToken,
// and everything else (list changes, resource updates, logging, the
// server's own requests) on the session's GET stream.
type relay struct {
	id       string
	log      *slog.Logger
	incoming chan jsonrpc.Message
	done     chan struct{}
	once     sync.Once

	mu       sync.Mutex
	streams  map[jsonrpc.ID]*eventStream // a request's id → its POST's stream
	progress map[string]jsonrpc.ID       // a progressToken (its JSON) → its request's id
	get      *eventStream                // the GET stream, when one is open
	backlog  [][]byte                    // for the GET stream while none is open
	dropped  int                         // messages the full backlog lost
}

// maxBacklog bounds what waits for a GET stream: a child that floods while
// the page does not listen loses the oldest, its session only.
const maxBacklog = 1000

// eventStream is one open SSE response.
type eventStream struct {
	ch   chan event
	gone chan struct{} // closed when its HTTP handler returned
}

type event struct {
	data []byte
	last bool // the response: the stream ends after it
}

func newRelay(id string, log *slog.Logger) *relay {
	return &relay{
		id:       id,
		log:      log,
		incoming: make(chan jsonrpc.Message, 16),
		done:     make(chan struct{}),
		streams:  map[jsonrpc.ID]*eventStream{},
		progress: map[string]jsonrpc.ID{},
	}
}

func newEventStream() *eventStream {
	return &eventStream{ch: make(chan event, 16), gone: make(chan struct{})}
}

// Read implements mcp.Connection: the page's next message.
func (r *relay) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-r.incoming:
		return m, nil
	case <-r.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements mcp.Connection: a message of the child, to the stream it
// belongs to.
func (r *relay) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	r.mu.Lock()
	var s *eventStream
	last := false
	switch m := msg.(type) {
	case *jsonrpc.Response:
		s, last = r.streams[m.ID], true
		delete(r.streams, m.ID)
		for tok, id := range r.progress {
			if id == m.ID {
				delete(r.progress, tok)
			}
		}
	case *jsonrpc.Request:
		if m.Method == "notifications/progress" {
			if id, ok := r.progress[notifiedToken(m.Params)]; ok {
				s = r.streams[id]
			}
		}
	}
	r.mu.Unlock()
	if s != nil {
		select {
		case s.ch <- event{data, last}:
			return nil
		case <-s.gone: // the page stopped reading that answer: the GET stream gets it
		case <-r.done:
			return errors.New("session closed")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return r.toGET(ctx, data)
}

// toGET sends data on the GET stream, or keeps it until one opens.
func (r *relay) toGET(ctx context.Context, data []byte) error {
	r.mu.Lock()
	s := r.get
	if s == nil {
		if len(r.backlog) >= maxBacklog {
			r.backlog = r.backlog[1:]
			if r.dropped++; r.dropped == 1 || r.dropped%1000 == 0 {
				r.log.Warn("messages for the page dropped: it has no GET stream open and the backlog is full", "dropped", r.dropped, "backlog", maxBacklog)
			}
		}
		r.backlog = append(r.backlog, data)
		r.mu.Unlock()
		return nil
	}
	r.mu.Unlock()
	select {
	case s.ch <- event{data: data}:
		return nil
	case <-s.gone:
		r.mu.Lock()
		r.backlog = append(r.backlog, data)
		r.mu.Unlock()
		return nil
	case <-r.done:
		return errors.New("session closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close implements mcp.Connection: it ends the session's streams.
func (r *relay) Close() error {
	r.once.Do(func() { close(r.done) })
	return nil
}

// SessionID implements mcp.Connection.
func (r *relay) SessionID() string { return r.id }

// progressToken returns a request's params._meta.progressToken as JSON
// text ("" when it has none).
func progressToken(params json.RawMessage) string {
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return ""
	}
	return string(p.Meta.ProgressToken)
}

// notifiedToken returns a progress notification's params.progressToken as
// JSON text ("" when it has none).
func notifiedToken(params json.RawMessage) string {
	var p struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return ""
	}
	return string(p.ProgressToken)
}

// servePOST takes one message of the page: a request gets an event stream
// that carries its answer (and its progress); anything else gets 202.
func (r *relay) servePOST(w http.ResponseWriter, req *http.Request, body []byte) {
	if strings.HasPrefix(strings.TrimSpace(string(body)), "[") {
		http.Error(w, "Bad Request: mcplive-bridge: JSON-RPC batches are not supported (MCP 2025-06-18 and later send one message per POST)", http.StatusBadRequest)
		return
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		http.Error(w, "Bad Request: mcplive-bridge: not a JSON-RPC message: "+err.Error(), http.StatusBadRequest)
		return
	}
	call, ok := msg.(*jsonrpc.Request)
	if !ok || !call.IsCall() {
		if !r.push(msg) {
			http.Error(w, "Not Found: mcplive-bridge: the session ended", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	s := newEventStream()
	defer close(s.gone)
	r.mu.Lock()
	if _, dup := r.streams[call.ID]; dup {
		r.mu.Unlock()
		http.Error(w, "Bad Request: mcplive-bridge: a request with this id is in flight already", http.StatusBadRequest)
		return
	}
	r.streams[call.ID] = s
	if tok := progressToken(call.Params); tok != "" {
		r.progress[tok] = call.ID
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		if r.streams[call.ID] == s {
			delete(r.streams, call.ID)
		}
		r.mu.Unlock()
	}()
	if !r.push(msg) {
		http.Error(w, "Not Found: mcplive-bridge: the session ended", http.StatusNotFound)
		return
	}
	r.stream(w, req, s, nil)
}

// push hands a page's message to the pump, unless the session ended.
func (r *relay) push(msg jsonrpc.Message) bool {
	select {
	case r.incoming <- msg:
		return true
	case <-r.done:
		return false
	}
}

// serveGET opens the session's GET stream (a new one replaces an old one).
func (r *relay) serveGET(w http.ResponseWriter, req *http.Request) {
	if !strings.Contains(req.Header.Get("Accept"), "text/event-stream") {
		http.Error(w, "Not Acceptable: mcplive-bridge: a GET opens an event stream (Accept: text/event-stream)", http.StatusNotAcceptable)
		return
	}
	s := newEventStream()
	defer close(s.gone)
	r.mu.Lock()
	backlog := r.backlog
	r.backlog = nil
	r.get = s
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		if r.get == s {
			r.get = nil
		}
		r.mu.Unlock()
	}()
	r.stream(w, req, s, backlog)
}

// stream writes an event stream (first what waited for it) until its last
// event, the page's leaving, or the session's end.
func (r *relay) stream(w http.ResponseWriter, req *http.Request, s *eventStream, first [][]byte) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Mcp-Session-Id", r.id)
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	write := func(data []byte) bool {
		if _, err := io.WriteString(w, "event: message\ndata: "+string(data)+"\n\n"); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	if flusher != nil {
		flusher.Flush()
	}
	for _, data := range first {
		if !write(data) {
			return
		}
	}
	for {
		select {
		case ev := <-s.ch:
			if !write(ev.data) || ev.last {
				return
			}
		case <-req.Context().Done():
			return
		case <-r.done:
			// What was sent before the end (the errors of the requests
			// a child left unanswered) still goes out.
			for {
				select {
				case ev := <-s.ch:
					if !write(ev.data) || ev.last {
						return
					}
				default:
					return
				}
			}
		}
	}
}
