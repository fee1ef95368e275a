package mcplive

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
)

// The x-mcp-header marks of a tool's inputSchema (2026-07-28, "Schema
// Extension"): the declarations of a valid schema, in the schema's order,
// and the rule an invalid one breaks. The invalid schemas are those of the
// conformance scenario http-invalid-tool-headers and more.
func TestScanParams(t *testing.T) {
	prop := func(typ, mark string) string {
		return fmt.Sprintf(`{"type":%q,"x-mcp-header":%s}`, typ, mark)
	}
	obj := func(props ...string) string {
		return `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	}
	for _, tc := range []struct {
		name, schema string
		want         string // declarations as path=name, space-separated
		err          string // a part of the error; "" when valid
	}{
		{"none", obj(`"q":{"type":"string"}`), "", ""},
		{"no schema", ``, "", ""},
		{"not an object", `true`, "", ""},
		{"spec example", obj(`"region":`+prop("string", `"Region"`), `"query":{"type":"string"}`), "region=Region", ""},
		{"every primitive", obj(`"b":`+prop("boolean", `"B"`), `"a":`+prop("integer", `"A"`), `"c":`+prop("string", `"c-1.x_~!#$%&'*+^`+"`"+`|"`)),
			"b=B a=A c=c-1.x_~!#$%&'*+^`|", ""},
		{"nested properties", obj(`"target":`+obj(`"zone":`+prop("string", `"Zone"`)), `"top":`+prop("string", `"Top"`)), "target.zone=Zone top=Top", ""},
		{"escaped mark", obj(`"r":{"type":"string","x-mcp-\u0068eader":"Region"}`), "r=Region", ""},
		{"a property named x-mcp-header", obj(`"x-mcp-header":{"type":"string"}`), "", ""},
		{"an escape and no mark", obj(`"q":{"type":"string","description":"a \u003c b"}`), "", ""},

		{"empty", obj(`"value":` + prop("string", `""`)), "", "must be a non-empty HTTP token"},
		{"not a string", obj(`"value":` + prop("string", `7`)), "", "x-mcp-header 7 of"},
		{"space", obj(`"value":` + prop("string", `"My Region"`)), "", `"My Region"`},
		{"colon", obj(`"value":` + prop("string", `"Region:Primary"`)), "", "HTTP token"},
		{"non-ASCII", obj(`"value":` + prop("string", `"Région"`)), "", "HTTP token"},
		{"tab", obj(`"value":` + prop("string", `"Region\t1"`)), "", "HTTP token"},
		{"CRLF", obj(`"value":` + prop("string", `"A\r\nB"`)), "", "HTTP token"},
		{"object", obj(`"data":` + prop("object", `"Data"`)), "", "of type \"object\""},
		{"array", obj(`"items":{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}`), "", "of type \"array\""},
		{"null", obj(`"nil":` + prop("null", `"Nil"`)), "", "of type \"null\""},
		{"number", obj(`"score":` + prop("number", `"Score"`)), "", "of type \"number\""},
		{"no type", obj(`"v":{"x-mcp-header":"V"}`), "", "of type none"},
		{"type list", obj(`"v":{"type":["string","null"],"x-mcp-header":"V"}`), "", `of type ["string","null"]`},
		{"duplicate", obj(`"field1":`+prop("string", `"Region"`), `"field2":`+prop("string", `"Region"`)), "", `repeats "Region"`},
		{"duplicate in another case", obj(`"field1":`+prop("string", `"MyField"`), `"field2":`+prop("string", `"myfield"`)), "", `"myfield" of "field2": repeats "MyField"`},
		{"duplicate across levels", obj(`"a":`+prop("string", `"X"`), `"b":`+obj(`"c":`+prop("string", `"x"`))), "", "repeats"},
		{"root", `{"type":"string","x-mcp-header":"Root"}`, "", "not on a property"},
		{"under items", `{"type":"object","properties":{"list":{"type":"array","items":` + prop("string", `"Item"`) + `}}}`, "", "not on a property"},
		{"under anyOf", `{"anyOf":[` + obj(`"a":`+prop("string", `"A"`)) + `]}`, "", "not on a property"},
		{"under if", `{"if":` + obj(`"a":`+prop("string", `"A"`)) + `}`, "", "not on a property"},
		{"under $defs", `{"$defs":{"r":` + prop("string", `"R"`) + `},"type":"object","properties":{"r":{"$ref":"#/$defs/r"}}}`, "", "not on a property"},
		{"under additionalProperties", `{"type":"object","additionalProperties":` + prop("string", `"A"`) + `}`, "", "not on a property"},
		{"under patternProperties", `{"type":"object","patternProperties":{"^a":` + prop("string", `"A"`) + `}}`, "", "not on a property"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := scanParams(json.RawMessage(tc.schema))
			var got []string
			var err error
			if p != nil {
				for _, d := range p.decls {
					got = append(got, strings.Join(d.path, ".")+"="+d.name)
				}
				err = p.err
			}
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v, want declarations %q", err, tc.want)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one with %q", err, tc.err)
			case tc.err == "" && strings.Join(got, " ") != tc.want:
				t.Fatalf("declarations %q, want %q", strings.Join(got, " "), tc.want)
			case tc.err == "" && tc.want == "" && p != nil:
				t.Fatalf("%+v for a schema without marks, want nil", p)
			}
		})
	}
}

// A parameter's value as its header carries it (2026-07-28, "Value
// Encoding"): the spec's examples, the conformance scenario
// http-custom-headers' values, and the values that get no header.
func TestParamValue(t *testing.T) {
	const omitted = "(no header)"
	for in, want := range map[string]string{
		`"us-west1"`:           "us-west1",
		`"Hello, 世界"`:          "=?base64?SGVsbG8sIOS4lueVjA==?=",
		`" padded "`:           "=?base64?IHBhZGRlZCA=?=",
		`"line1\nline2"`:       "=?base64?bGluZTEKbGluZTI=?=",
		`"=?base64?literal?="`: "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
		`" us-west1"`:          "=?base64?IHVzLXdlc3Qx?=",
		`"us-west1 "`:          "=?base64?dXMtd2VzdDEg?=",
		`"us west 1"`:          "us west 1",
		`"line1\r\nline2"`:     "=?base64?bGluZTENCmxpbmUy?=",
		`"\tindented"`:         "=?base64?CWluZGVudGVk?=",
		`"\u00e9"`:             "=?base64?w6k=?=",
		`""`:                   "=?base64??=",
		`"test-method"`:        "test-method",
		`42`:                   "42",
		`-7`:                   "-7",
		`0`:                    "0",
		`42.0`:                 "42",
		`1e3`:                  "1000",
		`9007199254740991`:     "9007199254740991",
		`-9007199254740991`:    "-9007199254740991",
		`true`:                 "true",
		`false`:                "false",
		` true `:               "true",
		`9007199254740992`:     omitted,
		`-9007199254740992`:    omitted,
		`1e400`:                omitted,
		`3.14159`:              omitted,
		`null`:                 omitted,
		`{"a":1}`:              omitted,
		`["a"]`:                omitted,
		``:                     omitted,
		`"unterminated`:        omitted,
		`tru`:                  omitted,
	} {
		got, ok := paramValue(json.RawMessage(in))
		if !ok {
			got = omitted
		}
		if got != want {
			t.Errorf("paramValue(%s) = %q, want %q", in, got, want)
		}
	}
}

// The headers of one tools/call: every declared parameter with a value,
// nested ones included; none for an absent or null one, an undeclared
// one, or a tool without declarations.
func TestSetParamHeaders(t *testing.T) {
	c := &httpConn{}
	h := Header{}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`)
	c.setParamHeaders(h, "t", msg) // nothing listed yet
	if len(h) != 0 {
		t.Fatalf("headers %v before any tools list", h)
	}
	c.storeParams(map[string][]paramDecl{"t": {
		{[]string{"region"}, "Region"},
		{[]string{"priority"}, "Priority"},
		{[]string{"verbose"}, "Verbose"},
		{[]string{"absent"}, "Absent"},
		{[]string{"target", "zone"}, "Zone"},
		{[]string{"target", "missing"}, "Missing"},
		{[]string{"region", "deeper"}, "Deeper"},
	}})
	msg = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{
		"region":"us-west1","priority":42,"verbose":null,"query":"SELECT 1","target":{"zone":"Hello, 世界"}}}}`)
	c.setParamHeaders(h, "t", msg)
	want := Header{
		"Mcp-Param-Region":   {"us-west1"},
		"Mcp-Param-Priority": {"42"},
		"Mcp-Param-Zone":     {"=?base64?SGVsbG8sIOS4lueVjA==?="},
	}
	if !maps.EqualFunc(h, want, func(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }) {
		t.Fatalf("headers %v, want %v", h, want)
	}
	h = Header{}
	c.setParamHeaders(h, "other", msg)
	c.setParamHeaders(h, "t", []byte(`{"params":{"name":"t"}}`))
	c.setParamHeaders(h, "t", []byte(`not JSON`))
	if len(h) != 0 {
		t.Fatalf("headers %v for another tool, no arguments, a broken message", h)
	}
}

// A tools list without any x-mcp-header mark is not decoded again for it:
// the scan is a byte search that finds nothing.
func TestScanParamsByteSearchFirst(t *testing.T) {
	tool := json.RawMessage(`{"name":"t","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`)
	if n := testing.AllocsPerRun(100, func() { toolParamsOf(tool) }); n != 0 {
		t.Fatalf("toolParamsOf of a tool without marks allocates %v times, want 0 (no decoding)", n)
	}
}

// TestToolsListedReadsEachToolOnce: the paramMirror reads a tool's marks
// when it first sees the tool and keeps them in the item's slot; a re-list
// that reuses the tool (raw JSON byte for byte the same) hands the slot on,
// and a changed tool is read again. Typed lists (no RawItems) keep them
// alike.
func TestToolsListedReadsEachToolOnce(t *testing.T) {
	const (
		marked  = `{"name":"a","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}`
		plain   = `{"name":"b","inputSchema":{"type":"object"}}`
		changed = `{"name":"a","inputSchema":{"type":"object","properties":{"z":{"type":"string","x-mcp-header":"Zone"}}}}`
	)
	spec, _ := specOf(KindTools)
	for _, raw := range []bool{true, false} {
		build := func(prev Entries, items ...string) itemSlice {
			var b builder
			if raw {
				b = newRawBuild(spec)(prev)
			} else {
				b = newBuild[Tool, *Tool](prev)
			}
			if prev == nil || prev.Len() == 0 {
				if err := decodeItems(spec, rawPages(t, spec, `{"tools":[`+strings.Join(items, ",")+`]}`), b); err != nil {
					t.Fatal(err)
				}
				return b.items()
			}
			b.grow(len(items))
			for i, it := range items {
				if i < prev.Len() && string(prev.RawJSON(i)) == it {
					b.reuse(i, i+1)
				} else if _, err := b.add([]byte(it)); err != nil {
					t.Fatal(err)
				}
			}
			return b.items()
		}
		c := &httpConn{}
		first := build(nil, marked, plain)
		c.toolsListed(first, nopLogger{})
		p0 := (*first.(noteSlots).note(0)).(*toolParams)
		if p0 == nil || len(p0.decls) != 1 || p0.decls[0].name != "Region" {
			t.Fatalf("raw %v: tool a's marks %+v, want Region", raw, p0)
		}
		if n := first.(noteSlots).note(1); *n == nil || (*n).(*toolParams) != nil {
			t.Fatalf("raw %v: tool b's slot %v, want a kept nil (no marks)", raw, *n)
		}
		again := build(first, marked, plain)
		if p := *again.(noteSlots).note(0); p != any(p0) {
			t.Errorf("raw %v: the reused tool a was read again (%v, want the kept %v)", raw, p, p0)
		}
		c.toolsListed(again, nopLogger{})
		third := build(again, changed, plain)
		c.toolsListed(third, nopLogger{})
		if p := (*third.(noteSlots).note(0)).(*toolParams); p == nil || p.decls[0].name != "Zone" {
			t.Errorf("raw %v: the changed tool a's marks %+v, want Zone", raw, p)
		}
		if d := (*c.params.Load())["a"]; len(d) != 1 || d[0].name != "Zone" {
			t.Errorf("raw %v: declarations kept for tools/call %+v, want a's Zone", raw, d)
		}
	}
}
