//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/mcplive/mcplive"

	"github.com/mcplive/mcplive/internal/jsontext"
)

// The arguments JS sends to an operation are read with the root
// package's readers (internal/wire), not encoding/json: they must read
// what encoding/json reads into the same fields, and refuse what it
// refuses, with an error of the arguments (a TypeError in JS).
func TestOpArgumentsMatchEncodingJSON(t *testing.T) {
	cases := []string{
		`{}`, `null`, `[]`, `"x"`,
		`{"params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"v"}}}`,
		`{"params":{"ref":{"type":"ref/resource","uri":"file:///{x}"},"argument":{"name":"x","value":""},"context":{"arguments":{"a":"1","b":"2"}}}}`,
		`{"params":{"context":null}}`,
		`{"params":{"context":{"arguments":null}}}`,
		`{"params":{"context":{"arguments":{"a":1}}}}`,
		`{"params":{"ref":"x"}}`,
		`{"params":{"argument":{"value":7}}}`,
		`{"PARAMS":{"Ref":{"TYPE":"t"},"ref":{"name":"n"}}}`,
		`{"params":null}`,
		`{"params":[]}`,
		`{"name":"echo","arguments":{"text":"hi","n":[1,{"a":null}]}}`,
		`{"name":"echo","arguments":null}`,
		`{"name":1}`,
		`{"name":"p","arguments":{"a":"1","a":"2","b":null}}`,
		`{"name":"p","arguments":"x"}`,
		`{"uri":"file:///a","level":"debug","kind":"tools","id":3}`,
		`{"id":1.5}`,
		`{"id":"3"}`,
		`{"kind":null,"uri":null,"level":null,"id":null}`,
	}
	for _, in := range cases {
		var got, want mcplive.CompleteParams
		errGot := (&call{method: "complete", raw: []byte(in)}).args(jsontext.Field{Name: "params", Dst: completeParams(&got)})
		var ref struct {
			Params mcplive.CompleteParams `json:"params"`
		}
		errWant := json.Unmarshal([]byte(in), &ref)
		want = ref.Params
		check(t, "complete", in, got, want, errGot, errWant)

		type callArgs struct {
			Name      string             `json:"name"`
			Arguments mcplive.RawMessage `json:"arguments"`
		}
		var ca, caWant callArgs
		errGot = (&call{method: "tools/call", raw: []byte(in)}).args(jsontext.Field{Name: "name", Dst: &ca.Name}, jsontext.Field{Name: "arguments", Dst: &ca.Arguments})
		check(t, "callTool", in, ca, caWant, errGot, json.Unmarshal([]byte(in), &caWant))

		type promptArgs struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		}
		var pa, paWant promptArgs
		errGot = (&call{method: "prompts/get", raw: []byte(in)}).args(jsontext.Field{Name: "name", Dst: &pa.Name}, jsontext.Field{Name: "arguments", Dst: &pa.Arguments})
		check(t, "getPrompt", in, pa, paWant, errGot, json.Unmarshal([]byte(in), &paWant))

		type small struct {
			URI   string `json:"uri"`
			Level string `json:"level"`
			Kind  string `json:"kind"`
			ID    int    `json:"id"`
		}
		var sm, smWant small
		errGot = (&call{method: "small", raw: []byte(in)}).args(jsontext.Field{Name: "uri", Dst: &sm.URI}, jsontext.Field{Name: "level", Dst: &sm.Level},
			jsontext.Field{Name: "kind", Dst: &sm.Kind}, jsontext.Field{Name: "id", Dst: &sm.ID})
		check(t, "small", in, sm, smWant, errGot, json.Unmarshal([]byte(in), &smWant))
	}
}

func check[T any](t *testing.T, op, in string, got, want T, errGot, errWant error) {
	t.Helper()
	if (errGot != nil) != (errWant != nil) {
		t.Fatalf("%s(%s): error %v, encoding/json: %v", op, in, errGot, errWant)
	}
	if errGot != nil && !errors.Is(errGot, errArgs) {
		t.Fatalf("%s(%s): %v is not an error of the arguments", op, in, errGot)
	}
	if errWant == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s(%s):\n got  %#v\n want %#v", op, in, got, want)
	}
}
