package mcplive

import (
	"errors"
	"strconv"

	"github.com/mcplive/mcplive/internal/wire"

	"github.com/mcplive/mcplive/internal/jsontext"
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

// The wasm binding (package main) writes what it sends to JS with this
// package's writer (internal/wire); it reads with internal/jsontext.
func init() { wire.Marshal = marshalJSON }

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

// decodeRawMap reads a JSON text into *m as encoding/json reads a
// map[string]json.RawMessage: null makes it nil, each value is kept as
// sent (a copy), a repeated key keeps its last value.
func decodeRawMap(b []byte, m *map[string]RawMessage) error {
	if err := jsontext.Check(b); err != nil {
		return err
	}
	v := b[jsontext.SkipWS(b, 0):]
	switch v[0] {
	case 'n':
		*m = nil
		return nil
	case '{':
	default:
		return jsontext.TypeError(v, "map", "map[string]RawMessage")
	}
	if *m == nil {
		*m = map[string]RawMessage{}
	}
	_, err := jsontext.ForEachMember(v, func(key string, val []byte) error {
		(*m)[key] = append(RawMessage(nil), val...)
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
		return jsontext.Unquote(v), nil
	case c == '[':
		var out []any
		err := jsontext.DecodeSlice(v, "", &out, func(e []byte, d *any) error {
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
		_, err := jsontext.ForEachMember(v, func(key string, val []byte) error {
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
		return jsontext.TypeError(v, field, "map[string]interface {}")
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
	return jsontext.DecodeFields(v, "Annotations", []jsontext.Field{
		{Name: "audience", Dst: &a.Audience},
		{Name: "priority", Dst: ptrField(&a.Priority, func(v []byte, d *float64) error { return jsontext.DecodeFloat(v, "Annotations.priority", d) })},
		{Name: "lastModified", Dst: &a.LastModified},
	})
}

func decodeResourceContents(v []byte, r *ResourceContents) error {
	str := func(v []byte, d *string) error {
		return jsontext.DecodeField(v, "ResourceContents", jsontext.Field{Name: "text", Dst: d})
	}
	return jsontext.DecodeFields(v, "ResourceContents", []jsontext.Field{
		{Name: "uri", Dst: &r.URI},
		{Name: "mimeType", Dst: &r.MIMEType},
		{Name: "text", Dst: ptrField(&r.Text, str)},
		{Name: "blob", Dst: ptrField(&r.Blob, str)},
		{Name: "_meta", Dst: &r.Meta},
	})
}

// decodeContent reads a content block as Content.UnmarshalJSON does:
// every value, null included, keeps its bytes in Raw when it decodes.
func decodeContent(v []byte, c *Content) error {
	if err := decodeContentFields(v, c); err != nil {
		return err
	}
	c.Raw = append(RawMessage(nil), v...)
	return nil
}

func decodeContentFields(v []byte, c *Content) error {
	return jsontext.DecodeFields(v, "Content", []jsontext.Field{
		{Name: "type", Dst: &c.Type},
		{Name: "text", Dst: &c.Text},
		{Name: "data", Dst: &c.Data},
		{Name: "mimeType", Dst: &c.MIMEType},
		{Name: "uri", Dst: &c.URI},
		{Name: "name", Dst: &c.Name},
		{Name: "resource", Dst: ptrField(&c.Resource, decodeResourceContents)},
		{Name: "annotations", Dst: ptrField(&c.Annotations, decodeAnnotations)},
		{Name: "_meta", Dst: &c.Meta},
	})
}

// UnmarshalJSON keeps the raw block next to the decoded fields.
func (c *Content) UnmarshalJSON(b []byte) error {
	if err := jsontext.Check(b); err != nil {
		return err
	}
	if err := decodeContentFields(b[jsontext.SkipWS(b, 0):], c); err != nil {
		return err
	}
	c.Raw = append(RawMessage(nil), b...)
	return nil
}

func decodeContents(v []byte, field string, d *[]Content) error {
	return jsontext.DecodeSlice(v, field, d, decodeContent)
}

func decodeCallToolResult(v []byte, r *CallToolResult) error {
	return jsontext.DecodeFields(v, "CallToolResult", []jsontext.Field{
		{Name: "content", Dst: func(v []byte) error { return decodeContents(v, "CallToolResult.content", &r.Content) }},
		{Name: "structuredContent", Dst: &r.StructuredContent},
		{Name: "isError", Dst: &r.IsError},
		{Name: "_meta", Dst: &r.Meta},
	})
}

func decodeGetPromptResult(v []byte, r *GetPromptResult) error {
	return jsontext.DecodeFields(v, "GetPromptResult", []jsontext.Field{
		{Name: "description", Dst: &r.Description},
		{Name: "messages", Dst: func(v []byte) error {
			return jsontext.DecodeSlice(v, "GetPromptResult.messages", &r.Messages, func(v []byte, m *PromptMessage) error {
				return jsontext.DecodeFields(v, "PromptMessage", []jsontext.Field{
					{Name: "role", Dst: &m.Role},
					{Name: "content", Dst: func(v []byte) error { return decodeContent(v, &m.Content) }},
				})
			})
		}},
		{Name: "_meta", Dst: &r.Meta},
	})
}

func decodeReadResourceResult(v []byte, r *ReadResourceResult) error {
	return jsontext.DecodeFields(v, "ReadResourceResult", []jsontext.Field{
		{Name: "contents", Dst: func(v []byte) error {
			return jsontext.DecodeSlice(v, "ReadResourceResult.contents", &r.Contents, decodeResourceContents)
		}},
		{Name: "_meta", Dst: &r.Meta},
	})
}

func decodeCompleteResult(v []byte, r *CompleteResult) error {
	c := &r.Completion
	return jsontext.DecodeFields(v, "CompleteResult", []jsontext.Field{
		{Name: "completion", Dst: func(v []byte) error {
			return jsontext.DecodeFields(v, "CompleteResult.completion", []jsontext.Field{
				{Name: "values", Dst: &c.Values},
				{Name: "total", Dst: ptrField(&c.Total, func(v []byte, d *int) error { return jsontext.DecodeInt(v, "CompleteResult.completion.total", d) })},
				{Name: "hasMore", Dst: &c.HasMore},
			})
		}},
	})
}

// decodeResult reads the result of a call into v, one of the result types
// of this package, as encoding/json would.
func decodeResult(res []byte, v any) error {
	if err := jsontext.Check(res); err != nil {
		return err
	}
	res = res[jsontext.SkipWS(res, 0):]
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
func decodeProgress(params []byte, token *RawMessage, p *Progress) error {
	return jsontext.Decode(params, "params", []jsontext.Field{
		{Name: "progressToken", Dst: token},
		{Name: "progress", Dst: func(v []byte) error { return floatOrNull(v, "progress", &p.Progress) }},
		{Name: "total", Dst: func(v []byte) error { return floatOrNull(v, "total", &p.Total) }},
		{Name: "message", Dst: &p.Message},
	})
}

// floatOrNull is jsontext.DecodeFloat where null leaves *d as it is.
func floatOrNull(v []byte, field string, d *float64) error {
	if v[0] == 'n' {
		return nil
	}
	return jsontext.DecodeFloat(v, field, d)
}

// decodeLogMessage reads the params of notifications/message.
func decodeLogMessage(params []byte, m *LogMessage) error {
	return jsontext.Decode(params, "LogMessage", []jsontext.Field{
		{Name: "level", Dst: &m.Level},
		{Name: "logger", Dst: &m.Logger},
		{Name: "data", Dst: &m.Data},
	})
}

// UnmarshalJSON reads an elicitation's answer as encoding/json reads it
// (by hand: the wasm binding reads the answer an app gives in JS with it,
// and links no decoder of encoding/json).
func (r *ElicitResult) UnmarshalJSON(b []byte) error {
	if err := jsontext.Check(b); err != nil {
		return err
	}
	return jsontext.DecodeFields(b[jsontext.SkipWS(b, 0):], "ElicitResult", []jsontext.Field{
		{Name: "action", Dst: &r.Action},
		{Name: "content", Dst: func(v []byte) error { return decodeAnyMap(v, "ElicitResult.content", &r.Content) }},
	})
}
