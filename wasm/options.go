//go:build js && wasm

package main

import (
	"errors"
	"time"

	"github.com/hack-pad/safejs"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/printf"
)

// jsOptions is the options object as the JS package sends it (toGoOptions
// in js/src/options.js): flat, in milliseconds, already validated and
// normalised by JS (0 = default).
type jsOptions struct {
	ClientInfo              *mcplive.Implementation
	ProtocolVersion         string
	Headers                 mcplive.Header // Streamable HTTP only; JS sends canonical names
	RequestTimeoutMs        float64
	DialTimeoutMs           float64
	ReadLimit               int64
	MaxPages                int
	HeartbeatIntervalMs     float64 // < 0 disables
	HeartbeatTimeoutMs      float64
	Reconnect               *bool
	ReconnectInitialDelayMs float64
	ReconnectMaxDelayMs     float64
	RevisionHint            string
	Seeds                   []mcplive.Seed
	Prior                   *mcplive.Prior
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// jsReader reads the members of the options object and keeps the first
// error, which names the member. The options are read this way, and the
// clientInfo by mcplive.Implementation's own UnmarshalJSON, rather than
// by encoding/json: its first use would cost a cold start ~50 ms of
// compiling in wasm (see the top of jsonwire.go in the mcplive package).
type jsReader struct {
	o   safejs.Value
	err error
}

// get returns o[name]; undefined and null are absent (ok false).
func (r *jsReader) get(name, want string, typ safejs.Type) (safejs.Value, bool) {
	v, err := r.o.Get(name)
	if err != nil || v.IsUndefined() || v.IsNull() {
		return v, false
	}
	if v.Type() != typ {
		if r.err == nil {
			r.err = printf.Errorf("%s: want %s", name, want)
		}
		return v, false
	}
	return v, true
}

func (r *jsReader) num(name string) float64 {
	v, ok := r.get(name, "a number", safejs.TypeNumber)
	if !ok {
		return 0 // not v.Float(): on undefined it throws, and catching that costs a Go panic
	}
	f, _ := v.Float()
	return f
}

func (r *jsReader) str(name string) string {
	v, ok := r.get(name, "a string", safejs.TypeString)
	if !ok {
		return ""
	}
	s, _ := v.String()
	return s
}

// readOptions reads the options object that connect was given
// (toGoOptions in js/src/options.js).
func readOptions(v safejs.Value) (jsOptions, error) {
	var o jsOptions
	if v.IsUndefined() || v.IsNull() {
		return o, nil
	}
	if v.Type() != safejs.TypeObject {
		return o, errors.New("want an object")
	}
	r := jsReader{o: v}
	if ci := r.str("clientInfo"); ci != "" {
		o.ClientInfo = new(mcplive.Implementation)
		if err := o.ClientInfo.UnmarshalJSON([]byte(ci)); err != nil {
			return o, printf.Errorf("clientInfo: %w", err)
		}
	}
	o.ProtocolVersion = r.str("protocolVersion")
	if h, ok := r.get("headers", "an array of names and values", safejs.TypeObject); ok {
		n, err := h.Length()
		if err != nil || n%2 != 0 {
			return o, errors.New("headers: want an array of names and values")
		}
		o.Headers = mcplive.Header{}
		for i := 0; i < n; i += 2 {
			k, _ := h.Index(i)
			val, _ := h.Index(i + 1)
			ks, err1 := k.String()
			vs, err2 := val.String()
			if k.Type() != safejs.TypeString || val.Type() != safejs.TypeString || err1 != nil || err2 != nil {
				return o, errors.New("headers: want an array of names and values")
			}
			o.Headers[ks] = []string{vs}
		}
	}
	o.RequestTimeoutMs = r.num("requestTimeoutMs")
	o.DialTimeoutMs = r.num("dialTimeoutMs")
	o.ReadLimit = int64(r.num("readLimit"))
	o.MaxPages = int(r.num("maxPages"))
	o.HeartbeatIntervalMs = r.num("heartbeatIntervalMs")
	o.HeartbeatTimeoutMs = r.num("heartbeatTimeoutMs")
	if rc, ok := r.get("reconnect", "a boolean", safejs.TypeBoolean); ok {
		b, _ := rc.Bool()
		o.Reconnect = &b
	}
	o.ReconnectInitialDelayMs = r.num("reconnectInitialDelayMs")
	o.ReconnectMaxDelayMs = r.num("reconnectMaxDelayMs")
	o.RevisionHint = r.str("revisionHint")
	if sv, ok := r.get("seeds", "an array", safejs.TypeObject); ok {
		o.Seeds = readSeeds(sv)
	}
	// The server/discover result the catalog cache kept, as text, and
	// when it was asked for (ms since the epoch).
	if d := r.str("prior"); d != "" {
		o.Prior = &mcplive.Prior{Discover: []byte(d), Received: time.UnixMilli(int64(r.num("priorReceivedAt")))}
	}
	return o, r.err
}

// readSeeds reads the lists the JS catalog cache kept (js/src/cache.js):
// kind, items (a JSON array, as text), ttlMs, receivedAt (ms since the
// epoch), cacheScope, and so on. What does not read is left out: the lists
// are then walked.
func readSeeds(v safejs.Value) []mcplive.Seed {
	n, err := v.Length()
	if err != nil {
		return nil
	}
	var out []mcplive.Seed
	for i := 0; i+4 < n; i += 5 {
		var f [5]safejs.Value
		for j := range f {
			f[j], _ = v.Index(i + j)
		}
		if f[0].Type() != safejs.TypeString || f[1].Type() != safejs.TypeString || f[2].Type() != safejs.TypeNumber ||
			f[3].Type() != safejs.TypeNumber || f[4].Type() != safejs.TypeString {
			continue
		}
		kind, err1 := f[0].String()
		items, err2 := f[1].String()
		ttl, err3 := f[2].Float()
		at, err4 := f[3].Float()
		scope, err5 := f[4].String()
		if errors.Join(err1, err2, err3, err4, err5) != nil {
			continue
		}
		out = append(out, mcplive.Seed{Kind: mcplive.Kind(kind), Items: []byte(items), TTL: ms(ttl), Scope: scope, Received: time.UnixMilli(int64(at))})
	}
	return out
}

func parseOptions(v safejs.Value) (*mcplive.Options, mcplive.Header, error) {
	o, err := readOptions(v)
	if err != nil {
		return nil, nil, err
	}
	opts := &mcplive.Options{
		// JS reads each item's raw JSON (lists.go): decoding it into Go
		// types as well would only cost time and memory.
		RawItems:          true,
		ProtocolVersion:   o.ProtocolVersion,
		RequestTimeout:    ms(o.RequestTimeoutMs),
		DialTimeout:       ms(o.DialTimeoutMs),
		ReadLimit:         o.ReadLimit,
		MaxPages:          o.MaxPages,
		HeartbeatInterval: ms(o.HeartbeatIntervalMs),
		HeartbeatTimeout:  ms(o.HeartbeatTimeoutMs),
		RevisionHint:      o.RevisionHint,
		Seeds:             o.Seeds,
		Prior:             o.Prior,
		Reconnect: mcplive.ReconnectOptions{
			Disabled:     o.Reconnect != nil && !*o.Reconnect,
			InitialDelay: ms(o.ReconnectInitialDelayMs),
			MaxDelay:     ms(o.ReconnectMaxDelayMs),
		},
	}
	if o.HeartbeatIntervalMs < 0 {
		opts.HeartbeatInterval = -1
	}
	if o.ClientInfo != nil {
		opts.ClientInfo = *o.ClientInfo
	}
	return opts, o.Headers, nil
}
