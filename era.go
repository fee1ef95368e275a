package mcplive

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/methods"
	"github.com/mcplive/mcplive/internal/printf"
)

// A session speaks one of two eras. Legacy (2025-11-25 and older): an
// initialize handshake, then plain requests; list changes arrive as
// notifications whenever the server sends them. Modern (2026-07-28): no
// handshake, every request carries its protocol version, the client's
// capabilities and info in _meta, server/discover tells what the server
// offers, and list changes reach the client only on a subscriptions/listen
// stream it opened (listen.go).

// ErrIncompleteResult reports a modern result whose resultType is not
// "complete" (such as "input_required", a multi round-trip request) for a
// call that does not support it.
var ErrIncompleteResult = errors.New("mcplive: incomplete result")

// open runs the opening of the session's era: server/discover for the
// modern era, falling back to initialize when the server does not speak
// it, unless Options.ProtocolVersion pins one.
func (s *Session) open(ctx context.Context) error {
	pin := s.opts.ProtocolVersion
	if p := s.opts.Prior; p != nil && !s.legacyFirst && (pin == "" || pin == ModernVersion) && s.adopt(p) {
		return nil
	}
	if pin == "" && s.legacyFirst {
		// The server answered initialize last time: skip the probe (a
		// round trip, or the whole probe timeout with a server that
		// ignores it). The spec asks a client to cache a server's era and
		// to probe again "if the cached assumption later fails": a server
		// that now refuses initialize may have moved on.
		err := s.initialize(ctx)
		if err == nil || !refusedInitialize(err) {
			return err
		}
		s.opts.Logger.Info("mcplive: the server refused initialize, which it answered before; probing its protocol revision again", "err", err.Error())
	}
	if pin == "" || slices.Contains(modernVersions, pin) {
		err := s.discover(ctx)
		var rej *RPCError
		if errors.As(err, &rej) && rej.Code == CodeUnsupportedProtocolVersion && slices.Contains(supportedOf(rej), ModernVersion) {
			// A modern server that refused the version it lists as
			// supported: retry once, as the spec asks ("the client
			// retries with a supported version rather than falling back").
			err = s.discover(ctx)
		}
		if err == nil {
			return nil
		}
		if pin != "" || !isLegacyAnswer(err) {
			var rpcErr *RPCError
			if errors.As(err, &rpcErr) && rpcErr.Code == CodeUnsupportedProtocolVersion {
				return printf.Errorf("mcplive: server/discover: %w: the server speaks MCP %s, this client %q (and, with initialize, %s)",
					ErrProtocol, quoteAll(supportedOf(rpcErr)), ModernVersion, quoteAll(supportedVersions))
			}
			return methodErr(methods.Discover, err)
		}
		logDebug(s.opts.Logger, "mcplive: the server does not speak MCP "+ModernVersion+"; falling back to initialize", "err", err.Error())
		s.modern = false
	}
	return s.initialize(ctx)
}

// refusedInitialize reports whether err, from initialize, is the server's
// answer (a JSON-RPC error, or an HTTP 4xx other than 401 and 403) rather
// than a connection that failed or went silent.
func refusedInitialize(err error) bool {
	var rpcErr *RPCError
	if errors.As(err, &rpcErr) {
		return true
	}
	return transportRefused(err)
}

// refuser is implemented by a transport's error that is the server's
// refusal of a request rather than a failed connection (an HTTP 4xx
// without a JSON-RPC body, HTTPError.refusal).
type refuser interface{ refusal() bool }

// transportRefused reports whether err holds a transport's refusal.
func transportRefused(err error) bool {
	var r refuser
	return errors.As(err, &r) && r.refusal()
}

// isLegacyAnswer reports whether err, the answer to a modern request, comes
// from a server of the legacy era: any JSON-RPC error that is not one of the
// modern era's (method not found, invalid request, a server that wants
// initialize first), an UnsupportedProtocolVersion that lists a legacy
// revision (a dual-era server that speaks only legacy revisions with this
// client), or an HTTP 4xx without a JSON-RPC body.
func isLegacyAnswer(err error) bool {
	var la *legacyAnswer
	if errors.As(err, &la) {
		return true
	}
	var rpcErr *RPCError
	if errors.As(err, &rpcErr) {
		switch rpcErr.Code {
		case CodeUnsupportedProtocolVersion:
			// A modern server: fall back only when it also speaks a legacy
			// revision this client knows.
			return slices.ContainsFunc(supportedOf(rpcErr), func(v string) bool { return slices.Contains(supportedVersions, v) })
		case CodeHeaderMismatch, CodeMissingClientCapability:
			return false
		}
		return true
	}
	return transportRefused(err)
}

// legacyAnswer is an answer to server/discover that is neither a
// DiscoverResult nor a recognized modern error: the spec takes it for a
// legacy server's (discover).
type legacyAnswer struct{ err error }

func (e *legacyAnswer) Error() string { return e.err.Error() }
func (e *legacyAnswer) Unwrap() error { return e.err }

// supportedOf returns data.supported of an UnsupportedProtocolVersion error.
func supportedOf(e *RPCError) []string {
	var supported []string
	if jsontext.Decode(e.Data, "data", []jsontext.Field{{Name: "supported", Dst: &supported}}) != nil {
		return nil
	}
	return supported
}

// discover opens the modern era: server/discover tells the server's
// versions, capabilities, identity and instructions.
func (s *Session) discover(ctx context.Context) error {
	s.modern = true
	s.setMeta(ModernVersion, "")
	// The probe is bounded like a handshake: a legacy server may ignore
	// a request before initialize. Within an opening that has a deadline
	// (a reconnect's), it takes at most half of what is left, so that the
	// retry with initialize on a new connection (newSession) has the rest.
	bound := min(s.opts.RequestTimeout, s.opts.DialTimeout)
	if dl, ok := ctx.Deadline(); ok {
		bound = min(bound, time.Until(dl)/2)
	}
	pctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	raw, err := s.request(pctx, methods.Discover, nil)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return printf.Errorf("%s: no answer within %v: %w", methods.Discover, bound.Round(time.Millisecond), ErrTimeout)
		}
		if errors.Is(err, ErrProtocol) && !errors.Is(err, ErrDial) && !errors.Is(err, ErrClosed) {
			// An answer that is not one JSON-RPC response (invalid JSON,
			// both a result and an error, …): not a modern server's.
			return &legacyAnswer{err}
		}
		return err
	}
	res, err := readDiscover(raw)
	if err != nil {
		return err
	}
	s.init.Store(discovered(raw, &res))
	return nil
}

// readDiscover reads and checks the answer to server/discover.
//
// The spec's rule for telling the eras apart (basic/versioning.mdx,
// "Backward Compatibility"; transports/streamable-http.mdx, the same): a
// recognized modern JSON-RPC error, or a DiscoverResult, identifies a
// modern server; "anything else identifies a legacy server". So every
// answer that is neither falls back to initialize alike: a null result, a
// result that is not JSON, a string, wrong member types, no
// supportedVersions. (A modern server whose versions this client does not
// speak is a recognized answer: that one is a hard error, below.)
func readDiscover(raw RawMessage) (discoverResult, error) {
	var res discoverResult
	if err := decodeDiscoverResult(raw, &res); err != nil {
		return res, &legacyAnswer{printf.Errorf("mcplive: server/discover: %w", jsonrpc.ProtocolError("not a DiscoverResult: %v", err))}
	}
	if len(res.SupportedVersions) == 0 {
		// DiscoverResult requires supportedVersions: an empty result is a
		// legacy server answering every method.
		return res, &legacyAnswer{printf.Errorf("mcplive: server/discover: %w", jsonrpc.ProtocolError("answered without supportedVersions: not a 2026-07-28 server"))}
	}
	if !slices.Contains(res.SupportedVersions, ModernVersion) {
		// A modern server of another modern revision: nothing in common
		// (a legacy version in its list would have been offered through
		// UnsupportedProtocolVersion on a legacy request, not here).
		if !slices.ContainsFunc(res.SupportedVersions, func(v string) bool { return slices.Contains(supportedVersions, v) }) {
			return res, printf.Errorf("mcplive: server/discover: %w: the server speaks MCP %s, this client %s and %s",
				ErrProtocol, strings.Join(res.SupportedVersions, ", "), ModernVersion, strings.Join(supportedVersions, ", "))
		}
		// A dual-era server that serves this client only in a legacy
		// revision (go-sdk's stateful Streamable HTTP handler does):
		// treated as its refusal of the modern one, with the same data.
		data, _ := marshalJSON(map[string]any{"supported": res.SupportedVersions, "requested": ModernVersion})
		return res, &RPCError{Code: CodeUnsupportedProtocolVersion, Message: "no modern version in common", Data: data}
	}
	return res, nil
}

// discovered is the session's InitializeResult of a DiscoverResult.
func discovered(raw RawMessage, res *discoverResult) *InitializeResult {
	return &InitializeResult{
		ProtocolVersion: ModernVersion,
		Capabilities:    res.Capabilities,
		ServerInfo:      res.Meta.ServerInfo,
		Instructions:    res.Instructions,
		Raw:             raw,
	}
}

// adopt opens the modern era from a kept DiscoverResult (Options.Prior),
// without asking first: server/discover is optional ("a client is free to
// invoke any RPC inline"), and a client may keep a server's era across
// restarts, "re-probing if the cached assumption later fails"
// (basic/versioning.mdx). Unless the result is still fresh by its ttlMs
// (server/utilities/caching.mdx), server/discover goes out now, beside the
// session's first requests, and confirmPrior tells whether the kept result
// still holds. It reports false for a result it cannot use.
func (s *Session) adopt(p *Prior) bool {
	res, err := readDiscover(p.Discover)
	if err != nil {
		return false
	}
	s.modern = true
	s.setMeta(ModernVersion, "")
	s.init.Store(discovered(p.Discover, &res))
	var ttlMs float64 // read apart: a bad ttlMs only makes the result stale
	_ = jsontext.Decode(p.Discover, "discoverResult", []jsontext.Field{{Name: "ttlMs", Dst: &ttlMs}})
	if now := time.Now(); ttlMs > 0 && !p.Received.After(now) && now.Before(p.Received.Add(time.Duration(ttlMs*float64(time.Millisecond)))) {
		return true
	}
	s.recheck = make(chan error, 1)
	go func() { s.recheck <- s.rediscover(capabilitiesOf(p.Discover)) }()
	return true
}

// errPriorChanged: the server's capabilities are not the kept ones.
var errPriorChanged = errors.New("the server's capabilities changed")

// rediscover asks server/discover of a session opened from a kept result
// whose capabilities were kept: an answer with the same capabilities
// becomes the session's InitializeResult (its serverInfo and instructions
// may be new); any other outcome is the error confirmPrior reports.
func (s *Session) rediscover(kept RawMessage) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.RequestTimeout)
	defer cancel()
	raw, err := s.request(ctx, methods.Discover, nil)
	if err != nil {
		return err
	}
	res, err := readDiscover(raw)
	if err != nil {
		return err
	}
	if !bytes.Equal(capabilitiesOf(raw), kept) {
		return errPriorChanged
	}
	s.init.Store(discovered(raw, &res))
	return nil
}

// confirmPrior waits until the server has answered the server/discover
// that adopt sent (nil at once when it sent none, or was not used). An
// error means the kept result no longer holds: the Client opens the
// session again, probing as without it.
func (s *Session) confirmPrior(ctx context.Context) error {
	if s.recheck == nil {
		return nil
	}
	select {
	case err := <-s.recheck:
		s.recheck = nil
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Modern reports whether the session speaks the modern era (2026-07-28).
func (s *Session) Modern() bool { return s.modern }

// requestMeta is the _meta of every modern request, and the protocol
// version it names (told to the transport: jsonrpc.Outgoing.Version).
type requestMeta struct {
	raw     RawMessage
	version string
}

// setMeta prepares the _meta that every modern request carries.
func (s *Session) setMeta(version, logLevel string) {
	s.meta.Store(&requestMeta{raw: s.opts.modernMeta(version, logLevel), version: version})
}

// withMeta returns params with the modern _meta merged into its own
// (a progress token, say); params unchanged in the legacy era. A list
// page's params are made with the _meta by requestPage.
func (s *Session) withMeta(params any) (any, error) {
	mp := s.meta.Load()
	if !s.modern || mp == nil {
		return params, nil
	}
	// Params that are none or a cursor (as a list page's, see
	// requestPage): no round trip through encoding/json and a map for
	// them, which in wasm cost more than the rest of sending the request.
	switch p := params.(type) {
	case nil:
		return listParams{meta: mp.raw, version: mp.version}, nil
	case cursorParams:
		return listParams{cursor: &p.Cursor, meta: mp.raw, version: mp.version}, nil
	case listenParams:
		p.meta, p.version = mp.raw, mp.version
		return p, nil
	}
	obj := map[string]RawMessage{}
	if params != nil {
		b, err := marshalJSON(params)
		if err != nil {
			return nil, err
		}
		if err := decodeRawMap(b, &obj); err != nil || obj == nil {
			return nil, printf.Errorf("mcplive: params are not a JSON object: %s", jsontext.Snippet(b))
		}
	}
	if own, ok := obj["_meta"]; ok {
		merged := map[string]RawMessage{}
		if err := decodeRawMap(own, &merged); err != nil {
			return nil, printf.Errorf("mcplive: _meta is not a JSON object: %s", jsontext.Snippet(own))
		}
		var ours map[string]RawMessage
		_ = decodeRawMap(mp.raw, &ours)
		for k, v := range ours {
			merged[k] = v
		}
		b, _ := marshalJSON(merged)
		obj["_meta"] = b
	} else {
		obj["_meta"] = mp.raw
	}
	return metaParams{obj: obj, version: mp.version}, nil
}

// metaParams are the params of a modern request other than a list page
// and subscriptions/listen: its own members and the merged _meta, encoded
// as encoding/json encodes the map.
type metaParams struct {
	obj     map[string]RawMessage
	version string
}

func (p metaParams) WriteParams(b *bytes.Buffer) error {
	j, err := marshalJSON(p.obj)
	if err != nil {
		return err
	}
	b.Write(j)
	return nil
}

// describe tells the transport the request's name (params.name, or
// params.uri) and its _meta's version.
func (p metaParams) Describe(m *jsonrpc.Outgoing) {
	m.Version = p.version
	if raw, ok := p.obj["name"]; ok {
		m.Name = jsonString(raw)
	}
	if raw, ok := p.obj["uri"]; ok && m.Name == "" {
		m.Name = jsonString(raw)
	}
}

// checkResult fails a modern result whose resultType is not "complete". A
// result without the field counts as complete (older servers).
func checkResult(method string, raw RawMessage) error {
	rt := topString(raw, "resultType")
	if rt == "" || rt == "complete" {
		return nil
	}
	return printf.Errorf("%s: %w: the server answered with resultType %q, which this client does not support for this call", method, ErrIncompleteResult, rt)
}

// topString returns the string member name of the JSON object res, which
// was validated before its caller saw it; "" when absent or not a string.
func topString(res []byte, name string) string {
	var out string
	jsontext.WalkMembers(res, func(key, val []byte) {
		if len(val) > 0 && val[0] == '"' && jsontext.Unquote(key) == name {
			out = jsontext.Unquote(val)
		}
	})
	return out
}

// quoteAll quotes each version, for error texts.
func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}
