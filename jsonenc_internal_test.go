package mcplive

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
)

// refMarshal is what writeJSON is held to: json.Marshal (esc) or an Encoder
// with SetEscapeHTML(false), without its newline.
func refMarshal(v any, esc bool) ([]byte, error) {
	if esc {
		return json.Marshal(v)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// checkSameJSON fails t unless writeJSON writes v as encoding/json does, or
// both fail.
func checkSameJSON(t *testing.T, name string, v any) {
	t.Helper()
	for _, esc := range []bool{true, false} {
		want, wantErr := refMarshal(v, esc)
		var b bytes.Buffer
		gotErr := writeJSON(&b, v, esc)
		if (gotErr != nil) != (wantErr != nil) {
			t.Errorf("%s (esc %v): error %v, encoding/json's %v", name, esc, gotErr, wantErr)
			continue
		}
		if gotErr == nil && !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s (esc %v):\n got %s\nwant %s", name, esc, b.Bytes(), want)
		}
	}
}

var jsonEncStrings = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnewline\nreturn\r",
	"\b\f", "\x00\x01\x1f\x7f", "<script>&amp;</script>", "é ü 日本 🎉",
	"line\u2028sep\u2029para", "bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate",
	"/slash", strings.Repeat("x", 300) + "<",
}

var jsonEncFloats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, 1.5, 123.456, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 1.5e21,
	-1e-7, 1e100, 5e-324, math.MaxFloat64, 1 << 53, 1<<53 + 1, 0.1 + 0.2, 100, 1e6, 12345678901234567890,
}

func TestWriteJSONMatchesEncodingJSON(t *testing.T) {
	for _, s := range jsonEncStrings {
		checkSameJSON(t, "string "+s, s)
		checkSameJSON(t, "key "+s, map[string]any{s: s})
	}
	for _, f := range jsonEncFloats {
		checkSameJSON(t, "float64", f)
		checkSameJSON(t, "float32", float32(f))
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		checkSameJSON(t, "not a number", f)
		checkSameJSON(t, "not a number in a map", map[string]any{"a": []any{f}})
	}
	ints := []any{0, -1, 42, int64(math.MinInt64), int64(math.MaxInt64), int32(-7), uint64(math.MaxUint64), uint32(9), uint(3)}
	for _, n := range ints {
		checkSameJSON(t, "int", n)
	}
	raws := []string{
		`{}`, `[]`, `null`, `true`, `1e5`, `"x"`, ` { "a" : [ 1 , 2 , { "b" : null } ] } `,
		"{\"k\":\"<a&b>\",\"l\":\"\u2028\u2029\"}", "\n\t[\r1]", `"esc \" \\ \u003c \/"`,
		`{"a":1,"a":2}`, `[1,2,]`, `{"a"}`, `01`, ``, `nul`, "\"\x01\"", `{"x":1} {}`, "\"\xff\"",
	}
	for _, r := range raws {
		checkSameJSON(t, "raw "+r, json.RawMessage(r))
		checkSameJSON(t, "raw in a map "+r, map[string]any{"v": json.RawMessage(r)})
	}
	values := map[string]any{
		"nil":             nil,
		"true":            true,
		"nil map":         map[string]any(nil),
		"nil raw map":     map[string]json.RawMessage(nil),
		"nil string map":  map[string]string(nil),
		"nil slice":       []any(nil),
		"nil strings":     []string(nil),
		"nil raw":         json.RawMessage(nil),
		"empty map":       map[string]any{},
		"empty strings":   []string{},
		"nested":          map[string]any{"b": []any{1.5, "x", nil, true, map[string]any{"z": 1, "a": 2}}, "a": map[string]string{"y": "<", "x": ""}},
		"raw map":         map[string]json.RawMessage{"b": json.RawMessage(`[ 1 ]`), "a": json.RawMessage(`{"k" : "&"}`)},
		"strings":         []string{"a", "<b>", ""},
		"sorted keys":     map[string]any{"b": 1, "a": 2, "B": 3, "ä": 4, "": 5, "aa": 6},
		"implementation":  Implementation{Name: "n<", Version: "1", Icons: []Icon{{Src: "s", Sizes: []string{"48x48"}}}},
		"list params":     listParams{meta: json.RawMessage(`{"a": 1}`)},
		"encoded params":  encodedParams(`{"x" :1}`),
		"nil marshaler":   (*RPCError)(nil),
		"nil implementer": (*Implementation)(nil),
	}
	for name, v := range values {
		checkSameJSON(t, name, v)
	}
}

// The types the package sends, each against encoding/json's reflection on
// the same struct (writeJSON is unexported: json.Marshal does not see it).
func TestWriteJSONTypesMatchEncodingJSON(t *testing.T) {
	total := 3
	for name, v := range map[string]any{
		"message":             &jsonrpc.Message{JSONRPC: "2.0", ID: json.RawMessage(`"<id>"`), Method: "tools/call", Params: json.RawMessage(`{ "a" : "&" }`)},
		"message no id":       &jsonrpc.Message{JSONRPC: "2.0", Method: "notifications/initialized"},
		"answer":              &jsonrpc.Message{JSONRPC: "2.0", ID: json.RawMessage(`7`), Result: json.RawMessage(`{}`)},
		"error answer":        &jsonrpc.Message{JSONRPC: "2.0", ID: json.RawMessage(`7`), Error: &RPCError{Code: -32601, Message: "method not found: <x>"}},
		"error with data":     &RPCError{Code: 1, Message: "", Data: json.RawMessage(` {"d" : [1]} `)},
		"error bad data":      &RPCError{Code: 1, Message: "m", Data: json.RawMessage(`{`)},
		"elicit accept":       &ElicitResult{Action: "accept", Content: map[string]any{"n": 1.0, "s": "<", "b": false, "l": []any{"a"}, "r": json.RawMessage(`{"x": 1}`)}},
		"elicit decline":      &ElicitResult{Action: "decline"},
		"elicit empty":        &ElicitResult{Action: "accept", Content: map[string]any{}},
		"complete":            CompleteParams{Ref: CompleteRef{Type: "ref/prompt", Name: "p"}, Argument: CompleteArgument{Name: "a", Value: "<v"}},
		"complete uri":        CompleteParams{Ref: CompleteRef{Type: "ref/resource", URI: "file:///x"}, Argument: CompleteArgument{}, Context: &CompleteContext{Arguments: map[string]string{"b": "2", "a": "1"}}},
		"complete no context": CompleteParams{Context: &CompleteContext{}},
		"progress":            Progress{Progress: 0.5},
		"progress total":      Progress{Progress: 3, Total: 10, Message: "three & counting"},
		"progress NaN":        Progress{Progress: math.NaN()},
		"log":                 LogMessage{Level: "info", Data: json.RawMessage(`"x"`)},
		"log logger":          LogMessage{Level: "error", Logger: "db", Data: json.RawMessage(`{ "e" : 1 }`)},
		"log no data":         LogMessage{Level: "debug"},
		"in a map":            map[string]any{"r": &ElicitResult{Action: "cancel"}, "p": CompleteParams{}},
	} {
		checkSameJSON(t, name, v)
		total++
	}
	if total < 20 {
		t.Fatalf("only %d values checked", total)
	}
}

// A value writeJSON has no case for goes to encoding/json natively (an
// app's struct as a tool's arguments); the browser build refuses it
// (wasm/ops_test.go).
func TestWriteJSONOtherNatively(t *testing.T) {
	type args struct {
		City  string `json:"city"`
		Units string `json:"units,omitempty"`
	}
	checkSameJSON(t, "struct", args{City: "<Paris>"})
	checkSameJSON(t, "struct in params", map[string]any{"name": "weather", "arguments": args{City: "Oslo"}})
	checkSameJSON(t, "unsupported", map[string]any{"c": make(chan int)})
}

// jsontext.WriteCompact never writes part of a bad value, and its errors say why.
func TestWriteCompactRefusesBadJSON(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("prefix")
	err := jsontext.WriteCompact(&b, []byte(`{"a": }`), true)
	if err == nil || b.String() != "prefix" {
		t.Fatalf("got %v and %q", err, b.String())
	}
	if _, err := marshalJSON(math.Inf(1)); !errors.Is(err, jsontext.ErrUnsupportedValue) {
		t.Fatalf("infinity: %v", err)
	}
}

// FuzzJSONEncMatchesEncodingJSON holds writeJSON to encoding/json on any
// JSON text (as a json.RawMessage, and decoded into any), any string and
// any number.
func FuzzJSONEncMatchesEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,"<x>",null,true,{"b":1e-7}]}`), "s\u2028<", 1.5)
	f.Add([]byte(" [ \"\xff\" ] "), "\x00\xff", 1e21)
	f.Add([]byte(`"\u003c"`), "", -0.0)
	f.Fuzz(func(t *testing.T, data []byte, s string, x float64) {
		checkSameJSON(t, "raw", json.RawMessage(data))
		checkSameJSON(t, "string", s)
		checkSameJSON(t, "float", x)
		checkSameJSON(t, "float32", float32(x))
		var v any
		if json.Unmarshal(data, &v) == nil {
			checkSameJSON(t, "decoded", v)
		}
	})
}
