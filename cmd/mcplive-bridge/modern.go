package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MCP 2026-07-28 over Streamable HTTP: sessionless. Every request carries
// its protocol version, client info and capabilities in its _meta; a
// request is one POST, answered on its own event stream; list changes and
// resource updates come on the stream of a subscriptions/listen request;
// a server asks the user (elicitation) by answering with an
// InputRequiredResult, never by a request of its own (multi round-trip
// requests); a client cancels a request by closing its stream.
//
// With no session there is nothing to start a process per page on, and
// nothing for one to belong to: the bridge runs one shared process of the
// server (per configured server) for every 2026-07-28 request over HTTP,
// which is what the revision is made for (a server "serves it statelessly";
// a dual-era server "MAY serve both eras concurrently on the same ...
// process"). Ids are remapped: each request gets a fresh id of the bridge's
// towards the process, its answer goes back with the page's id on the
// page's stream. The progressToken of a request is remapped the same way,
// so that its progress goes on its stream with the page's token; the
// subscription id of a listen stream (the listen request's id) too, so that
// each listen stream gets the notifications the process sends for it. The
// stdio server never sees two pages' ids collide, and no page sees
// another's messages.
//
// Whether the server speaks 2026-07-28 is asked once, as the specification
// tells a stdio client to (server/discover before anything else): a server
// that does not is served over HTTP in 2025-11-25 only (one process per
// session, stdio.go), and a 2026-07-28 request is answered with
// UnsupportedProtocolVersion naming the revisions it has, so clients fall
// back. The bridge never translates one revision into the other.

const (
	modernVersion = "2026-07-28"
	metaVersion   = "io.modelcontextprotocol/protocolVersion"
	metaSubID     = "io.modelcontextprotocol/subscriptionId"
	metaLogLevel  = "io.modelcontextprotocol/logLevel"
	methodListen  = "subscriptions/listen"
)

// probeTimeout bounds the wait for the answer to the server/discover that
// tells a 2026-07-28 server from an older one: the specification lets a
// client take silence for an older server. Long, as a server started with
// npx may first be downloaded.
var probeTimeout = 30 * time.Second

// maxQueued bounds the notifications that wait for a page's stream: a page
// that does not read loses the notifications beyond it (a warning in the
// log), never its answer, and slows no other page.
const maxQueued = 1000

// keepAliveEvery is how often a listen stream gets an SSE comment.
var keepAliveEvery = 25 * time.Second

// modernHTTP is the shared process of one server for its 2026-07-28
// requests over Streamable HTTP.
type modernHTTP struct {
	h *stdioHandler

	mu       sync.Mutex
	legacy   string        // not "": the server does not speak 2026-07-28 (what it answered)
	versions []string      // the revisions ≥ 2026-07-28 the server named
	proc     *modernProc   // the running process, nil when none
	starting chan struct{} // closed when a start under way ends
	closed   bool
}

// stopErr is why the bridge stopped a process itself (no warning).
type stopErr string

func (e stopErr) Error() string { return string(e) }

const errShutdown = stopErr("mcplive-bridge: the bridge is shutting down")

// errLegacy: the server does not speak 2026-07-28.
var errLegacy = errors.New("the server does not speak 2026-07-28")

// get returns the running process, or starts one (and asks it which
// revisions it speaks). Concurrent callers share one start.
func (m *modernHTTP) get(ctx context.Context) (*modernProc, []string, error) {
	for {
		m.mu.Lock()
		switch {
		case m.closed:
			m.mu.Unlock()
			return nil, nil, errors.New("the bridge is shutting down")
		case m.legacy != "":
			m.mu.Unlock()
			return nil, nil, errLegacy
		case m.proc != nil:
			p, v := m.proc, m.versions
			select {
			case <-p.done: // it just ended: the next one starts
				m.proc = nil
				m.mu.Unlock()
				continue
			default:
			}
			m.mu.Unlock()
			return p, v, nil
		case m.starting != nil:
			wait := m.starting
			m.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		}
		wait := make(chan struct{})
		m.starting = wait
		m.mu.Unlock()
		// The start goes on when the request that caused it gives up:
		// the next request finds its result.
		type result struct {
			p   *modernProc
			v   []string
			err error
		}
		done := make(chan result, 1)
		go func() {
			p, v, err := m.start()
			m.mu.Lock()
			if err == nil && p != nil {
				if m.closed {
					m.mu.Unlock()
					p.stop(errShutdown)
					m.mu.Lock()
					err = errors.New("the bridge is shutting down")
				} else {
					m.proc, m.versions = p, v
				}
			}
			m.starting = nil
			close(wait)
			m.mu.Unlock()
			done <- result{p, v, err}
		}()
		select {
		case r := <-done:
			if r.err != nil {
				return nil, nil, r.err
			}
			if r.p == nil {
				return nil, nil, errLegacy
			}
			return r.p, r.v, nil
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

// start starts a process and sends it server/discover. It returns a nil
// process (and notes it) when the server does not speak 2026-07-28.
func (m *modernHTTP) start() (*modernProc, []string, error) {
	if !m.h.enterSession() {
		return nil, nil, errors.New("the bridge is shutting down")
	}
	log := m.h.log.With("transport", "streamable-http", "revision", modernVersion)
	c, err := startChild(context.Background(), m.h.srv, log)
	if err != nil {
		m.h.wg.Done()
		return nil, nil, err
	}
	log = log.With("pid", c.pid)
	p := &modernProc{c: c, log: log, calls: map[int64]*modernCall{}, listens: map[*pageListen]struct{}{}, done: make(chan struct{})}
	go func() {
		defer m.h.wg.Done()
		p.readLoop()
		m.mu.Lock()
		if m.proc == p {
			m.proc = nil
		}
		m.mu.Unlock()
	}()

	probe := &modernCall{method: "server/discover", probe: make(chan *jsonrpc.Response, 1)}
	params := `{"_meta":{"` + metaVersion + `":"` + modernVersion + `","io.modelcontextprotocol/clientInfo":{"name":"mcplive-bridge","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}`
	id, err := p.send(probe, &jsonrpc.Request{Method: "server/discover", Params: json.RawMessage(params)})
	var resp *jsonrpc.Response
	if err == nil {
		timer := time.NewTimer(probeTimeout)
		select {
		case resp = <-probe.probe:
		case <-p.done:
		case <-timer.C:
			p.forget(id, false)
		}
		timer.Stop()
	}
	select {
	case <-p.done:
		return nil, nil, p.cause
	default:
	}
	versions, legacy := discovered(resp)
	if legacy != "" {
		m.mu.Lock()
		m.legacy = legacy
		m.mu.Unlock()
		log.Info("the server does not speak 2026-07-28: over Streamable HTTP it is served in 2025-11-25 (a process per session)", "server/discover", legacy)
		p.stop(stopErr("mcplive-bridge: the server does not speak 2026-07-28"))
		return nil, nil, nil
	}
	log.Info("shared process started for 2026-07-28 over Streamable HTTP", "versions", strings.Join(versions, ","))
	return p, versions, nil
}

// discovered reads the answer to server/discover: the revisions ≥
// 2026-07-28 the server speaks, or what it said instead ("" when it speaks
// one).
func discovered(resp *jsonrpc.Response) (versions []string, legacy string) {
	if resp == nil {
		return nil, "no answer within " + probeTimeout.String()
	}
	var supported []string
	switch {
	case resp.Error != nil:
		var we *jsonrpc.Error
		if errors.As(resp.Error, &we) {
			if we.Code == -32022 { // UnsupportedProtocolVersion: it names what it speaks
				var d struct {
					Supported []string `json:"supported"`
				}
				json.Unmarshal(we.Data, &d)
				supported = d.Supported
			}
			if len(supported) == 0 {
				return nil, "error " + strconv.FormatInt(we.Code, 10) + " " + strconv.Quote(we.Message)
			}
		} else {
			return nil, resp.Error.Error()
		}
	default:
		var r struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		if json.Unmarshal(resp.Result, &r) != nil || len(r.SupportedVersions) == 0 {
			return nil, "a result without supportedVersions"
		}
		supported = r.SupportedVersions
	}
	for _, v := range supported {
		if v >= modernVersion {
			versions = append(versions, v)
		}
	}
	if len(versions) == 0 {
		return nil, "supported " + strings.Join(supported, ", ")
	}
	return versions, ""
}

// close stops the shared process (the bridge is shutting down).
func (m *modernHTTP) close() {
	m.mu.Lock()
	m.closed = true
	p := m.proc
	m.proc = nil
	m.mu.Unlock()
	if p != nil {
		p.stop(errShutdown)
	}
}

// modernProc is one running shared process and the requests in flight
// through it.
type modernProc struct {
	c   *child
	log *slog.Logger

	mu      sync.Mutex
	next    int64
	calls   map[int64]*modernCall // by the bridge's id towards the process
	listens map[*pageListen]struct{}
	feeds   feedState // the bridge's own listen streams (fanout.go)

	feedMu sync.Mutex // one feed opens at a time
	once   sync.Once
	done   chan struct{} // closed when it ended
	cause  error         // why; set before done closes
}

// modernCall is one request in flight: whose it is and where its messages
// go.
type modernCall struct {
	pageID    jsonrpc.ID
	method    string
	pageToken json.RawMessage // the page's progressToken (nil: none)
	logs      bool            // it asked for log messages (_meta logLevel)
	feed      *feed           // the bridge's own subscriptions/listen
	q         *outQueue
	probe     chan *jsonrpc.Response // the bridge's own server/discover
}

// send gives req a fresh id (and its progressToken the same number), notes
// the call and writes it to the process.
func (p *modernProc) send(call *modernCall, req *jsonrpc.Request) (int64, error) {
	p.mu.Lock()
	select {
	case <-p.done:
		p.mu.Unlock()
		return 0, p.cause
	default:
	}
	p.next++
	id := p.next
	p.calls[id] = call
	p.mu.Unlock()
	req.ID, _ = jsonrpc.MakeID(float64(id))
	if call.pageToken != nil {
		req.Params = setMeta(req.Params, "progressToken", json.RawMessage(strconv.FormatInt(id, 10)))
	}
	if err := p.c.conn.Write(context.Background(), req); err != nil {
		p.forget(id, false)
		// Its stdin is closed: it is ending, and its reader says why.
		select {
		case <-p.done:
			return 0, p.cause
		case <-time.After(2 * time.Second):
			p.stop(nil)
			<-p.done
			return 0, p.cause
		}
	}
	return id, nil
}

// forget drops a call that its page gave up (it closed the stream): the
// process hears notifications/cancelled, as a stdio client cancels.
func (p *modernProc) forget(id int64, cancel bool) {
	p.mu.Lock()
	_, ok := p.calls[id]
	delete(p.calls, id)
	p.mu.Unlock()
	if !ok || !cancel {
		return
	}
	params, _ := json.Marshal(map[string]any{"requestId": id, "reason": "the client closed the request's stream"})
	if err := p.c.conn.Write(context.Background(), &jsonrpc.Request{Method: "notifications/cancelled", Params: params}); err != nil {
		p.log.Debug("could not cancel a request", "error", err)
	}
}

// stop ends the process (cause nil: its own reading says why).
func (p *modernProc) stop(cause error) {
	if cause != nil {
		p.end(cause)
	}
	p.c.conn.Close() // waits for the exit: no zombie
}

// readLoop carries what the process says to the pages, until it ends.
func (p *modernProc) readLoop() {
	var readErr error
	for {
		msg, err := p.c.conn.Read(context.Background())
		if err != nil {
			readErr = err
			break
		}
		p.dispatch(msg)
	}
	exitErr := p.c.conn.Close()
	p.end(p.c.childError(readErr, exitErr))
}

// end answers every request still in flight with cause.
func (p *modernProc) end(cause error) {
	p.once.Do(func() {
		p.mu.Lock()
		p.cause = cause
		calls := p.calls
		p.calls = map[int64]*modernCall{}
		listens := p.listens
		p.listens = map[*pageListen]struct{}{}
		close(p.done)
		p.mu.Unlock()
		for _, f := range p.feeds.all(calls) {
			f.end(cause)
		}
		for pl := range listens {
			pl.q.push(encode(&jsonrpc.Response{ID: pl.pageID, Error: &jsonrpc.Error{Code: -32000, Message: cause.Error()}}), true)
		}
		var stopped stopErr
		if !errors.As(cause, &stopped) {
			p.log.Warn("the shared server process ended", "in_flight", len(calls), "listening", len(listens), "error", cause)
		}
		for _, call := range calls {
			if call.q == nil {
				continue
			}
			call.q.push(encode(&jsonrpc.Response{ID: call.pageID, Error: &jsonrpc.Error{Code: -32000, Message: cause.Error()}}), true)
		}
	})
}

// dispatch routes one message of the process to the page it belongs to.
func (p *modernProc) dispatch(msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		id, ok := m.ID.Raw().(int64)
		p.mu.Lock()
		call := p.calls[id]
		delete(p.calls, id)
		p.mu.Unlock()
		if !ok || call == nil {
			p.log.Debug("an answer to no request in flight (cancelled)", "id", m.ID.Raw())
			return
		}
		if call.probe != nil {
			call.probe <- m
			return
		}
		if call.feed != nil {
			p.feedEnded(call.feed, m)
			return
		}
		m.ID = call.pageID
		call.q.push(encode(m), true)
	case *jsonrpc.Request:
		if m.IsCall() {
			// 2026-07-28 has no server requests: a server asks through
			// an InputRequiredResult. Nobody could answer this one.
			p.log.Warn("the server sent a request, which 2026-07-28 does not have: refused", "method", m.Method)
			resp := &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: -32600, Message: "mcplive-bridge: in MCP 2026-07-28 a server sends no requests (" + m.Method + "); ask the client with an InputRequiredResult (multi round-trip requests)"}}
			if err := p.c.conn.Write(context.Background(), resp); err != nil {
				p.log.Debug("could not refuse the server's request", "error", err)
			}
			return
		}
		p.notification(m)
	}
}

// listFields maps a change notification to the listen filter's field.
var listFields = map[string]string{
	"notifications/tools/list_changed":     "toolsListChanged",
	"notifications/prompts/list_changed":   "promptsListChanged",
	"notifications/resources/list_changed": "resourcesListChanged",
}

func (p *modernProc) notification(m *jsonrpc.Request) {
	var params map[string]json.RawMessage
	json.Unmarshal(m.Params, &params)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch m.Method {
	case "notifications/progress":
		id, err := strconv.ParseInt(string(params["progressToken"]), 10, 64)
		call := p.calls[id]
		if err != nil || call == nil || call.q == nil || call.pageToken == nil {
			p.log.Debug("progress for no request in flight", "token", string(params["progressToken"]))
			return
		}
		m.Params = setField(m.Params, "progressToken", call.pageToken)
		call.q.push(encode(m), false)
		return
	case "notifications/message":
		// Request-scoped, but a stdio server does not say which request
		// a log message belongs to: it goes to the one request in
		// flight that asked for log messages, or to the bridge's log.
		var to *modernCall
		for _, call := range p.calls {
			if call.logs && call.q != nil {
				if to != nil {
					to = nil
					break
				}
				to = call
			}
		}
		if to == nil {
			p.log.Info("a log message of the server that no single request in flight asked for (2026-07-28 over stdio does not say which request it belongs to)", "params", string(m.Params))
			return
		}
		to.q.push(encode(m), false)
		return
	case "notifications/subscriptions/acknowledged":
		p.acknowledged(params)
		return
	}
	// A change: to every page's listen stream that asked for it, with
	// its own id as the subscription id.
	for pl := range p.listens {
		if pl.wants(m.Method, params) {
			pl.q.push(encode(&jsonrpc.Request{Method: m.Method, Params: setMeta(m.Params, metaSubID, idJSON(pl.pageID))}), false)
		}
	}
}

// outQueue holds what waits for one page's event stream. Pushing never
// blocks the process's reader.
type outQueue struct {
	mu      sync.Mutex
	msgs    [][]byte
	last    bool // the answer is queued: the stream ends after it
	ready   chan struct{}
	dropped int
	log     *slog.Logger
}

func newOutQueue(log *slog.Logger) *outQueue {
	return &outQueue{ready: make(chan struct{}, 1), log: log}
}

func (q *outQueue) push(data []byte, last bool) {
	q.mu.Lock()
	if q.last {
		q.mu.Unlock()
		return
	}
	if !last && len(q.msgs) >= maxQueued {
		if q.dropped++; q.dropped == 1 || q.dropped%1000 == 0 {
			q.log.Warn("notifications for a page dropped: it does not read its stream", "dropped", q.dropped)
		}
		q.mu.Unlock()
		return
	}
	q.msgs = append(q.msgs, data)
	q.last = q.last || last
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *outQueue) take() ([][]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs := q.msgs
	q.msgs = nil
	return msgs, q.last
}

func encode(msg jsonrpc.Message) []byte {
	data, _ := jsonrpc.EncodeMessage(msg)
	return data
}

func idJSON(id jsonrpc.ID) json.RawMessage {
	data, _ := json.Marshal(id.Raw())
	return data
}

// fields reads obj's members (obj a JSON object, or empty: none).
func fields(obj json.RawMessage) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	json.Unmarshal(obj, &m)
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	return m
}

// setField sets obj's field (obj a JSON object, or empty).
func setField(obj json.RawMessage, field string, val json.RawMessage) json.RawMessage {
	m := fields(obj)
	m[field] = val
	out, _ := json.Marshal(m)
	return out
}

// setMeta sets obj._meta's field.
func setMeta(obj json.RawMessage, field string, val json.RawMessage) json.RawMessage {
	return setField(obj, "_meta", setField(fields(obj)["_meta"], field, val))
}

// writeRPCError answers a POST with an HTTP status and a JSON-RPC error.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string, data any) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// serve answers one sessionless POST: a 2026-07-28 request through the
// shared process, or UnsupportedProtocolVersion.
func (m *modernHTTP) serve(w http.ResponseWriter, r *http.Request, body []byte) {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	json.Unmarshal(body, &env)
	var requested string
	json.Unmarshal(env.Params.Meta[metaVersion], &requested)
	legacyAnswer := func(why string) {
		writeRPCError(w, http.StatusBadRequest, env.ID, -32022,
			"mcplive-bridge: "+why+"; over Streamable HTTP a session starts with initialize (MCP 2025-11-25)",
			map[string]any{"supported": legacyVersions, "requested": r.Header.Get("Mcp-Protocol-Version")})
	}
	if strings.HasPrefix(strings.TrimSpace(string(body)), "[") {
		http.Error(w, "Bad Request: mcplive-bridge: JSON-RPC batches are not supported (MCP 2025-06-18 and later send one message per POST)", http.StatusBadRequest)
		return
	}
	if requested == "" {
		legacyAnswer("a request without a session names no protocol version in its _meta")
		return
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		writeRPCError(w, http.StatusBadRequest, env.ID, -32700, "mcplive-bridge: not a JSON-RPC message: "+err.Error(), nil)
		return
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		http.Error(w, "Bad Request: mcplive-bridge: a client sends no responses in MCP 2026-07-28", http.StatusBadRequest)
		return
	}
	if err := checkHeaders(r.Header, req, requested); err != nil {
		writeRPCError(w, http.StatusBadRequest, env.ID, -32020, "mcplive-bridge: header mismatch: "+err.Error(), nil)
		return
	}
	p, versions, err := m.get(r.Context())
	switch {
	case errors.Is(err, errLegacy):
		m.mu.Lock()
		said := m.legacy
		m.mu.Unlock()
		legacyAnswer("the server behind this bridge does not speak 2026-07-28 (its server/discover: " + said + ")")
		return
	case err != nil && r.Context().Err() != nil:
		return
	case err != nil:
		http.Error(w, "Bad Gateway: mcplive-bridge: "+err.Error(), http.StatusBadGateway)
		return
	}
	if !slices.Contains(versions, requested) {
		writeRPCError(w, http.StatusBadRequest, env.ID, -32022, "Unsupported protocol version",
			map[string]any{"supported": append(slices.Clone(versions), legacyVersions...), "requested": requested})
		return
	}
	if !req.IsCall() {
		// 2026-07-28 has no notifications from a client over HTTP (a
		// request is cancelled by closing its stream); notifications/
		// cancelled names an id of the page's, which the bridge cannot
		// tell from another page's.
		if req.Method != "notifications/cancelled" {
			if err := p.c.conn.Write(context.Background(), req); err != nil {
				http.Error(w, "Bad Gateway: mcplive-bridge: "+err.Error(), http.StatusBadGateway)
				return
			}
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	log := m.h.log.With("transport", "streamable-http", "revision", modernVersion)
	call := &modernCall{pageID: req.ID, method: req.Method, q: newOutQueue(log)}
	var params map[string]json.RawMessage
	json.Unmarshal(req.Params, &params)
	var meta map[string]json.RawMessage
	json.Unmarshal(params["_meta"], &meta)
	if tok, ok := meta["progressToken"]; ok && string(tok) != "null" {
		call.pageToken = tok
	}
	_, call.logs = meta[metaLogLevel]
	if req.Method == methodListen {
		p.serveListen(w, r, req.ID, params["notifications"])
		return
	}
	id, err := p.send(call, req)
	if err != nil {
		// The process ended before the request reached it: a new one
		// gets it.
		if p, _, err = m.get(r.Context()); err == nil {
			id, err = p.send(call, req)
		}
		if err != nil {
			writeRPCError(w, http.StatusBadGateway, env.ID, -32000, "mcplive-bridge: "+strings.TrimPrefix(err.Error(), "mcplive-bridge: "), nil)
			return
		}
	}
	p.stream(w, r, call.q, false, func() { p.forget(id, true) })
}

// stream writes a page's event stream from its queue until the last
// message; onGone runs when the page closed it first (in 2026-07-28 that
// cancels the request).
//
// A listen stream (keepAlive) gets an SSE comment every keepAliveEvery, as
// the specification suggests, so that no intermediary or client idle
// timeout closes it in quiet times.
func (p *modernProc) stream(w http.ResponseWriter, r *http.Request, q *outQueue, keepAlive bool, onGone func()) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	var tick <-chan time.Time
	if keepAlive {
		t := time.NewTicker(keepAliveEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		msgs, last := q.take()
		for _, data := range msgs {
			if _, err := io.WriteString(w, "event: message\ndata: "+string(data)+"\n\n"); err != nil {
				onGone()
				return
			}
		}
		if flusher != nil && len(msgs) > 0 {
			flusher.Flush()
		}
		if last {
			return
		}
		select {
		case <-q.ready:
		case <-tick:
			if _, err := io.WriteString(w, ":\n\n"); err != nil {
				onGone()
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		case <-r.Context().Done():
			onGone()
			return
		}
	}
}

// checkHeaders: the protocol version, method and name that a request's
// headers mirror must be its body's (2026-07-28 "Server Validation"). The
// stdio server sees only the body, so the bridge checks for it. The
// Mcp-Param-… headers of tools' x-mcp-header parameters are not checked:
// the bridge does not know the tools' schemas.
func checkHeaders(h http.Header, req *jsonrpc.Request, version string) error {
	if got := h.Get("Mcp-Protocol-Version"); got != version {
		return errors.New("the Mcp-Protocol-Version header " + strconv.Quote(got) + " is not the _meta's " + strconv.Quote(version))
	}
	if !req.IsCall() {
		return nil
	}
	if got := h.Get("Mcp-Method"); got != req.Method {
		return errors.New("the Mcp-Method header " + strconv.Quote(got) + " is not the body's method " + strconv.Quote(req.Method))
	}
	var field string
	switch req.Method {
	case "tools/call", "prompts/get":
		field = "name"
	case "resources/read":
		field = "uri"
	default:
		return nil
	}
	var params map[string]json.RawMessage
	json.Unmarshal(req.Params, &params)
	var want string
	json.Unmarshal(params[field], &want)
	got := h.Get("Mcp-Name")
	if enc, ok := strings.CutPrefix(got, "=?base64?"); ok {
		if enc, ok = strings.CutSuffix(enc, "?="); ok {
			dec, err := base64.StdEncoding.DecodeString(enc)
			if err != nil {
				return errors.New("the Mcp-Name header is not valid base64")
			}
			got = string(dec)
		}
	}
	if got != want {
		return errors.New("the Mcp-Name header " + strconv.Quote(got) + " is not the body's " + field + " " + strconv.Quote(want))
	}
	return nil
}
