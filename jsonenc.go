package mcplive

// The JSON this package writes from Go values, without encoding/json's
// encoder: jsonwire.go and jsonwire_results.go read without its decoder, and
// with both gone the wasm links nothing of encoding/json but its types
// (json.RawMessage): the encoder's going took 221 KB of code and 55 KB of
// brotli out of the wasm (docs/wasm-size.md).
//
// writeJSON writes what json.Marshal writes (the same bytes) for the values
// this package sends: nil, strings, bools, numbers, json.RawMessage (compacted
// and checked, as json.Marshal does), maps with string keys (keys sorted),
// slices of them, the package's own types that write themselves
// (jsonWriter), and any json.Marshaler. Anything else goes to writeJSONOther:
// json.Marshal in a native build (an app's own struct as a tool's arguments),
// an error in the browser build, where every value comes from JS as JSON.
// jsonenc_internal_test.go holds it to encoding/json on every kind of value,
// and FuzzJSONEncMatchesEncodingJSON on any.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
)

// jsonWriter is a type of this package that writes its own JSON, the bytes
// json.Marshal writes for it (esc false: as an Encoder with
// SetEscapeHTML(false) writes them).
type jsonWriter interface {
	writeJSON(b *bytes.Buffer, esc bool) error
}

// marshalJSON returns v as json.Marshal does.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v, true); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeJSON writes v as json.Marshal does (esc true), or as an Encoder with
// SetEscapeHTML(false) does without its newline (esc false). On an error b
// holds part of the value.
func writeJSON(b *bytes.Buffer, v any, esc bool) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case json.RawMessage:
		if v == nil {
			b.WriteString("null")
			return nil
		}
		return writeCompact(b, v, esc)
	case string:
		writeJSONStringEsc(b, v, esc)
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		return writeFloat(b, v, 64)
	case float32:
		return writeFloat(b, float64(v), 32)
	case int:
		b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(v), 10))
	case int64:
		b.Write(strconv.AppendInt(b.AvailableBuffer(), v, 10))
	case int32:
		b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(v), 10))
	case uint64:
		b.Write(strconv.AppendUint(b.AvailableBuffer(), v, 10))
	case uint32:
		b.Write(strconv.AppendUint(b.AvailableBuffer(), uint64(v), 10))
	case uint:
		b.Write(strconv.AppendUint(b.AvailableBuffer(), uint64(v), 10))
	case map[string]any:
		return writeMap(b, v, esc)
	case map[string]json.RawMessage:
		return writeMap(b, v, esc)
	case map[string]string:
		return writeMap(b, v, esc)
	case []any:
		return writeSlice(b, v, esc)
	case []string:
		return writeSlice(b, v, esc)
	case jsonWriter:
		if isNilPointer(v) {
			b.WriteString("null")
			return nil
		}
		return v.writeJSON(b, esc)
	case json.Marshaler:
		if isNilPointer(v) {
			b.WriteString("null")
			return nil
		}
		raw, err := v.MarshalJSON()
		if err != nil {
			return fmt.Errorf("mcplive: encode a %T: %w", v, err)
		}
		return writeCompact(b, raw, esc)
	default:
		return writeJSONOther(b, v, esc)
	}
	return nil
}

// isNilPointer reports whether v holds a nil pointer, which json.Marshal
// writes as null without calling its methods.
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// writeMap writes m as json.Marshal does: null when nil, keys sorted.
func writeMap[V any](b *bytes.Buffer, m map[string]V, esc bool) error {
	if m == nil {
		b.WriteString("null")
		return nil
	}
	b.WriteByte('{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONStringEsc(b, k, esc)
		b.WriteByte(':')
		if err := writeJSON(b, m[k], esc); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// writeSlice writes l as json.Marshal does: null when nil.
func writeSlice[V any](b *bytes.Buffer, l []V, esc bool) error {
	if l == nil {
		b.WriteString("null")
		return nil
	}
	b.WriteByte('[')
	for i, e := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeJSON(b, e, esc); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// errUnsupportedValue is a number JSON cannot hold (NaN, ±Inf).
var errUnsupportedValue = errors.New("mcplive: JSON has no NaN or infinity")

// writeFloat writes f as encoding/json writes a float of bits bits: as
// JavaScript formats a number (ES6), with exponents from 1e21 and below 1e-6.
func writeFloat(b *bytes.Buffer, f float64, bits int) error {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Errorf("%w: %s", errUnsupportedValue, strconv.FormatFloat(f, 'g', -1, bits))
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	s := strconv.AppendFloat(b.AvailableBuffer(), f, format, -1, bits)
	if format == 'e' {
		// e-09 → e-9
		if n := len(s); n >= 4 && s[n-4] == 'e' && s[n-3] == '-' && s[n-2] == '0' {
			s[n-2] = s[n-1]
			s = s[:n-1]
		}
	}
	b.Write(s)
	return nil
}

const hexDigits = "0123456789abcdef"

// writeJSONStringEsc writes s as a JSON string as encoding/json does: \b,
// \f, \n, \r, \t and the other control bytes escaped, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped, and with esc also <, > and &.
func writeJSONStringEsc(b *bytes.Buffer, s string, esc bool) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!esc || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '\\', '"':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(s[start:i])
			b.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b.WriteString(s[start:i])
			b.WriteString(`\u202`)
			b.WriteByte(hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// writeCompact writes the JSON text raw as encoding/json writes a
// json.RawMessage (or a MarshalJSON's result): checked, without the spaces
// between tokens, and with esc, <, >, & and U+2028, U+2029 escaped in its
// strings. Text that is not one JSON value is an error, and nothing is
// written.
func writeCompact(b *bytes.Buffer, raw []byte, esc bool) error {
	if err := checkJSON(raw); err != nil {
		return fmt.Errorf("mcplive: encode JSON: %s: %w", snippet(raw), err)
	}
	start, inString := 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch {
			case c == '\\':
				i++ // the escaped byte: never one of those below
			case c == '"':
				inString = false
			case esc && (c == '<' || c == '>' || c == '&'):
				b.Write(raw[start:i])
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xF])
				start = i + 1
			case esc && c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
				b.Write(raw[start:i])
				b.WriteString(`\u202`)
				b.WriteByte(hexDigits[raw[i+2]&0xF])
				start = i + 3
				i += 2
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ' ', '\t', '\n', '\r':
			b.Write(raw[start:i])
			start = i + 1
		}
	}
	b.Write(raw[start:])
	return nil
}

// The package's types that it sends, written as json.Marshal writes their
// fields (in order; omitempty as encoding/json reads it).

func (m *wireMessage) writeJSON(b *bytes.Buffer, esc bool) error {
	b.WriteString(`{"jsonrpc":`)
	writeJSONStringEsc(b, m.JSONRPC, esc)
	if err := writeRawField(b, `,"id":`, m.ID, esc); err != nil {
		return err
	}
	if m.Method != "" {
		b.WriteString(`,"method":`)
		writeJSONStringEsc(b, m.Method, esc)
	}
	if err := writeRawField(b, `,"params":`, m.Params, esc); err != nil {
		return err
	}
	if err := writeRawField(b, `,"result":`, m.Result, esc); err != nil {
		return err
	}
	if m.Error != nil {
		b.WriteString(`,"error":`)
		if err := m.Error.writeJSON(b, esc); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// writeRawField writes an omitempty json.RawMessage field: name (with its
// comma and colon) and raw, or nothing when raw is empty.
func writeRawField(b *bytes.Buffer, name string, raw json.RawMessage, esc bool) error {
	if len(raw) == 0 {
		return nil
	}
	b.WriteString(name)
	return writeCompact(b, raw, esc)
}

func (e *RPCError) writeJSON(b *bytes.Buffer, esc bool) error {
	b.WriteString(`{"code":`)
	b.Write(strconv.AppendInt(b.AvailableBuffer(), e.Code, 10))
	b.WriteString(`,"message":`)
	writeJSONStringEsc(b, e.Message, esc)
	if err := writeRawField(b, `,"data":`, e.Data, esc); err != nil {
		return err
	}
	b.WriteByte('}')
	return nil
}

func (r *ElicitResult) writeJSON(b *bytes.Buffer, esc bool) error {
	b.WriteString(`{"action":`)
	writeJSONStringEsc(b, r.Action, esc)
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
	writeJSONStringEsc(b, p.Ref.Type, esc)
	if p.Ref.Name != "" {
		b.WriteString(`,"name":`)
		writeJSONStringEsc(b, p.Ref.Name, esc)
	}
	if p.Ref.URI != "" {
		b.WriteString(`,"uri":`)
		writeJSONStringEsc(b, p.Ref.URI, esc)
	}
	b.WriteString(`},"argument":{"name":`)
	writeJSONStringEsc(b, p.Argument.Name, esc)
	b.WriteString(`,"value":`)
	writeJSONStringEsc(b, p.Argument.Value, esc)
	b.WriteByte('}')
	if p.Context != nil {
		b.WriteString(`,"context":{`)
		if len(p.Context.Arguments) > 0 {
			b.WriteString(`"arguments":`)
			if err := writeMap(b, p.Context.Arguments, esc); err != nil {
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
	if err := writeFloat(b, p.Progress, 64); err != nil {
		return err
	}
	if p.Total != 0 {
		b.WriteString(`,"total":`)
		if err := writeFloat(b, p.Total, 64); err != nil {
			return err
		}
	}
	if p.Message != "" {
		b.WriteString(`,"message":`)
		writeJSONStringEsc(b, p.Message, esc)
	}
	b.WriteByte('}')
	return nil
}

func (m LogMessage) writeJSON(b *bytes.Buffer, esc bool) error {
	b.WriteString(`{"level":`)
	writeJSONStringEsc(b, m.Level, esc)
	if m.Logger != "" {
		b.WriteString(`,"logger":`)
		writeJSONStringEsc(b, m.Logger, esc)
	}
	b.WriteString(`,"data":`)
	if err := writeJSON(b, m.Data, esc); err != nil {
		return err
	}
	b.WriteByte('}')
	return nil
}
