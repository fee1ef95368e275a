package mcplive

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/mcplive/mcplive/internal/jsontext"
)

// Custom headers from tool parameters (2026-07-28, Streamable HTTP; SEP-2243):
// a tool's inputSchema may mark a parameter with "x-mcp-header": "Region",
// and every tools/call of that tool then carries the argument's value in
// the header Mcp-Param-Region, for proxies that route on it. A tool whose
// marks break the rules is left out of the tools list, with a warning.

const (
	paramHeaderPrefix = "Mcp-Param-"
	paramAnnotation   = "x-mcp-header"
)

// paramDecl is one parameter a tool mirrors into a header: the argument at
// path (a chain of properties keys) goes in Mcp-Param-<name>.
type paramDecl struct {
	path []string
	name string
}

// toolParams is what a tool's inputSchema says about Mcp-Param headers: its
// declarations, or why they are invalid (err).
type toolParams struct {
	decls []paramDecl
	err   error
}

// toolParamsOf reads the x-mcp-header marks of a tool (its raw JSON) from
// its inputSchema; nil when it has none. toolsListed keeps the result with
// the item (noteSlots), so it runs once per new or changed tool, and it
// reads the schema only when the tool's bytes may hold a mark: the name
// itself, or an escape (a "\u" could spell it).
func toolParamsOf(tool RawMessage) *toolParams {
	if len(tool) == 0 {
		return nil
	}
	if text := unsafe.String(&tool[0], len(tool)); !strings.Contains(text, paramAnnotation) && !strings.Contains(text, `\u`) {
		return nil
	}
	var schema []byte
	_, _ = jsontext.ForEachMember(tool, func(k string, v []byte) error {
		if jsontext.FieldIs(k, "inputSchema") {
			schema = v
		}
		return nil
	})
	return scanParams(schema)
}

// scanParams reads the x-mcp-header marks of a tool's inputSchema (valid
// JSON, as the walk checked it); nil when it has none.
func scanParams(schema []byte) *toolParams {
	if len(schema) == 0 || schema[0] != '{' {
		return nil
	}
	p := &toolParams{}
	p.err = scanNode(schema, nil, true, map[string]string{}, &p.decls)
	if p.err == nil && len(p.decls) == 0 {
		return nil
	}
	return p
}

// unreachable lists the keywords whose subschemas a mark must not sit
// under: only a chain of properties keys from the root reaches a
// parameter that has one value per call. Each holds a subschema, an array
// of them or (the first five) a map of them.
var unreachable = []string{
	"patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions",
	"items", "prefixItems", "additionalItems", "contains", "additionalProperties",
	"unevaluatedProperties", "unevaluatedItems", "propertyNames", "oneOf", "anyOf",
	"allOf", "not", "if", "then", "else",
}

// scanNode checks the marks of the subschema node (valid JSON) at path and
// below, in the schema's order. reachable says whether only properties
// keys lead to it; seen holds the header names so far, lower-cased, and
// the name each was declared as.
func scanNode(node []byte, path []string, reachable bool, seen map[string]string, out *[]paramDecl) error {
	keys, vals := members(node)
	var mark, typ []byte
	for i, k := range keys {
		switch k {
		case paramAnnotation:
			mark = vals[i]
		case "type":
			typ = vals[i]
		}
	}
	if mark != nil {
		name, t := jsonString(mark), jsonString(typ)
		lower := strings.ToLower(name)
		why := ""
		switch {
		case !reachable || len(path) == 0:
			why = "not on a property reached by properties keys alone (not under items, oneOf, anyOf, allOf, not, if/then/else, $defs or the root)"
		case !validParamName(name):
			why = "must be a non-empty HTTP token (letters, digits, !#$%&'*+-.^_`|~)"
		case t != "string" && t != "integer" && t != "boolean":
			if typ == nil {
				typ = []byte("none")
			}
			why = "on a parameter of type " + string(typ) + ": only string, integer and boolean parameters may have one"
		case seen[lower] != "":
			why = `repeats "` + seen[lower] + `" (header names are case-insensitive)`
		}
		if why != "" {
			return errors.New(paramAnnotation + " " + string(mark) + ` of "` + strings.Join(path, ".") + `": ` + why)
		}
		seen[lower] = name
		*out = append(*out, paramDecl{path: append([]string(nil), path...), name: name})
	}
	for i, k := range keys {
		var steps []string
		var subs [][]byte
		in := slices.Index(unreachable, k)
		switch {
		case k == "properties":
			steps, subs = members(vals[i])
		case in < 0:
			continue
		case in < 5:
			_, subs = members(vals[i])
		case vals[i][0] == '[':
			_, _ = jsontext.ScanArray(vals[i], 0, 1, func(v []byte) { subs = append(subs, v) })
		default:
			subs = vals[i : i+1]
		}
		for j, sub := range subs {
			step := k
			if steps != nil {
				step = steps[j]
			}
			if err := scanNode(sub, append(path, step), reachable && steps != nil, seen, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// members returns the keys and values of a JSON object, in order; none
// for any other value.
func members(obj []byte) (keys []string, vals [][]byte) {
	_, _ = jsontext.ForEachMember(obj, func(k string, v []byte) error {
		keys, vals = append(keys, k), append(vals, v)
		return nil
	})
	return keys, vals
}

// jsonString returns the text of a JSON string token, "" for any other
// value.
func jsonString(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	return jsontext.Unquote(v)
}

// validParamName reports whether name is an HTTP field-name token (RFC
// 9110 tchar): no space, control character, delimiter or non-ASCII byte.
func validParamName(name string) bool {
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			return false
		}
	}
	return name != ""
}

// toolsListed is httpConn's paramMirror (transport.go): it is handed each
// tools list a session of 2026-07-28 walks, and returns the tools as the
// list shows them (its own slice, when every tool is kept): a tool whose
// x-mcp-header marks are invalid is left out, with a warning, and the
// declarations of the others are kept for the tools/call requests that
// follow.
func (c *httpConn) toolsListed(items itemSlice, log Logger) itemSlice {
	slots, _ := items.(noteSlots)
	var decls map[string][]paramDecl
	var keep []int // nil while every tool is kept
	for i := range items.Len() {
		p := paramsOf(items, slots, i)
		if p != nil && p.err != nil {
			log.Warn("mcplive: a tool with invalid x-mcp-header marks is left out of the tools list", "tool", items.Key(i), "err", p.err.Error())
			if keep == nil {
				keep = make([]int, 0, items.Len())
				for j := range i {
					keep = append(keep, j)
				}
			}
			continue
		}
		if p != nil {
			if decls == nil {
				decls = make(map[string][]paramDecl)
			}
			decls[items.Key(i)] = p.decls
		}
		if keep != nil {
			keep = append(keep, i)
		}
	}
	c.storeParams(decls)
	if keep == nil {
		return items
	}
	return items.pick(keep)
}

// paramsOf returns the x-mcp-header marks of tool i of items, read once and
// then kept in the item's slot (a tool reused by a re-list keeps it).
func paramsOf(items itemSlice, slots noteSlots, i int) *toolParams {
	var slot *any
	if slots != nil {
		slot = slots.note(i)
	}
	if slot == nil {
		return toolParamsOf(items.RawJSON(i))
	}
	if p, ok := (*slot).(*toolParams); ok {
		return p
	}
	p := toolParamsOf(items.RawJSON(i))
	*slot = p // a nil *toolParams too: "no marks" is kept as well
	return p
}

// storeParams keeps the declarations of the tools last listed, for the
// tools/call requests that follow.
func (c *httpConn) storeParams(decls map[string][]paramDecl) { c.params.Store(&decls) }

// setParamHeaders adds to h an Mcp-Param header for every declared
// parameter of tool that the tools/call message msg gives a value: as is
// when it is a plain header value, in the "=?base64?…?=" form otherwise. A
// tool not listed (or listed without declarations) gets none, as does an
// argument that is absent, null, not a string, boolean or integer, or an
// integer beyond ±(2^53-1).
func (c *httpConn) setParamHeaders(h Header, tool string, msg []byte) {
	table := c.params.Load()
	if table == nil || len((*table)[tool]) == 0 {
		return
	}
	var arguments RawMessage
	if jsontext.Decode(msg, "message", []jsontext.Field{{Name: "params", Dst: func(v []byte) error {
		return jsontext.DecodeFields(v, "params", []jsontext.Field{{Name: "arguments", Dst: &arguments}})
	}}}) != nil {
		return
	}
	for _, d := range (*table)[tool] {
		v := []byte(arguments)
		for _, k := range d.path {
			var next []byte
			_, _ = jsontext.ForEachMember(v, func(key string, val []byte) error {
				if key == k {
					next = val
				}
				return nil
			})
			v = next
		}
		if s, ok := paramValue(v); ok {
			h.Set(paramHeaderPrefix+d.name, s)
		}
	}
}

// maxSafeInteger is the largest integer a JavaScript number holds exactly.
const maxSafeInteger = 1<<53 - 1

// paramValue returns an argument's JSON value as a header value: a string
// as it is (encoded when it must be), a boolean as true or false, an
// integer in decimal; ok is false for anything else.
func paramValue(v []byte) (string, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "", false
	}
	switch c := v[0]; {
	case c == '"':
		if jsontext.Check(v) != nil {
			return "", false
		}
		return encodeHeaderValue(jsontext.Unquote(v)), true
	case string(v) == "true" || string(v) == "false":
		return string(v), true
	case c == '-' || '0' <= c && c <= '9':
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f < -maxSafeInteger || f > maxSafeInteger || f != float64(int64(f)) {
			return "", false
		}
		return strconv.FormatInt(int64(f), 10), true
	}
	return "", false
}
