// Package jsontext reads and writes JSON text, knowing nothing of MCP or
// JSON-RPC: the scanner that every message mcplive reads goes through
// (scan.go), the writer of what it sends (write.go), and the field reader
// that reads objects into Go values as encoding/json would (decode.go).
//
// A small, strict scanner for the envelopes read on every message: the
// JSON-RPC message and the list page. encoding/json scans its whole input
// once to validate it and again to decode it, with a function call per
// byte; for a 30 KB page of tools that happens for the message, again for
// the result, and again for each item. In wasm that dominated the time of
// a re-list. Here one plain pass validates the envelope and finds its
// members, and splits a result's arrays into their elements (mcplive's
// parseEnvelope); a list page's items are validated when they are new, and
// only those.
package jsontext

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcplive/mcplive/internal/printf"
)

const maxNesting = 10000

var ErrSyntax = errors.New("invalid JSON")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func SkipWS(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// ScanValue validates the JSON value that starts at b[i] (no leading white
// space) and returns the index just past it.
func ScanValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, printf.Errorf("%w: unexpected end of input", ErrSyntax)
	}
	switch c := b[i]; {
	case c == '"':
		return scanString(b, i)
	case c == '{':
		return ScanObject(b, i, depth+1, nil)
	case c == '[':
		return ScanArray(b, i, depth+1, nil)
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(b, i)
	default:
		return 0, printf.Errorf("%w: unexpected %q at offset %d", ErrSyntax, rune(c), i)
	}
}

func scanLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, printf.Errorf("%w: bad literal at offset %d", ErrSyntax, i)
	}
	return i + len(lit), nil
}

func scanNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return 0, printf.Errorf("%w: bad number at offset %d", ErrSyntax, start)
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return 0, printf.Errorf("%w: bad number at offset %d", ErrSyntax, start)
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, printf.Errorf("%w: bad number at offset %d", ErrSyntax, start)
		}
	}
	return i, nil
}

// scanString validates the string token at b[i] ('"') and returns the index
// past its closing quote.
func scanString(b []byte, i int) (int, error) {
	start := i
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			i++
			if i >= len(b) {
				break
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return 0, printf.Errorf("%w: bad \\u escape at offset %d", ErrSyntax, i)
				}
				i += 4
			default:
				return 0, printf.Errorf("%w: bad escape at offset %d", ErrSyntax, i)
			}
		case c < 0x20:
			return 0, printf.Errorf("%w: control character in string at offset %d", ErrSyntax, i)
		}
	}
	return 0, printf.Errorf("%w: unterminated string at offset %d", ErrSyntax, start)
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// ScanObject validates the object at b[i] ('{'); member, when not nil, is
// called with each member's key token (with its quotes) and value.
func ScanObject(b []byte, i, depth int, member func(key, val []byte) error) (int, error) {
	return ScanObjectWith(b, i, depth, nil, member)
}

// ValueHook, given a member's key token and the index of its value (a
// valid index of b, past any white space), may take the value over from
// the scanner: it returns the index just past the value, having checked
// what it needs of it, or 0 to have the value validated as usual, or an
// error.
type ValueHook func(b, key []byte, i int) (int, error)

// ScanObjectWith is ScanObject where value, when not nil, may take over a
// member's value (see ValueHook): the object's own syntax — its keys,
// colons, commas and braces — is still checked.
func ScanObjectWith(b []byte, i, depth int, value ValueHook, member func(key, val []byte) error) (int, error) {
	if depth > maxNesting {
		return 0, printf.Errorf("%w: nested too deep", ErrSyntax)
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, printf.Errorf("%w: expected a member name at offset %d", ErrSyntax, i)
		}
		keyEnd, err := scanString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i:keyEnd]
		i = SkipWS(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return 0, printf.Errorf("%w: expected ':' at offset %d", ErrSyntax, i)
		}
		i = SkipWS(b, i+1)
		valEnd := 0
		if value != nil && i < len(b) {
			if valEnd, err = value(b, key, i); err != nil {
				return 0, err
			}
			if valEnd > len(b) || (valEnd != 0 && valEnd <= i) {
				return 0, printf.Errorf("%w: bad value at offset %d", ErrSyntax, i) // a hook's mistake; never slice past it
			}
		}
		if valEnd == 0 {
			if valEnd, err = ScanValue(b, i, depth); err != nil {
				return 0, err
			}
		}
		if member != nil {
			if err := member(key, b[i:valEnd]); err != nil {
				return 0, err
			}
		}
		i = SkipWS(b, valEnd)
		if i >= len(b) {
			return 0, printf.Errorf("%w: unexpected end of input", ErrSyntax)
		}
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, printf.Errorf("%w: expected ',' or '}' at offset %d", ErrSyntax, i)
		}
	}
}

// ScanArray validates the array at b[i] ('['); elem, when not nil, is
// called with each element.
func ScanArray(b []byte, i, depth int, elem func(val []byte)) (int, error) {
	if depth > maxNesting {
		return 0, printf.Errorf("%w: nested too deep", ErrSyntax)
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := ScanValue(b, i, depth)
		if err != nil {
			return 0, err
		}
		if elem != nil {
			elem(b[i:end:end])
		}
		i = SkipWS(b, end)
		if i >= len(b) {
			return 0, printf.Errorf("%w: unexpected end of input", ErrSyntax)
		}
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return 0, printf.Errorf("%w: expected ',' or ']' at offset %d", ErrSyntax, i)
		}
	}
}

// ForEachMember validates that b is exactly one JSON object (white space
// around allowed) and calls member for each of its members, with the key
// decoded. It reports false for a valid value that is not an object.
func ForEachMember(b []byte, member func(key string, val []byte) error) (isObject bool, err error) {
	return ForEachMemberWith(b, nil, member)
}

// ForEachMemberWith is ForEachMember where value, when not nil, may take
// over a member's value (see ValueHook).
func ForEachMemberWith(b []byte, value ValueHook, member func(key string, val []byte) error) (isObject bool, err error) {
	i := SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		end, err := ScanValue(b, i, 0)
		if err == nil && SkipWS(b, end) != len(b) {
			err = printf.Errorf("%w: data after the value", ErrSyntax)
		}
		return false, err
	}
	end, err := ScanObjectWith(b, i, 1, value, func(key, val []byte) error {
		return member(Unquote(key), val)
	})
	if err != nil {
		return true, err
	}
	if SkipWS(b, end) != len(b) {
		return true, printf.Errorf("%w: data after the object at offset %d", ErrSyntax, end)
	}
	return true, nil
}

// Check validates b as exactly one JSON value (white space around
// allowed).
func Check(b []byte) error {
	end, err := ScanValue(b, SkipWS(b, 0), 0)
	if err == nil && SkipWS(b, end) != len(b) {
		err = printf.Errorf("%w: data after the value at offset %d", ErrSyntax, end)
	}
	return err
}

// SkipUnchecked is a ValueHook that passes over a value without
// validating it (SkipValid: every bound checked, no syntax), for a value
// that its reader validates itself.
func SkipUnchecked(b, _ []byte, i int) (int, error) {
	end := SkipValid(b, i)
	if end <= i {
		return 0, printf.Errorf("%w: unexpected end of input", ErrSyntax)
	}
	return end, nil
}

// Unquote returns the text of a validated string token, as encoding/json
// decodes it: escapes resolved, a lone or broken surrogate escape and
// each byte of invalid UTF-8 turned into U+FFFD.
func Unquote(tok []byte) string {
	inner := tok[1 : len(tok)-1]
	for i, c := range inner {
		if c == '\\' || c >= 0x80 {
			return unquoteFrom(inner, i)
		}
	}
	return string(inner)
}

// unquoteFrom decodes inner (a string token without its quotes), of which
// inner[:i] is plain ASCII. A token that is not valid (not validated by
// the caller) gives "", as with encoding/json.
func unquoteFrom(inner []byte, i int) string {
	b := make([]byte, 0, len(inner)+utf8.UTFMax)
	b = append(b, inner[:i]...)
	for i < len(inner) {
		c := inner[i]
		if c >= ' ' && c < utf8.RuneSelf && c != '\\' && c != '"' {
			b = append(b, c)
			i++
			continue
		}
		r, n := rune(-1), 2 // -1: not valid in a string token
		switch {
		case c >= utf8.RuneSelf:
			r, n = utf8.DecodeRune(inner[i:]) // invalid UTF-8: U+FFFD
		case c != '\\' || i+1 == len(inner):
		case inner[i+1] == 'u':
			r, n = hex4(inner[i:]), 6
			if utf16.IsSurrogate(r) {
				r = utf16.DecodeRune(r, hex4(inner[i+6:]))
				if r != utf8.RuneError {
					n = 12
				}
			}
		default:
			const from, to = `"\/'bfnrt`, "\"\\/'\b\f\n\r\t"
			if k := strings.IndexByte(from, inner[i+1]); k >= 0 {
				r = rune(to[k])
			}
		}
		if r < 0 {
			return ""
		}
		b = utf8.AppendRune(b, r)
		i += n
	}
	return string(b)
}

// hex4 reads the escape \uXXXX at the start of s: its code unit, or -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Ref is a JSON value kept as a sub-slice of the bytes it was decoded
// from, where json.RawMessage copies them. A list page is decoded from a
// result buffer this package owns and never reuses, so the page's items
// share it: one allocation per page instead of one per item. The capacity
// is cut to the value, so that an append to one item's raw JSON cannot
// overwrite the next one.
type Ref []byte

// IsKey reports whether the key token tok (with its quotes) is name.
func IsKey(tok []byte, name string) bool {
	if bytes.IndexByte(tok, '\\') >= 0 {
		return Unquote(tok) == name
	}
	return len(tok) == len(name)+2 && string(tok[1:len(tok)-1]) == name
}

// WalkMembers calls fn with each member of the JSON object res, which is
// known to be valid (validated with its message, or a result by
// rpcConn.callWith). It still checks every bound and never panics,
// whatever res holds (isResponseTo walks messages not validated yet); it
// reports false when res is not an object or ends early.
func WalkMembers(res []byte, fn func(key, val []byte)) bool {
	return WalkMembersUntil(res, nil, func(key, val []byte) bool {
		fn(key, val)
		return false
	})
}

// WalkMembersUntil is WalkMembers where the walk stops when fn returns
// true, or when at, when not nil, returns true: at sees each key and the
// index of its value before the value is passed over, so that a walk can
// stop short of a long value. It reports false when res is not an object
// or ends before the walk stopped or came to its end.
func WalkMembersUntil(res []byte, at func(key []byte, i int) bool, fn func(key, val []byte) bool) bool {
	i := SkipWS(res, 0)
	if i >= len(res) || res[i] != '{' {
		return false
	}
	i = SkipWS(res, i+1)
	for i < len(res) && res[i] != '}' {
		keyEnd := SkipValid(res, i)
		if res[i] != '"' || keyEnd < i+2 {
			return false
		}
		key := res[i:keyEnd]
		i = SkipWS(res, keyEnd)
		if i >= len(res) || res[i] != ':' {
			return false
		}
		i = SkipWS(res, i+1)
		if i >= len(res) {
			return false
		}
		if at != nil && at(key, i) {
			return true
		}
		end := SkipValid(res, i)
		if end <= i {
			return false
		}
		if fn(key, res[i:end]) {
			return true
		}
		i = SkipWS(res, end)
		if i < len(res) && res[i] == ',' {
			i = SkipWS(res, i+1)
		}
	}
	return i < len(res)
}

// SkipValid returns the index just past the JSON value at b[i], which is
// known to be valid; -1 if b ends first.
func SkipValid(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end := SkipValid(b, i)
				if end < 0 {
					return -1
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	default:
		for ; i < len(b); i++ {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
		}
		return i
	}
}

// SplitArray returns the elements of the JSON array b as sub-slices of b.
// One plain pass over the bytes, which checks the array's own syntax (its
// brackets and the commas between elements) and not the elements: a
// caller validates those it keeps, or knows b to be valid. A value that is
// not an array reports false; null is an empty list.
func SplitArray(b []byte) ([]Ref, bool) {
	out, end, ok := SplitArrayAt(b, SkipWS(b, 0), nil)
	return out, ok && SkipWS(b, end) == len(b)
}

// SplitArrayAt splits the array (or null) at b[i], appending its elements
// to out, and returns the index just past it.
func SplitArrayAt(b []byte, i int, out []Ref) ([]Ref, int, bool) {
	if i < len(b) && b[i] == 'n' {
		if len(b)-i < 4 {
			return nil, 0, false
		}
		return out, i + 4, true
	}
	if i >= len(b) || b[i] != '[' {
		return nil, 0, false
	}
	first := len(out)
	start, depth := -1, 0
	for i++; i < len(b); i++ {
		switch c := b[i]; c {
		case ' ', '\t', '\r', '\n':
		case '"':
			if start < 0 {
				start = i
			}
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if start < 0 {
				start = i
			}
			depth++
		case '}', ']':
			if depth > 0 {
				depth--
				continue
			}
			if c != ']' {
				return nil, 0, false // [ closed by }
			}
			if start >= 0 {
				out = append(out, trimRef(b[start:i]))
			} else if len(out) > first {
				return nil, 0, false // [1,]
			}
			return out, i + 1, true
		case ',':
			if depth > 0 {
				continue
			}
			if start < 0 {
				return nil, 0, false
			}
			out = append(out, trimRef(b[start:i]))
			start = -1
		default:
			if start < 0 {
				start = i
			}
		}
	}
	return nil, 0, false
}

// trimRef cuts trailing white space and the capacity.
func trimRef(b []byte) Ref {
	n := len(b)
	for n > 0 && (b[n-1] == ' ' || b[n-1] == '\t' || b[n-1] == '\r' || b[n-1] == '\n') {
		n--
	}
	return Ref(b[:n:n])
}
