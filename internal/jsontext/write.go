package jsontext

// The JSON mcplive writes from Go values, without encoding/json's encoder:
// with its decoder gone too (decode.go), the wasm links nothing of
// encoding/json but its types (json.RawMessage): the encoder's going took
// 221 KB of code and 55 KB of brotli out of the wasm (docs/wasm-size.md).
//
// An Encoder writes what json.Marshal writes (the same bytes) for the
// values mcplive sends: nil, strings, bools, numbers, json.RawMessage
// (compacted and checked, as json.Marshal does), maps with string keys
// (keys sorted), slices of them, the caller's own types that write
// themselves (Encoder.Own), and any json.Marshaler. Anything else goes to
// writeUnknown: json.Marshal in a native build (an app's own struct as a
// tool's arguments), an error in the browser build, where every value
// comes from JS as JSON. mcplive's jsonenc_internal_test.go holds it to
// encoding/json on every kind of value, and FuzzJSONEncMatchesEncodingJSON
// on any.

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/mcplive/mcplive/internal/printf"
)

// An Encoder writes Go values as JSON. Own, when not nil, is asked first
// for a value of a type the Encoder does not know by itself (not a string,
// number, bool, json.RawMessage, map or slice of those): it writes v and
// reports true when v is one of its caller's types, and reports false to
// leave v to json.Marshaler and the fallback.
type Encoder struct {
	Own func(b *bytes.Buffer, v any, esc bool) (bool, error)
}

// Marshal returns v as json.Marshal does.
func (e Encoder) Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := e.Write(&b, v, true); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Write writes v as json.Marshal does (esc true), or as an Encoder with
// SetEscapeHTML(false) does without its newline (esc false). On an error b
// holds part of the value.
func (e Encoder) Write(b *bytes.Buffer, v any, esc bool) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case RawMessage:
		if v == nil {
			b.WriteString("null")
			return nil
		}
		return WriteCompact(b, v, esc)
	case string:
		WriteString(b, v, esc)
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		return WriteFloat(b, v, 64)
	case float32:
		return WriteFloat(b, float64(v), 32)
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
		return writeMap(e, b, v, esc)
	case map[string]RawMessage:
		return writeMap(e, b, v, esc)
	case map[string]string:
		return writeMap(e, b, v, esc)
	case []any:
		return writeSlice(e, b, v, esc)
	case []string:
		return writeSlice(e, b, v, esc)
	default:
		if e.Own != nil {
			if ok, err := e.Own(b, v, esc); ok {
				return err
			}
		}
		return e.writeOther(b, v, esc)
	}
	return nil
}

// writeOther writes a json.Marshaler, and hands anything else to the
// build's fallback (writeUnknown).
func (e Encoder) writeOther(b *bytes.Buffer, v any, esc bool) error {
	switch v := v.(type) {
	case Marshaler:
		if IsNilPointer(v) {
			b.WriteString("null")
			return nil
		}
		raw, err := v.MarshalJSON()
		if err != nil {
			return printf.Errorf("mcplive: encode a %T: %w", v, err)
		}
		return WriteCompact(b, raw, esc)
	default:
		return writeUnknown(b, v, esc)
	}
}

// IsNilPointer reports whether v holds a nil pointer, which json.Marshal
// writes as null without calling its methods.
func IsNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// writeMap writes m as json.Marshal does: null when nil, keys sorted.
func writeMap[V any](e Encoder, b *bytes.Buffer, m map[string]V, esc bool) error {
	if m == nil {
		b.WriteString("null")
		return nil
	}
	b.WriteByte('{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b.WriteByte(',')
		}
		WriteString(b, k, esc)
		b.WriteByte(':')
		if err := e.Write(b, m[k], esc); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// writeSlice writes l as json.Marshal does: null when nil.
func writeSlice[V any](e Encoder, b *bytes.Buffer, l []V, esc bool) error {
	if l == nil {
		b.WriteString("null")
		return nil
	}
	b.WriteByte('[')
	for i, v := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := e.Write(b, v, esc); err != nil {
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

// ErrUnsupportedValue is a number JSON cannot hold (NaN, ±Inf).
var ErrUnsupportedValue = errors.New("mcplive: JSON has no NaN or infinity")

// WriteFloat writes f as encoding/json writes a float of bits bits: as
// JavaScript formats a number (ES6), with exponents from 1e21 and below 1e-6.
func WriteFloat(b *bytes.Buffer, f float64, bits int) error {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return printf.Errorf("%w: %s", ErrUnsupportedValue, strconv.FormatFloat(f, 'g', -1, bits))
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

// WriteString writes s as a JSON string as encoding/json does: \b,
// \f, \n, \r, \t and the other control bytes escaped, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped, and with esc also <, > and &.
func WriteString(b *bytes.Buffer, s string, esc bool) {
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

// WriteCompact writes the JSON text raw as encoding/json writes a
// json.RawMessage (or a MarshalJSON's result): checked, without the spaces
// between tokens, and with esc, <, >, & and U+2028, U+2029 escaped in its
// strings. Text that is not one JSON value is an error, and nothing is
// written.
func WriteCompact(b *bytes.Buffer, raw []byte, esc bool) error {
	if err := Check(raw); err != nil {
		return printf.Errorf("mcplive: encode JSON: %s: %w", Snippet(raw), err)
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

// Snippet returns a short printable excerpt of a message for error texts.
func Snippet(b []byte) string {
	const max = 120
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}
