package mcplive

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A small, strict JSON scanner for the envelopes this package reads on
// every message: the JSON-RPC message and the list page. encoding/json
// scans its whole input once to validate it and again to decode it, with a
// function call per byte; for a 30 KB page of tools that happens for the
// message, again for the result, and again for each item. In wasm that
// dominated the time of a re-list. Here one plain pass validates the
// envelope and finds its members, and splits a result's arrays into their
// elements (see parseEnvelope); a list page's items are validated when
// they are new, and only those, with the small members, reach
// encoding/json.

const maxNesting = 10000 // as encoding/json

var errSyntax = errors.New("invalid JSON")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func skipWS(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanValue validates the JSON value that starts at b[i] (no leading white
// space) and returns the index just past it.
func scanValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, fmt.Errorf("%w: unexpected end of input", errSyntax)
	}
	switch c := b[i]; {
	case c == '"':
		return scanString(b, i)
	case c == '{':
		return scanObject(b, i, depth+1, nil)
	case c == '[':
		return scanArray(b, i, depth+1, nil)
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(b, i)
	default:
		return 0, fmt.Errorf("%w: unexpected %q at offset %d", errSyntax, c, i)
	}
}

func scanLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, fmt.Errorf("%w: bad literal at offset %d", errSyntax, i)
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
		return 0, fmt.Errorf("%w: bad number at offset %d", errSyntax, start)
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return 0, fmt.Errorf("%w: bad number at offset %d", errSyntax, start)
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, fmt.Errorf("%w: bad number at offset %d", errSyntax, start)
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
					return 0, fmt.Errorf("%w: bad \\u escape at offset %d", errSyntax, i)
				}
				i += 4
			default:
				return 0, fmt.Errorf("%w: bad escape at offset %d", errSyntax, i)
			}
		case c < 0x20:
			return 0, fmt.Errorf("%w: control character in string at offset %d", errSyntax, i)
		}
	}
	return 0, fmt.Errorf("%w: unterminated string at offset %d", errSyntax, start)
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// scanObject validates the object at b[i] ('{'); member, when not nil, is
// called with each member's key token (with its quotes) and value.
func scanObject(b []byte, i, depth int, member func(key, val []byte) error) (int, error) {
	return scanObjectWith(b, i, depth, nil, member)
}

// valueHook, given a member's key token and the index of its value (a
// valid index of b, past any white space), may take the value over from
// the scanner: it returns the index just past the value, having checked
// what it needs of it, or 0 to have the value validated as usual, or an
// error.
type valueHook func(b, key []byte, i int) (int, error)

// scanObjectWith is scanObject where value, when not nil, may take over a
// member's value (see valueHook): the object's own syntax — its keys,
// colons, commas and braces — is still checked.
func scanObjectWith(b []byte, i, depth int, value valueHook, member func(key, val []byte) error) (int, error) {
	if depth > maxNesting {
		return 0, fmt.Errorf("%w: nested too deep", errSyntax)
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, fmt.Errorf("%w: expected a member name at offset %d", errSyntax, i)
		}
		keyEnd, err := scanString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i:keyEnd]
		i = skipWS(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return 0, fmt.Errorf("%w: expected ':' at offset %d", errSyntax, i)
		}
		i = skipWS(b, i+1)
		valEnd := 0
		if value != nil && i < len(b) {
			if valEnd, err = value(b, key, i); err != nil {
				return 0, err
			}
			if valEnd > len(b) || (valEnd != 0 && valEnd <= i) {
				return 0, fmt.Errorf("%w: bad value at offset %d", errSyntax, i) // a hook's mistake; never slice past it
			}
		}
		if valEnd == 0 {
			if valEnd, err = scanValue(b, i, depth); err != nil {
				return 0, err
			}
		}
		if member != nil {
			if err := member(key, b[i:valEnd]); err != nil {
				return 0, err
			}
		}
		i = skipWS(b, valEnd)
		if i >= len(b) {
			return 0, fmt.Errorf("%w: unexpected end of input", errSyntax)
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, fmt.Errorf("%w: expected ',' or '}' at offset %d", errSyntax, i)
		}
	}
}

// scanArray validates the array at b[i] ('['); elem, when not nil, is
// called with each element.
func scanArray(b []byte, i, depth int, elem func(val []byte)) (int, error) {
	if depth > maxNesting {
		return 0, fmt.Errorf("%w: nested too deep", errSyntax)
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := scanValue(b, i, depth)
		if err != nil {
			return 0, err
		}
		if elem != nil {
			elem(b[i:end:end])
		}
		i = skipWS(b, end)
		if i >= len(b) {
			return 0, fmt.Errorf("%w: unexpected end of input", errSyntax)
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return 0, fmt.Errorf("%w: expected ',' or ']' at offset %d", errSyntax, i)
		}
	}
}

// forEachMember validates that b is exactly one JSON object (white space
// around allowed) and calls member for each of its members, with the key
// decoded. It reports false for a valid value that is not an object.
func forEachMember(b []byte, member func(key string, val []byte) error) (isObject bool, err error) {
	return forEachMemberWith(b, nil, member)
}

// forEachMemberWith is forEachMember where value, when not nil, may take
// over a member's value (see valueHook).
func forEachMemberWith(b []byte, value valueHook, member func(key string, val []byte) error) (isObject bool, err error) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		end, err := scanValue(b, i, 0)
		if err == nil && skipWS(b, end) != len(b) {
			err = fmt.Errorf("%w: data after the value", errSyntax)
		}
		return false, err
	}
	end, err := scanObjectWith(b, i, 1, value, func(key, val []byte) error {
		return member(unquote(key), val)
	})
	if err != nil {
		return true, err
	}
	if skipWS(b, end) != len(b) {
		return true, fmt.Errorf("%w: data after the object at offset %d", errSyntax, end)
	}
	return true, nil
}

// checkJSON validates b as exactly one JSON value (white space around
// allowed).
func checkJSON(b []byte) error {
	end, err := scanValue(b, skipWS(b, 0), 0)
	if err == nil && skipWS(b, end) != len(b) {
		err = fmt.Errorf("%w: data after the value at offset %d", errSyntax, end)
	}
	return err
}

// skipUnchecked is a valueHook that passes over a value without
// validating it (skipValid: every bound checked, no syntax), for a value
// that its reader validates itself.
func skipUnchecked(b, _ []byte, i int) (int, error) {
	end := skipValid(b, i)
	if end <= i {
		return 0, fmt.Errorf("%w: unexpected end of input", errSyntax)
	}
	return end, nil
}

// unquote returns the text of a validated string token, as encoding/json
// decodes it: escapes resolved, a lone or broken surrogate escape and
// each byte of invalid UTF-8 turned into U+FFFD.
func unquote(tok []byte) string {
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

// rawRef is a JSON value kept as a sub-slice of the bytes it was decoded
// from, where json.RawMessage copies them. A list page is decoded from a
// result buffer this package owns and never reuses, so the page's items
// share it: one allocation per page instead of one per item. The capacity
// is cut to the value, so that an append to one item's raw JSON cannot
// overwrite the next one.
type rawRef []byte

// pageInfo is what a list page says besides its items and cursor.
type pageInfo struct {
	resultType string
	ttlMs      int64 // -1: absent
	cacheScope string
}

// listPage is one page of a list walk: its items array, undecoded, and
// the array's elements (array is false when the member is absent or not an
// array; null is an empty array).
type listPage struct {
	raw   rawRef
	items []rawRef
	array bool
}

// parseListPage returns a list result's items array (field: "tools",
// "prompts", "resources" or "resourceTemplates"), split into its elements,
// its cursor and its caching hints. idx is res as the envelope's pass read
// it (see parseEnvelope); nil makes it here. Either way the object and
// every member but the items array are validated, and the array's own
// syntax (brackets, commas) is checked; the items themselves are validated
// by the walk's builders when new — an item the walk reuses is byte for
// byte one validated before. It checks every bound and never panics,
// whatever res holds. The items share res's bytes (see rawRef).
func parseListPage(res []byte, idx *resultIndex, field string) (page listPage, next *string, info pageInfo, err error) {
	info.ttlMs = -1
	if idx == nil {
		if idx, err = readResultObject(res); err != nil {
			return listPage{}, nil, info, err
		}
	}
	for _, m := range idx.members {
		isItems := m.array && isKey(m.key, field)
		switch {
		case isItems && page.array:
			// The first array's items were not validated (see above).
			return listPage{}, nil, info, fmt.Errorf("the member %q appears twice", field)
		case isItems:
			page = listPage{raw: rawRef(m.val[:len(m.val):len(m.val)]), items: m.items, array: true}
		default:
			for _, it := range m.items {
				if err := checkJSON(it); err != nil { // another member's array
					return listPage{}, nil, info, err
				}
			}
		}
		switch unquote(m.key) {
		case field:
			if !isItems {
				page = listPage{raw: rawRef(m.val[:len(m.val):len(m.val)])}
			}
		case "nextCursor":
			switch m.val[0] {
			case '"':
				s := unquote(m.val)
				next = &s
			case 'n':
				next = nil
			default:
				return listPage{}, nil, info, errors.New(`"nextCursor" is not a string`)
			}
		case "resultType":
			if m.val[0] == '"' {
				info.resultType = unquote(m.val)
			}
		case "ttlMs":
			if n, perr := strconv.ParseFloat(string(m.val), 64); perr == nil {
				info.ttlMs = int64(max(n, 0))
			}
		case "cacheScope":
			if m.val[0] == '"' {
				info.cacheScope = unquote(m.val)
			}
		}
	}
	return page, next, info, nil
}

// readResultObject reads a result on its own (not in its message) as
// indexResult does: an error when it is not one JSON object.
func readResultObject(res []byte) (*resultIndex, error) {
	i := skipWS(res, 0)
	if i >= len(res) || res[i] != '{' {
		if err := checkJSON(res); err != nil {
			return nil, err
		}
		return nil, errors.New("the result is not a JSON object")
	}
	idx, end, err := indexResult(res, i, 1)
	if err == nil && skipWS(res, end) != len(res) {
		err = fmt.Errorf("%w: data after the object at offset %d", errSyntax, end)
	}
	return idx, err
}

// isKey reports whether the key token tok (with its quotes) is name.
func isKey(tok []byte, name string) bool {
	if bytes.IndexByte(tok, '\\') >= 0 {
		return unquote(tok) == name
	}
	return len(tok) == len(name)+2 && string(tok[1:len(tok)-1]) == name
}

// walkMembers calls fn with each member of the JSON object res, which is
// known to be valid (validated with its message, or a result by
// rpcConn.callWith). It still checks every bound and never panics,
// whatever res holds (isResponseTo walks messages not validated yet); it
// reports false when res is not an object or ends early.
func walkMembers(res []byte, fn func(key, val []byte)) bool {
	return walkMembersUntil(res, nil, func(key, val []byte) bool {
		fn(key, val)
		return false
	})
}

// walkMembersUntil is walkMembers where the walk stops when fn returns
// true, or when at, when not nil, returns true: at sees each key and the
// index of its value before the value is passed over, so that a walk can
// stop short of a long value. It reports false when res is not an object
// or ends before the walk stopped or came to its end.
func walkMembersUntil(res []byte, at func(key []byte, i int) bool, fn func(key, val []byte) bool) bool {
	i := skipWS(res, 0)
	if i >= len(res) || res[i] != '{' {
		return false
	}
	i = skipWS(res, i+1)
	for i < len(res) && res[i] != '}' {
		keyEnd := skipValid(res, i)
		if res[i] != '"' || keyEnd < i+2 {
			return false
		}
		key := res[i:keyEnd]
		i = skipWS(res, keyEnd)
		if i >= len(res) || res[i] != ':' {
			return false
		}
		i = skipWS(res, i+1)
		if i >= len(res) {
			return false
		}
		if at != nil && at(key, i) {
			return true
		}
		end := skipValid(res, i)
		if end <= i {
			return false
		}
		if fn(key, res[i:end]) {
			return true
		}
		i = skipWS(res, end)
		if i < len(res) && res[i] == ',' {
			i = skipWS(res, i+1)
		}
	}
	return i < len(res)
}

// skipValid returns the index just past the JSON value at b[i], which is
// known to be valid; -1 if b ends first.
func skipValid(b []byte, i int) int {
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
				end := skipValid(b, i)
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

// splitArray returns the elements of the JSON array b as sub-slices of b.
// One plain pass over the bytes, which checks the array's own syntax (its
// brackets and the commas between elements) and not the elements: a
// caller validates those it keeps, or knows b to be valid. A value that is
// not an array reports false; null is an empty list.
func splitArray(b []byte) ([]rawRef, bool) {
	out, end, ok := splitArrayAt(b, skipWS(b, 0), nil)
	return out, ok && skipWS(b, end) == len(b)
}

// splitArrayAt splits the array (or null) at b[i], appending its elements
// to out, and returns the index just past it.
func splitArrayAt(b []byte, i int, out []rawRef) ([]rawRef, int, bool) {
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
func trimRef(b []byte) rawRef {
	n := len(b)
	for n > 0 && (b[n-1] == ' ' || b[n-1] == '\t' || b[n-1] == '\r' || b[n-1] == '\n') {
		n--
	}
	return rawRef(b[:n:n])
}
