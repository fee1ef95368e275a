//go:build !printfvet

// Package printf formats the package's error messages and log text as
// package fmt does, for the verbs they use (%s %d %q %v %w %T, no flags or
// widths), without fmt: fmt and the reflection it prints with cost the
// browser build about 33 KB of its brotli-compressed wasm, and one call
// anywhere links all of it. build.sh fails a wasm that links fmt again.
//
// Errorf wraps as fmt.Errorf does (errors.Is and errors.As see every %w
// operand). What it prints equals fmt's for strings, errors, Stringers,
// booleans, int, int32, int64, uint, uint32, uint64, float64, and []byte
// with %s; a value of another kind (a byte, float32, a struct), or
// of a named type of those kinds without a String method (a `type Kind
// string`), prints as %!v(TYPE), where fmt would print its value or its
// fields (printf_test.go holds both to fmt, and every format of the
// packages that use it; TestPrintableOperands holds their operands).
package printf

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Errorf is fmt.Errorf for the verbs of this package.
func Errorf(format string, args ...any) error {
	var wrapped []int
	s := string(appendf(nil, format, args, &wrapped))
	switch len(wrapped) {
	case 0:
		return errors.New(s)
	case 1:
		e, _ := args[wrapped[0]].(error)
		return &wrapError{s, e}
	}
	errs := make([]error, 0, len(wrapped))
	for i, n := range wrapped {
		if i > 0 && wrapped[i-1] == n {
			continue // the same operand twice: wrapped once, as fmt does
		}
		if e, ok := args[n].(error); ok {
			errs = append(errs, e)
		}
	}
	return &wrapErrors{s, errs}
}

// Sprintf is fmt.Sprintf for the verbs of this package.
func Sprintf(format string, args ...any) string {
	return string(appendf(nil, format, args, nil))
}

// Appendf is fmt.Appendf for the verbs of this package.
func Appendf(b []byte, format string, args ...any) []byte {
	return appendf(b, format, args, nil)
}

// Sprint is fmt.Sprint of one operand: its %v.
func Sprint(v any) string { return string(appendValue(nil, v, 'v')) }

type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string { return e.msg }
func (e *wrapError) Unwrap() error { return e.err }

type wrapErrors struct {
	msg  string
	errs []error
}

func (e *wrapErrors) Error() string   { return e.msg }
func (e *wrapErrors) Unwrap() []error { return e.errs }

// appendf appends format with its verbs replaced; wrapped, when not nil,
// collects the argument indices of %w (sorted, as fmt.Errorf has them).
func appendf(b []byte, format string, args []any, wrapped *[]int) []byte {
	n := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		i++
		if i >= len(format) {
			return append(b, "%!(NOVERB)"...)
		}
		verb, size := utf8.DecodeRuneInString(format[i:])
		i += size - 1
		switch {
		case verb == '%':
			b = append(b, '%')
			continue
		case !supported(verb):
			// Flags, widths and other verbs are not this package's: say so
			// where fmt would have printed the value.
			b = append(b, "%!"...)
			b = utf8.AppendRune(b, verb)
			b = append(b, "(printf: unsupported verb)"...)
			n++
			continue
		case n >= len(args):
			b = append(b, "%!"...)
			b = utf8.AppendRune(b, verb)
			b = append(b, "(MISSING)"...)
			continue
		}
		v := args[n]
		if verb == 'w' {
			if _, ok := v.(error); ok && wrapped != nil {
				*wrapped = append(*wrapped, n)
				verb = 'v'
			} else {
				b = badVerb(b, 'w', v)
				n++
				continue
			}
		}
		b = appendValue(b, v, verb)
		n++
	}
	if n < len(args) {
		b = append(b, "%!(EXTRA "...)
		for i, v := range args[n:] {
			if i > 0 {
				b = append(b, ", "...)
			}
			if v == nil {
				b = append(b, "<nil>"...)
				continue
			}
			b = append(b, reflect.TypeOf(v).String()...)
			b = append(b, '=')
			b = appendValue(b, v, 'v')
		}
		b = append(b, ')')
	}
	if wrapped != nil {
		slices.Sort(*wrapped)
	}
	return b
}

func supported(verb rune) bool {
	switch verb {
	case 's', 'd', 'q', 'v', 'w', 'T':
		return true
	}
	return false
}

// appendValue appends v formatted with verb (s, d, q, v or T), as fmt's
// printArg and handleMethods do.
func appendValue(b []byte, v any, verb rune) []byte {
	if verb == 'T' {
		if v == nil {
			return append(b, "<nil>"...)
		}
		return append(b, reflect.TypeOf(v).String()...)
	}
	if v == nil {
		if verb == 'v' {
			return append(b, "<nil>"...)
		}
		return badVerb(b, verb, v)
	}
	// Plain kinds first: fmt prints them without looking for methods.
	switch x := v.(type) {
	case string:
		return appendString(b, x, verb, v)
	case bool:
		if verb == 'v' {
			return strconv.AppendBool(b, x)
		}
		return badVerb(b, verb, v)
	case int:
		return appendInt(b, int64(x), verb, v)
	case int64:
		return appendInt(b, x, verb, v)
	case int32:
		return appendInt(b, int64(x), verb, v)
	case uint:
		return appendUint(b, uint64(x), verb, v)
	case uint64:
		return appendUint(b, x, verb, v)
	case uint32:
		return appendUint(b, uint64(x), verb, v)
	case float64:
		if verb == 'v' {
			return strconv.AppendFloat(b, x, 'g', -1, 64)
		}
		return badVerb(b, verb, v)
	case []byte:
		if verb == 's' {
			return append(b, x...)
		}
		if verb == 'q' {
			return strconv.AppendQuote(b, string(x))
		}
	}
	// Then methods: error before Stringer, for s, q and v.
	if verb == 's' || verb == 'q' || verb == 'v' {
		switch x := v.(type) {
		case error:
			return appendMethod(b, x.Error, verb, v)
		case interface{ String() string }:
			return appendMethod(b, x.String, verb, v)
		}
	}
	// A named type of a plain kind without a String method (a `type Kind
	// string`) is not printed: reading its value needs reflect's Value,
	// whose methods cost the wasm more than this package (1.6 KB brotli).
	// Convert it at the call site (TestPrintableOperands finds them).
	b = append(b, "%!"...)
	b = utf8.AppendRune(b, verb)
	b = append(b, '(')
	b = append(b, reflect.TypeOf(v).String()...)
	return append(b, ')')
}

// appendMethod appends what an Error or String method returns, as fmt
// does: a nil pointer receiver that panics prints as <nil>.
func appendMethod(b []byte, f func() string, verb rune, v any) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
				out = append(b, "<nil>"...)
				return
			}
			panic(p)
		}
	}()
	return appendString(b, f(), verb, v)
}

func appendString(b []byte, s string, verb rune, v any) []byte {
	switch verb {
	case 's', 'v':
		return append(b, s...)
	case 'q':
		return strconv.AppendQuote(b, s)
	}
	return badVerb(b, verb, v)
}

func appendInt(b []byte, i int64, verb rune, v any) []byte {
	switch verb {
	case 'd', 'v':
		return strconv.AppendInt(b, i, 10)
	case 'q':
		if i < 0 || i > utf8.MaxRune {
			i = utf8.RuneError
		}
		return strconv.AppendQuoteRune(b, rune(i))
	}
	return badVerb(b, verb, v)
}

func appendUint(b []byte, i uint64, verb rune, v any) []byte {
	switch verb {
	case 'd', 'v':
		return strconv.AppendUint(b, i, 10)
	case 'q':
		if i > utf8.MaxRune {
			i = utf8.RuneError
		}
		return strconv.AppendQuoteRune(b, rune(i))
	}
	return badVerb(b, verb, v)
}

// badVerb is fmt's %!verb(type=value).
func badVerb(b []byte, verb rune, v any) []byte {
	b = append(b, "%!"...)
	b = utf8.AppendRune(b, verb)
	b = append(b, '(')
	if v == nil {
		b = append(b, "<nil>"...)
	} else {
		b = append(b, reflect.TypeOf(v).String()...)
		b = append(b, '=')
		b = appendValue(b, v, 'v')
	}
	return append(b, ')')
}
