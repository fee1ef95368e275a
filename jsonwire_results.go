package mcplive

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/mcplive/mcplive/internal/wire"
)

// The results of calls (tools/call, prompts/get, resources/read,
// completion/complete), the params of the notifications a session reads
// (progress, log messages, resource updates, cancellations) and the
// elicitation result an app hands back are read here by hand, as
// encoding/json reads them into the same types (jsonwire.go says why).
// With these, the wasm links no decoder of encoding/json (~180 KB of its
// code; these readers are ~50 KB). jsonwire_results_internal_test.go
// compares each reader with encoding/json, on a table of inputs and in a
// fuzz target.

// The wasm binding (package main) reads the arguments of its operations
// with these readers too, through internal/wire.
func init() {
	wire.Decode = func(raw []byte, typ string, fields ...wire.Field) error {
		wf := make([]wireField, len(fields))
		for i, f := range fields {
			wf[i] = wireField{f.Name, f.Dst}
		}
		return decodeTop(raw, typ, wf)
	}
	wire.Valid = func(b []byte) bool { return checkJSON(b) == nil }
	wire.Marshal = marshalJSON
}

// decodeFloat reads a JSON number into *d as encoding/json reads a
// float64 (field names it in errors).
func decodeFloat(v []byte, field string, d *float64) error {
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		return jsonTypeError(v, field, "float64")
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return errors.New("json: cannot unmarshal number " + string(v) + " into Go struct field " + field + " of type float64")
	}
	*d = f
	return nil
}

// decodeInt reads a JSON number into *d as encoding/json reads an int.
func decodeInt(v []byte, field string, d *int) error {
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		return jsonTypeError(v, field, "int")
	}
	n, err := strconv.ParseInt(string(v), 10, strconv.IntSize)
	if err != nil {
		return errors.New("json: cannot unmarshal number " + string(v) + " into Go struct field " + field + " of type int")
	}
	*d = int(n)
	return nil
}

// ptrField returns the reader of a pointer field: null sets it to nil,
// anything else is read by read into a new value (or into the one a
// repeated member already made), as encoding/json does.
func ptrField[T any](p **T, read func(v []byte, d *T) error) func([]byte) error {
	return func(v []byte) error {
		if v[0] == 'n' {
			*p = nil
			return nil
		}
		if *p == nil {
			*p = new(T)
		}
		return read(v, *p)
	}
}

// decodeStringMap reads a JSON object of strings into *m as encoding/json
// reads a map[string]string: null makes it nil, a member's null value is
// "", a repeated key keeps its last value.
func decodeStringMap(v []byte, field string, m *map[string]string) error {
	switch v[0] {
	case 'n':
		*m = nil
		return nil
	case '{':
	default:
		return jsonTypeError(v, field, "map[string]string")
	}
	if *m == nil {
		*m = map[string]string{}
	}
	var first error
	_, err := forEachMember(v, func(key string, val []byte) error {
		var s string
		if err := decodeField(val, field, wireField{key, &s}); err != nil {
			if first == nil {
				first = err
			}
			return nil
		}
		(*m)[key] = s
		return nil
	})
	if err != nil {
		return err
	}
	return first
}

// decodeRawMap reads a JSON text into *m as encoding/json reads a
// map[string]json.RawMessage: null makes it nil, each value is kept as
// sent (a copy), a repeated key keeps its last value.
func decodeRawMap(b []byte, m *map[string]json.RawMessage) error {
	if err := checkJSON(b); err != nil {
		return err
	}
	v := b[skipWS(b, 0):]
	switch v[0] {
	case 'n':
		*m = nil
		return nil
	case '{':
	default:
		return jsonTypeError(v, "map", "map[string]json.RawMessage")
	}
	if *m == nil {
		*m = map[string]json.RawMessage{}
	}
	_, err := forEachMember(v, func(key string, val []byte) error {
		(*m)[key] = append(json.RawMessage(nil), val...)
		return nil
	})
	return err
}

// decodeAny reads a JSON value as encoding/json reads it into an any:
// nil, bool, float64, string, []any or map[string]any.
func decodeAny(v []byte) (any, error) {
	switch c := v[0]; {
	case c == 'n':
		return nil, nil
	case c == 't' || c == 'f':
		return c == 't', nil
	case c == '"':
		return unquote(v), nil
	case c == '[':
		var out []any
		err := decodeSlice(v, "", &out, func(e []byte, d *any) error {
			x, err := decodeAny(e)
			*d = x
			return err
		})
		if out == nil { // a syntax error
			return nil, err
		}
		return out, err
	case c == '{':
		out := map[string]any{}
		var first error
		_, err := forEachMember(v, func(key string, val []byte) error {
			x, err := decodeAny(val)
			if err != nil && first == nil {
				first = err
			}
			out[key] = x
			return nil
		})
		if err != nil {
			return nil, err
		}
		return out, first
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return nil, errors.New("json: cannot unmarshal number " + string(v) + " into Go value of type float64")
	}
	return f, nil
}

// decodeAnyMap reads a JSON object into *m as encoding/json reads a
// map[string]any: null makes it nil.
func decodeAnyMap(v []byte, field string, m *map[string]any) error {
	switch v[0] {
	case 'n':
		*m = nil
		return nil
	case '{':
	default:
		return jsonTypeError(v, field, "map[string]interface {}")
	}
	x, err := decodeAny(v)
	if mm, ok := x.(map[string]any); ok {
		if *m == nil {
			*m = mm
		} else {
			for k, e := range mm {
				(*m)[k] = e
			}
		}
	}
	return err
}

func decodeAnnotations(v []byte, a *Annotations) error {
	return decodeFields(v, "Annotations", []wireField{
		{"audience", &a.Audience},
		{"priority", ptrField(&a.Priority, func(v []byte, d *float64) error { return decodeFloat(v, "Annotations.priority", d) })},
		{"lastModified", &a.LastModified},
	})
}

func decodeResourceContents(v []byte, r *ResourceContents) error {
	str := func(v []byte, d *string) error { return decodeField(v, "ResourceContents", wireField{"text", d}) }
	return decodeFields(v, "ResourceContents", []wireField{
		{"uri", &r.URI},
		{"mimeType", &r.MIMEType},
		{"text", ptrField(&r.Text, str)},
		{"blob", ptrField(&r.Blob, str)},
		{"_meta", &r.Meta},
	})
}

// decodeContent reads a content block as Content.UnmarshalJSON does:
// every value, null included, keeps its bytes in Raw when it decodes.
func decodeContent(v []byte, c *Content) error {
	if err := decodeContentFields(v, c); err != nil {
		return err
	}
	c.Raw = append(json.RawMessage(nil), v...)
	return nil
}

func decodeContentFields(v []byte, c *Content) error {
	return decodeFields(v, "Content", []wireField{
		{"type", &c.Type},
		{"text", &c.Text},
		{"data", &c.Data},
		{"mimeType", &c.MIMEType},
		{"uri", &c.URI},
		{"name", &c.Name},
		{"resource", ptrField(&c.Resource, decodeResourceContents)},
		{"annotations", ptrField(&c.Annotations, decodeAnnotations)},
		{"_meta", &c.Meta},
	})
}

// UnmarshalJSON keeps the raw block next to the decoded fields.
func (c *Content) UnmarshalJSON(b []byte) error {
	if err := checkJSON(b); err != nil {
		return err
	}
	if err := decodeContentFields(b[skipWS(b, 0):], c); err != nil {
		return err
	}
	c.Raw = append(json.RawMessage(nil), b...)
	return nil
}

func decodeContents(v []byte, field string, d *[]Content) error {
	return decodeSlice(v, field, d, decodeContent)
}

func decodeCallToolResult(v []byte, r *CallToolResult) error {
	return decodeFields(v, "CallToolResult", []wireField{
		{"content", func(v []byte) error { return decodeContents(v, "CallToolResult.content", &r.Content) }},
		{"structuredContent", &r.StructuredContent},
		{"isError", &r.IsError},
		{"_meta", &r.Meta},
	})
}

func decodeGetPromptResult(v []byte, r *GetPromptResult) error {
	return decodeFields(v, "GetPromptResult", []wireField{
		{"description", &r.Description},
		{"messages", func(v []byte) error {
			return decodeSlice(v, "GetPromptResult.messages", &r.Messages, func(v []byte, m *PromptMessage) error {
				return decodeFields(v, "PromptMessage", []wireField{
					{"role", &m.Role},
					{"content", func(v []byte) error { return decodeContent(v, &m.Content) }},
				})
			})
		}},
		{"_meta", &r.Meta},
	})
}

func decodeReadResourceResult(v []byte, r *ReadResourceResult) error {
	return decodeFields(v, "ReadResourceResult", []wireField{
		{"contents", func(v []byte) error {
			return decodeSlice(v, "ReadResourceResult.contents", &r.Contents, decodeResourceContents)
		}},
		{"_meta", &r.Meta},
	})
}

func decodeCompleteResult(v []byte, r *CompleteResult) error {
	c := &r.Completion
	return decodeFields(v, "CompleteResult", []wireField{
		{"completion", func(v []byte) error {
			return decodeFields(v, "CompleteResult.completion", []wireField{
				{"values", &c.Values},
				{"total", ptrField(&c.Total, func(v []byte, d *int) error { return decodeInt(v, "CompleteResult.completion.total", d) })},
				{"hasMore", &c.HasMore},
			})
		}},
	})
}

// decodeResult reads the result of a call into v, one of the result types
// of this package, as encoding/json would.
func decodeResult(res []byte, v any) error {
	if err := checkJSON(res); err != nil {
		return err
	}
	res = res[skipWS(res, 0):]
	switch r := v.(type) {
	case *CallToolResult:
		return decodeCallToolResult(res, r)
	case *GetPromptResult:
		return decodeGetPromptResult(res, r)
	case *ReadResourceResult:
		return decodeReadResourceResult(res, r)
	case *CompleteResult:
		return decodeCompleteResult(res, r)
	}
	return errors.New("mcplive: no reader for the result type")
}

// decodeProgress reads the params of notifications/progress.
func decodeProgress(params []byte, token *json.RawMessage, p *Progress) error {
	return decodeTop(params, "params", []wireField{
		{"progressToken", token},
		{"progress", func(v []byte) error { return floatOrNull(v, "progress", &p.Progress) }},
		{"total", func(v []byte) error { return floatOrNull(v, "total", &p.Total) }},
		{"message", &p.Message},
	})
}

// floatOrNull is decodeFloat where null leaves *d as it is.
func floatOrNull(v []byte, field string, d *float64) error {
	if v[0] == 'n' {
		return nil
	}
	return decodeFloat(v, field, d)
}

// decodeLogMessage reads the params of notifications/message.
func decodeLogMessage(params []byte, m *LogMessage) error {
	return decodeTop(params, "LogMessage", []wireField{
		{"level", &m.Level},
		{"logger", &m.Logger},
		{"data", &m.Data},
	})
}

// UnmarshalJSON reads an elicitation's answer as encoding/json reads it
// (by hand: the wasm binding reads the answer an app gives in JS with it,
// and links no decoder of encoding/json).
func (r *ElicitResult) UnmarshalJSON(b []byte) error {
	if err := checkJSON(b); err != nil {
		return err
	}
	return decodeFields(b[skipWS(b, 0):], "ElicitResult", []wireField{
		{"action", &r.Action},
		{"content", func(v []byte) error { return decodeAnyMap(v, "ElicitResult.content", &r.Content) }},
	})
}
