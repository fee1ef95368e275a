package mcplive

import (
	"bytes"

	"github.com/mcplive/mcplive/internal/jsontext"
)

// The messages of a session's opening — the initialize or server/discover
// result, a JSON-RPC error, the _meta and initialize params this client
// sends — are read and written here by hand, as encoding/json would: the
// same values from the same bytes, the same bytes from the same values.
// In wasm every function runs compiled lazily on its first call, and the
// first use of encoding/json's reflection compiles some 150 of them
// (~250 KB of code, ~50 ms of a cold start in Chromium); these readers
// reuse the scanner that every message goes through anyway. The fuzz
// tests (jsonwire_internal_test.go) compare them with encoding/json.

// UnmarshalJSON decodes im as encoding/json decodes the struct (the same
// value, the same errors), without reflection.
func (im *Implementation) UnmarshalJSON(b []byte) error {
	if err := jsontext.Check(b); err != nil {
		return err
	}
	return decodeImplementation(b[jsontext.SkipWS(b, 0):], im)
}

//go:noinline
func decodeImplementation(val []byte, im *Implementation) error {
	return jsontext.DecodeFields(val, "Implementation", []jsontext.Field{
		{Name: "name", Dst: &im.Name}, {Name: "title", Dst: &im.Title}, {Name: "version", Dst: &im.Version},
		{Name: "description", Dst: &im.Description}, {Name: "websiteUrl", Dst: &im.WebsiteURL},
		{Name: "icons", Dst: func(v []byte) error {
			return jsontext.DecodeSlice(v, "Implementation.icons", &im.Icons, func(v []byte, ic *Icon) error {
				return jsontext.DecodeFields(v, "Icon", []jsontext.Field{{Name: "src", Dst: &ic.Src}, {Name: "mimeType", Dst: &ic.MIMEType}, {Name: "sizes", Dst: &ic.Sizes}, {Name: "theme", Dst: &ic.Theme}})
			})
		}},
	})
}

// decodeCapability reads a capability object into **dst as encoding/json
// reads it into a pointer: null makes it nil; an object fills it, made
// when nil. fields(c) are the fields of *c.
func decodeCapability[T any](val []byte, typ string, dst **T, fields func(c *T) []jsontext.Field) error {
	switch val[0] {
	case 'n':
		*dst = nil
		return nil
	case '{':
	default:
		return jsontext.TypeError(val, typ, typ)
	}
	if *dst == nil {
		*dst = new(T)
	}
	return jsontext.DecodeFields(val, typ, fields(*dst))
}

//go:noinline
func decodeServerCapabilities(val []byte, c *ServerCapabilities) error {
	listFields := func(l *ListCapability) []jsontext.Field {
		return []jsontext.Field{{Name: "listChanged", Dst: &l.ListChanged}}
	}
	return jsontext.DecodeFields(val, "ServerCapabilities", []jsontext.Field{
		{Name: "tools", Dst: func(v []byte) error { return decodeCapability(v, "ListCapability", &c.Tools, listFields) }},
		{Name: "prompts", Dst: func(v []byte) error { return decodeCapability(v, "ListCapability", &c.Prompts, listFields) }},
		{Name: "resources", Dst: func(v []byte) error {
			return decodeCapability(v, "ResourceCapability", &c.Resources, func(r *ResourceCapability) []jsontext.Field {
				return []jsontext.Field{{Name: "listChanged", Dst: &r.ListChanged}, {Name: "subscribe", Dst: &r.Subscribe}}
			})
		}},
		{Name: "logging", Dst: &c.Logging}, {Name: "completions", Dst: &c.Completions}, {Name: "tasks", Dst: &c.Tasks}, {Name: "experimental", Dst: &c.Experimental},
	})
}

// decodeInitializeResult reads an initialize result (Raw is left alone),
// as json.Unmarshal(raw, r) would.
func decodeInitializeResult(raw []byte, r *InitializeResult) error {
	return jsontext.Decode(raw, "InitializeResult", []jsontext.Field{
		{Name: "protocolVersion", Dst: &r.ProtocolVersion},
		{Name: "capabilities", Dst: func(v []byte) error { return decodeServerCapabilities(v, &r.Capabilities) }},
		{Name: "serverInfo", Dst: func(v []byte) error { return decodeImplementation(v, &r.ServerInfo) }},
		{Name: "instructions", Dst: &r.Instructions},
	})
}

// discoverResult is what the client reads of a server/discover result.
type discoverResult struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions"`
	Meta              struct {
		ServerInfo Implementation `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
}

// decodeDiscoverResult reads a server/discover result as
// json.Unmarshal(raw, r) would.
func decodeDiscoverResult(raw []byte, r *discoverResult) error {
	return jsontext.Decode(raw, "discoverResult", []jsontext.Field{
		{Name: "supportedVersions", Dst: &r.SupportedVersions},
		{Name: "capabilities", Dst: func(v []byte) error { return decodeServerCapabilities(v, &r.Capabilities) }},
		{Name: "instructions", Dst: &r.Instructions},
		{Name: "_meta", Dst: func(v []byte) error {
			return jsontext.DecodeFields(v, "discoverResult._meta", []jsontext.Field{
				{Name: "io.modelcontextprotocol/serverInfo", Dst: func(v []byte) error { return decodeImplementation(v, &r.Meta.ServerInfo) }},
			})
		}},
	})
}

// appendStrings appends a []string as json.Marshal writes a non-empty one.
func appendStrings(b *bytes.Buffer, ss []string) {
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, s)
	}
	b.WriteByte(']')
}

// appendImplementation appends im as json.Marshal writes it.
func appendImplementation(b *bytes.Buffer, im *Implementation) {
	b.WriteString(`{"name":`)
	writeJSONString(b, im.Name)
	if im.Title != "" {
		b.WriteString(`,"title":`)
		writeJSONString(b, im.Title)
	}
	b.WriteString(`,"version":`)
	writeJSONString(b, im.Version)
	if im.Description != "" {
		b.WriteString(`,"description":`)
		writeJSONString(b, im.Description)
	}
	if im.WebsiteURL != "" {
		b.WriteString(`,"websiteUrl":`)
		writeJSONString(b, im.WebsiteURL)
	}
	if len(im.Icons) > 0 {
		b.WriteString(`,"icons":[`)
		for i := range im.Icons {
			ic := &im.Icons[i]
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"src":`)
			writeJSONString(b, ic.Src)
			if ic.MIMEType != "" {
				b.WriteString(`,"mimeType":`)
				writeJSONString(b, ic.MIMEType)
			}
			if len(ic.Sizes) > 0 {
				b.WriteString(`,"sizes":`)
				appendStrings(b, ic.Sizes)
			}
			if ic.Theme != "" {
				b.WriteString(`,"theme":`)
				writeJSONString(b, ic.Theme)
			}
			b.WriteByte('}')
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

// MarshalJSON encodes im as encoding/json encodes the struct (the same
// bytes), without reflection.
func (im Implementation) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	appendImplementation(&b, &im)
	return b.Bytes(), nil
}

// clientCapabilitiesJSON are the capabilities the client declares, in
// initialize or in every modern request's _meta: elicitation (form mode)
// when there is a handler for it, nothing otherwise.
func (o *Options) clientCapabilitiesJSON() string {
	if o.OnElicit == nil {
		return `{}`
	}
	return `{"elicitation":{"form":{}}}`
}

// encodedParams are a request's params already encoded; jsonrpc.MarshalMessage
// writes them as they are.
type encodedParams []byte

// MarshalJSON is for any code that encodes the params otherwise (see
// listParams.MarshalJSON).
func (p encodedParams) MarshalJSON() ([]byte, error) { return p, nil }

func (p encodedParams) WriteParams(b *bytes.Buffer) error {
	b.Write(p)
	return nil
}

// initializeParams encodes the params of initialize as json.Marshal
// writes the map {protocolVersion, capabilities, clientInfo}: keys sorted.
func (o *Options) initializeParams(version string) encodedParams {
	var b bytes.Buffer
	b.WriteString(`{"capabilities":`)
	b.WriteString(o.clientCapabilitiesJSON())
	b.WriteString(`,"clientInfo":`)
	appendImplementation(&b, &o.ClientInfo)
	b.WriteString(`,"protocolVersion":`)
	writeJSONString(&b, version)
	b.WriteByte('}')
	return b.Bytes()
}

// modernMeta encodes the _meta of every modern request as json.Marshal
// writes the map of its members: keys sorted.
func (o *Options) modernMeta(version, logLevel string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"` + metaClientCapabilities + `":`)
	b.WriteString(o.clientCapabilitiesJSON())
	b.WriteString(`,"` + metaClientInfo + `":`)
	appendImplementation(&b, &o.ClientInfo)
	if logLevel != "" {
		b.WriteString(`,"` + metaLogLevel + `":`)
		writeJSONString(&b, logLevel)
	}
	b.WriteString(`,"` + metaProtocolVersion + `":`)
	writeJSONString(&b, version)
	b.WriteByte('}')
	return b.Bytes()
}
