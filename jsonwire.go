package mcplive

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
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

// jsonTypeError is a value of the wrong JSON type for where it is, as
// encoding/json's UnmarshalTypeError says it.
func jsonTypeError(val []byte, field, want string) error {
	kind := "number"
	switch val[0] {
	case '{':
		kind = "object"
	case '[':
		kind = "array"
	case '"':
		kind = "string"
	case 't', 'f':
		kind = "bool"
	}
	return errors.New("json: cannot unmarshal " + kind + " into Go struct field " + field + " of type " + want)
}

// fieldIs reports whether a member's key names a field: as encoding/json
// matches them, the exact name or any other case of it.
func fieldIs(key, name string) bool { return key == name || strings.EqualFold(key, name) }

// wireField is a member a reader takes: its name, and where its value
// goes: *string, *bool, *int, *int64, *float64, *json.RawMessage (kept
// as sent, null too), *[]string, *map[string]string, or a func that reads
// the value itself.
type wireField struct {
	name string
	dst  any
}

// decodeFields reads the object val (a valid JSON value) into fields, as
// encoding/json reads it into a struct (typ names it in errors): null
// leaves everything as it is, anything else but an object is a type
// error, members without a field are skipped, and a repeated member is
// read again over the first. A value of the wrong type is an error, and
// the members after it are still read.
func decodeFields(val []byte, typ string, fields []wireField) error {
	if val[0] == 'n' {
		return nil
	}
	if val[0] != '{' {
		return jsonTypeError(val, typ, typ)
	}
	var first error
	_, err := forEachMember(val, func(key string, v []byte) error {
		for _, f := range fields {
			if fieldIs(key, f.name) {
				if err := decodeField(v, typ, f); err != nil && first == nil {
					first = err
				}
				break
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return first
}

func decodeField(v []byte, typ string, f wireField) error {
	if d, ok := f.dst.(func([]byte) error); ok {
		return d(v)
	}
	if d, ok := f.dst.(*json.RawMessage); ok {
		*d = append((*d)[:0], v...)
		return nil
	}
	if v[0] == 'n' {
		switch d := f.dst.(type) {
		case *[]string:
			*d = nil
		case *map[string]string:
			*d = nil
		}
		return nil
	}
	want := "string"
	switch d := f.dst.(type) {
	case *string:
		if v[0] == '"' {
			*d = unquote(v)
			return nil
		}
	case *bool:
		want = "bool"
		if v[0] == 't' || v[0] == 'f' {
			*d = v[0] == 't'
			return nil
		}
	case *int64:
		want = "int64"
		if c := v[0]; c == '-' || c >= '0' && c <= '9' {
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				return errors.New("json: cannot unmarshal number " + string(v) + " into Go struct field " + typ + "." + f.name + " of type int64")
			}
			*d = n
			return nil
		}
	case *int:
		return decodeInt(v, typ+"."+f.name, d)
	case *float64:
		return decodeFloat(v, typ+"."+f.name, d)
	case *[]string:
		return decodeSlice(v, typ+"."+f.name, d, func(e []byte, s *string) error {
			return decodeField(e, typ, wireField{f.name, s})
		})
	case *map[string]string:
		return decodeStringMap(v, typ+"."+f.name, d)
	}
	return jsonTypeError(v, typ+"."+f.name, want)
}

// decodeSlice reads the array val into *dst as encoding/json does: null
// makes it nil, [] an empty slice, and the elements are decoded into the
// slice's own array where it has room (a repeated member reuses it).
func decodeSlice[T any](val []byte, field string, dst *[]T, elem func(v []byte, dst *T) error) error {
	switch val[0] {
	case 'n':
		*dst = nil
		return nil
	case '[':
	default:
		return jsonTypeError(val, field, "slice")
	}
	s := (*dst)[:0]
	var first error
	if _, err := scanArray(val, 0, 1, func(v []byte) {
		if len(s) < cap(s) {
			s = s[:len(s)+1]
		} else {
			var zero T
			s = append(s, zero)
		}
		if err := elem(v, &s[len(s)-1]); err != nil && first == nil {
			first = err
		}
	}); err != nil {
		return err
	}
	if s == nil {
		s = []T{}
	}
	*dst = s
	return first
}

// decodeRPCError reads a JSON-RPC error object into e.
func decodeRPCError(val []byte, e *RPCError) error {
	return decodeFields(val, "RPCError", []wireField{{"code", &e.Code}, {"message", &e.Message}, {"data", &e.Data}})
}

// UnmarshalJSON decodes im as encoding/json decodes the struct (the same
// value, the same errors), without reflection.
func (im *Implementation) UnmarshalJSON(b []byte) error {
	if err := checkJSON(b); err != nil {
		return err
	}
	return decodeImplementation(b[skipWS(b, 0):], im)
}

//go:noinline
func decodeImplementation(val []byte, im *Implementation) error {
	return decodeFields(val, "Implementation", []wireField{
		{"name", &im.Name}, {"title", &im.Title}, {"version", &im.Version},
		{"description", &im.Description}, {"websiteUrl", &im.WebsiteURL},
		{"icons", func(v []byte) error {
			return decodeSlice(v, "Implementation.icons", &im.Icons, func(v []byte, ic *Icon) error {
				return decodeFields(v, "Icon", []wireField{{"src", &ic.Src}, {"mimeType", &ic.MIMEType}, {"sizes", &ic.Sizes}, {"theme", &ic.Theme}})
			})
		}},
	})
}

// decodeCapability reads a capability object into **dst as encoding/json
// reads it into a pointer: null makes it nil; an object fills it, made
// when nil. fields(c) are the fields of *c.
func decodeCapability[T any](val []byte, typ string, dst **T, fields func(c *T) []wireField) error {
	switch val[0] {
	case 'n':
		*dst = nil
		return nil
	case '{':
	default:
		return jsonTypeError(val, typ, typ)
	}
	if *dst == nil {
		*dst = new(T)
	}
	return decodeFields(val, typ, fields(*dst))
}

//go:noinline
func decodeServerCapabilities(val []byte, c *ServerCapabilities) error {
	listFields := func(l *ListCapability) []wireField { return []wireField{{"listChanged", &l.ListChanged}} }
	return decodeFields(val, "ServerCapabilities", []wireField{
		{"tools", func(v []byte) error { return decodeCapability(v, "ListCapability", &c.Tools, listFields) }},
		{"prompts", func(v []byte) error { return decodeCapability(v, "ListCapability", &c.Prompts, listFields) }},
		{"resources", func(v []byte) error {
			return decodeCapability(v, "ResourceCapability", &c.Resources, func(r *ResourceCapability) []wireField {
				return []wireField{{"listChanged", &r.ListChanged}, {"subscribe", &r.Subscribe}}
			})
		}},
		{"logging", &c.Logging}, {"completions", &c.Completions}, {"tasks", &c.Tasks}, {"experimental", &c.Experimental},
	})
}

// decodeTop reads raw (any bytes) as json.Unmarshal(raw, v) reads it into
// a struct: an error unless it is exactly one valid JSON value.
func decodeTop(raw []byte, typ string, fields []wireField) error {
	i := skipWS(raw, 0)
	if i < len(raw) && raw[i] == '{' {
		// forEachMember validates the object, and that nothing follows it.
		return decodeFields(raw[i:], typ, fields)
	}
	if err := checkJSON(raw); err != nil {
		return err
	}
	return decodeFields(raw[i:], typ, fields)
}

// decodeInitializeResult reads an initialize result (Raw is left alone),
// as json.Unmarshal(raw, r) would.
func decodeInitializeResult(raw []byte, r *InitializeResult) error {
	return decodeTop(raw, "InitializeResult", []wireField{
		{"protocolVersion", &r.ProtocolVersion},
		{"capabilities", func(v []byte) error { return decodeServerCapabilities(v, &r.Capabilities) }},
		{"serverInfo", func(v []byte) error { return decodeImplementation(v, &r.ServerInfo) }},
		{"instructions", &r.Instructions},
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
	return decodeTop(raw, "discoverResult", []wireField{
		{"supportedVersions", &r.SupportedVersions},
		{"capabilities", func(v []byte) error { return decodeServerCapabilities(v, &r.Capabilities) }},
		{"instructions", &r.Instructions},
		{"_meta", func(v []byte) error {
			return decodeFields(v, "discoverResult._meta", []wireField{
				{"io.modelcontextprotocol/serverInfo", func(v []byte) error { return decodeImplementation(v, &r.Meta.ServerInfo) }},
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

// encodedParams are a request's params already encoded; marshalMessage
// writes them as they are.
type encodedParams []byte

// MarshalJSON is for any code that encodes the params otherwise (see
// listParams.MarshalJSON).
func (p encodedParams) MarshalJSON() ([]byte, error) { return p, nil }

func (p encodedParams) writeParams(b *bytes.Buffer) error {
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
