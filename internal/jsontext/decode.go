package jsontext

// Reading JSON objects into Go values as encoding/json reads them into the
// same types (the same values from the same bytes, the same errors), over
// the scanner: mcplive reads the messages of a session's opening, the
// results of calls and the params of notifications with these, and the wasm
// then links no decoder of encoding/json. mcplive's jsonwire tests compare
// them with encoding/json, on tables and in fuzz targets.

import (
	"errors"
	"strconv"
	"strings"
)

// TypeError is a value of the wrong JSON type for where it is, as
// encoding/json's UnmarshalTypeError says it.
func TypeError(val []byte, field, want string) error {
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

// FieldIs reports whether a member's key names a field: as encoding/json
// matches them, the exact name or any other case of it.
func FieldIs(key, name string) bool { return key == name || strings.EqualFold(key, name) }

// Field is a member a reader takes: its name, and where its value
// goes: *string, *bool, *int, *int64, *float64, *json.RawMessage (kept
// as sent, null too), *[]string, *map[string]string, or a func that reads
// the value itself.
type Field struct {
	Name string
	Dst  any
}

// DecodeFields reads the object val (a valid JSON value) into fields, as
// encoding/json reads it into a struct (typ names it in errors): null
// leaves everything as it is, anything else but an object is a type
// error, members without a field are skipped, and a repeated member is
// read again over the first. A value of the wrong type is an error, and
// the members after it are still read.
func DecodeFields(val []byte, typ string, fields []Field) error {
	if val[0] == 'n' {
		return nil
	}
	if val[0] != '{' {
		return TypeError(val, typ, typ)
	}
	var first error
	_, err := ForEachMember(val, func(key string, v []byte) error {
		for _, f := range fields {
			if FieldIs(key, f.Name) {
				if err := DecodeField(v, typ, f); err != nil && first == nil {
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

func DecodeField(v []byte, typ string, f Field) error {
	if d, ok := f.Dst.(func([]byte) error); ok {
		return d(v)
	}
	if d, ok := f.Dst.(*RawMessage); ok {
		*d = append((*d)[:0], v...)
		return nil
	}
	if v[0] == 'n' {
		switch d := f.Dst.(type) {
		case *[]string:
			*d = nil
		case *map[string]string:
			*d = nil
		}
		return nil
	}
	want := "string"
	switch d := f.Dst.(type) {
	case *string:
		if v[0] == '"' {
			*d = Unquote(v)
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
				return errors.New("json: cannot unmarshal number " + string(v) + " into Go struct field " + typ + "." + f.Name + " of type int64")
			}
			*d = n
			return nil
		}
	case *int:
		return DecodeInt(v, typ+"."+f.Name, d)
	case *float64:
		return DecodeFloat(v, typ+"."+f.Name, d)
	case *[]string:
		return DecodeSlice(v, typ+"."+f.Name, d, func(e []byte, s *string) error {
			return DecodeField(e, typ, Field{f.Name, s})
		})
	case *map[string]string:
		return DecodeStringMap(v, typ+"."+f.Name, d)
	}
	return TypeError(v, typ+"."+f.Name, want)
}

// DecodeSlice reads the array val into *dst as encoding/json does: null
// makes it nil, [] an empty slice, and the elements are decoded into the
// slice's own array where it has room (a repeated member reuses it).
func DecodeSlice[T any](val []byte, field string, dst *[]T, elem func(v []byte, dst *T) error) error {
	switch val[0] {
	case 'n':
		*dst = nil
		return nil
	case '[':
	default:
		return TypeError(val, field, "slice")
	}
	s := (*dst)[:0]
	var first error
	if _, err := ScanArray(val, 0, 1, func(v []byte) {
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

// DecodeFloat reads a JSON number into *d as encoding/json reads a
// float64 (field names it in errors).
func DecodeFloat(v []byte, field string, d *float64) error {
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		return TypeError(v, field, "float64")
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return errors.New("json: cannot unmarshal number " + string(v) + " into Go struct field " + field + " of type float64")
	}
	*d = f
	return nil
}

// DecodeInt reads a JSON number into *d as encoding/json reads an int.
func DecodeInt(v []byte, field string, d *int) error {
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		return TypeError(v, field, "int")
	}
	n, err := strconv.ParseInt(string(v), 10, strconv.IntSize)
	if err != nil {
		return errors.New("json: cannot unmarshal number " + string(v) + " into Go struct field " + field + " of type int")
	}
	*d = int(n)
	return nil
}

// DecodeStringMap reads a JSON object of strings into *m as encoding/json
// reads a map[string]string: null makes it nil, a member's null value is
// "", a repeated key keeps its last value.
func DecodeStringMap(v []byte, field string, m *map[string]string) error {
	switch v[0] {
	case 'n':
		*m = nil
		return nil
	case '{':
	default:
		return TypeError(v, field, "map[string]string")
	}
	if *m == nil {
		*m = map[string]string{}
	}
	var first error
	_, err := ForEachMember(v, func(key string, val []byte) error {
		var s string
		if err := DecodeField(val, field, Field{key, &s}); err != nil {
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

// Decode reads raw (any bytes) as json.Unmarshal(raw, v) reads it into
// a struct: an error unless it is exactly one valid JSON value.
func Decode(raw []byte, typ string, fields []Field) error {
	i := SkipWS(raw, 0)
	if i < len(raw) && raw[i] == '{' {
		// DecodeFields (ForEachMember) validates the object, and that nothing follows it.
		return DecodeFields(raw[i:], typ, fields)
	}
	if err := Check(raw); err != nil {
		return err
	}
	return DecodeFields(raw[i:], typ, fields)
}
