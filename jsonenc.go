package mcplive

// The JSON this package writes from Go values: internal/jsontext's writer
// (write.go there says why not encoding/json's), with the package's own
// types that write themselves (jsonWriter). jsonenc_internal_test.go holds
// it to encoding/json on every kind of value, and
// FuzzJSONEncMatchesEncodingJSON on any.

import (
	"bytes"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
)

// jsonWriter is a type of this package that writes its own JSON, the bytes
// json.Marshal writes for it (esc false: as an Encoder with
// SetEscapeHTML(false) writes them).
type jsonWriter interface {
	writeJSON(b *bytes.Buffer, esc bool) error
}

// jsonEnc is internal/jsontext's writer with this package's own types
// (jsonWriter) added.
var jsonEnc = jsontext.Encoder{Own: func(b *bytes.Buffer, v any, esc bool) (bool, error) {
	var w jsonWriter
	switch v := v.(type) {
	case jsonWriter:
		w = v
	case *RPCError, *jsonrpc.Message: // jsonrpc's: they write themselves there
		if jsontext.IsNilPointer(v) {
			b.WriteString("null")
			return true, nil
		}
		if e, ok := v.(*RPCError); ok {
			return true, jsonrpc.WriteError(b, e, esc)
		}
		return true, jsonrpc.WriteMessage(b, v.(*jsonrpc.Message), esc)
	default:
		return false, nil
	}
	if jsontext.IsNilPointer(v) {
		b.WriteString("null")
		return true, nil
	}
	return true, w.writeJSON(b, esc)
}}

// marshalJSON returns v as json.Marshal does.
func marshalJSON(v any) ([]byte, error) { return jsonEnc.Marshal(v) }

// writeJSON writes v as json.Marshal does (esc true), or as an Encoder with
// SetEscapeHTML(false) does without its newline (esc false).
func writeJSON(b *bytes.Buffer, v any, esc bool) error { return jsonEnc.Write(b, v, esc) }

// writeJSONString writes s as a JSON string as json.Marshal does.
func writeJSONString(b *bytes.Buffer, s string) { jsontext.WriteString(b, s, true) }

// The package's types that it sends, written as json.Marshal writes their
// fields (in order; omitempty as encoding/json reads it).

func (r *ElicitResult) writeJSON(b *bytes.Buffer, esc bool) error {
	b.WriteString(`{"action":`)
	jsontext.WriteString(b, r.Action, esc)
	if len(r.Content) > 0 {
		b.WriteString(`,"content":`)
		if err := writeJSON(b, r.Content, esc); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func (p CompleteParams) writeJSON(b *bytes.Buffer, esc bool) error {
	b.WriteString(`{"ref":{"type":`)
	jsontext.WriteString(b, p.Ref.Type, esc)
	if p.Ref.Name != "" {
		b.WriteString(`,"name":`)
		jsontext.WriteString(b, p.Ref.Name, esc)
	}
	if p.Ref.URI != "" {
		b.WriteString(`,"uri":`)
		jsontext.WriteString(b, p.Ref.URI, esc)
	}
	b.WriteString(`},"argument":{"name":`)
	jsontext.WriteString(b, p.Argument.Name, esc)
	b.WriteString(`,"value":`)
	jsontext.WriteString(b, p.Argument.Value, esc)
	b.WriteByte('}')
	if p.Context != nil {
		b.WriteString(`,"context":{`)
		if len(p.Context.Arguments) > 0 {
			b.WriteString(`"arguments":`)
			if err := writeJSON(b, p.Context.Arguments, esc); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return nil
}

func (p Progress) writeJSON(b *bytes.Buffer, esc bool) error {
	b.WriteString(`{"progress":`)
	if err := jsontext.WriteFloat(b, p.Progress, 64); err != nil {
		return err
	}
	if p.Total != 0 {
		b.WriteString(`,"total":`)
		if err := jsontext.WriteFloat(b, p.Total, 64); err != nil {
			return err
		}
	}
	if p.Message != "" {
		b.WriteString(`,"message":`)
		jsontext.WriteString(b, p.Message, esc)
	}
	b.WriteByte('}')
	return nil
}

func (m LogMessage) writeJSON(b *bytes.Buffer, esc bool) error {
	b.WriteString(`{"level":`)
	jsontext.WriteString(b, m.Level, esc)
	if m.Logger != "" {
		b.WriteString(`,"logger":`)
		jsontext.WriteString(b, m.Logger, esc)
	}
	b.WriteString(`,"data":`)
	if err := writeJSON(b, m.Data, esc); err != nil {
		return err
	}
	b.WriteByte('}')
	return nil
}
