package mcplive

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcplive/mcplive/internal/jsonrpc"
	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/methods"
)

// The hand-written readers and writers of jsonwire.go must do what
// encoding/json does with the same input: the same value (or an error
// where it errs), and the same bytes.

// wireDecodeCases are results and errors a server may send: well-formed,
// odd (other cases, repeats, null, escapes) and of the wrong types.
var wireDecodeCases = []string{
	`{}`,
	`null`,
	` {"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"prompts":{},"resources":{"subscribe":true,"listChanged":false},"logging":{},"completions":{"x":1},"tasks":null,"experimental":{"a":[1,2]}},"serverInfo":{"name":"s","title":"T","version":"1.0","description":"d","websiteUrl":"https://x","icons":[{"src":"https://i","mimeType":"image/png","sizes":["48x48","any"],"theme":"dark"},{"src":"data:,"}]},"instructions":"line\nnext \"q\" \u00e9 \ud83d\ude00"} `,
	`{"ProtocolVersion":"2025-06-18","CAPABILITIES":{"Tools":{"LISTCHANGED":true}},"serverinfo":{"NAME":"n","Version":"v"}}`,
	`{"protocolVersion":"a","protocolVersion":"b"}`,
	`{"capabilities":{"tools":{"listChanged":true}},"capabilities":{"tools":{}}}`,
	`{"capabilities":{"tools":{"listChanged":true}},"capabilities":{"tools":null}}`,
	`{"serverInfo":{"icons":[{"src":"a","theme":"t"},{"src":"b"}]},"serverInfo":{"icons":[{"src":"c"}]}}`,
	`{"serverInfo":{"icons":[{"sizes":["a","b"]}]},"serverInfo":{"icons":[{"sizes":[null,"c"]}]}}`,
	`{"serverInfo":{"icons":[]}}`,
	`{"serverInfo":{"icons":null}}`,
	`{"serverInfo":{"icons":[null,{"src":"x"}]}}`,
	`{"serverInfo":null,"capabilities":null,"instructions":null,"protocolVersion":null}`,
	`{"capabilities":{"logging":null}}`,
	`{"protocolVersion":1}`,
	`{"protocolVersion":true}`,
	`{"capabilities":[]}`,
	`{"capabilities":"x"}`,
	`{"capabilities":{"tools":5}}`,
	`{"capabilities":{"tools":{"listChanged":"yes"}},"protocolVersion":"after"}`,
	`{"capabilities":{"resources":{"subscribe":1}}}`,
	`{"serverInfo":{"icons":{}}}`,
	`{"serverInfo":{"icons":[1]}}`,
	`{"serverInfo":{"icons":[{"sizes":"a"}]}}`,
	`{"serverInfo":{"icons":[{"sizes":[1]}]}}`,
	`{"serverInfo":"s"}`,
	`[]`,
	`"x"`,
	`1`,
	`{"instructions":"\ud800 lone, \udc00 low, \ud800\u0041 broken pair, \u0000 nul, \/ slash"}`,
	"{\"instructions\":\"bad utf-8: \xff\xfe, cut: \xe2\x82\"}",
	`{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{"listChanged":true}},"instructions":"i","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"m","version":"2"},"other":1}}`,
	`{"supportedVersions":[],"_meta":null}`,
	`{"supportedVersions":null}`,
	`{"supportedVersions":"2026-07-28"}`,
	`{"supportedVersions":[1]}`,
	`{"_meta":{"io.modelcontextprotocol/serverInfo":3}}`,
	`{"_meta":[]}`,
	`{"code":-32601,"message":"Method not found","data":{"x":[1]}}`,
	`{"code":-32601,"message":"m","data":null}`,
	`{"CODE":1,"Message":"m","DATA":"d"}`,
	`{"code":1.5,"message":"m"}`,
	`{"code":1e3}`,
	`{"code":-0}`,
	`{"code":99999999999999999999}`,
	`{"code":"1"}`,
	`{"message":7}`,
	`{"code":null,"message":null}`,
	`{"supported":["2025-11-25"],"requested":"2026-07-28"}`,
	`{"supported":"x"}`,
	`{"supported":[null,"a"]}`,
	`{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["a","b"],"x":null},"_meta":{"io.modelcontextprotocol/subscriptionId":"7"}}`,
	`{"notifications":{"a":1,"a":2,"A":3},"notifications":{"b":true},"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`,
	`{"notifications":null,"_meta":null}`,
	`{"notifications":[]}`,
	`{"notifications":{},"_META":{"IO.modelcontextprotocol/SubscriptionId":null}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`,
	`{"jsonrpc":"2.0","error":{"code":0,"message":""}}`,
	`{"jsonrpc":"1.0","error":{"code":1,"message":"m"}}`,
	`{"jsonrpc":"2.0","error":{"code":"x","message":"m"}}`,
	`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	`{"jsonrpc":"2.0","id":null,"method":"resources/read","params":{"uri":"file:///x","NAME":""}}`,
	`{"jsonrpc":"2.0","method":5}`,
	`{"name":5,"uri":"u","_meta":{"io.modelcontextprotocol/protocolVersion":1}}`,
}

// jsonRPCErrorBodyJSON and parseOutgoingJSON are jsonRPCErrorBody and
// parseOutgoing as they were with encoding/json.
func jsonRPCErrorBodyJSON(body []byte) json.RawMessage {
	var v struct {
		JSONRPC string          `json:"jsonrpc"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil || v.JSONRPC != "2.0" || len(v.Error) == 0 || v.Error[0] != '{' {
		return nil
	}
	var e RPCError
	if json.Unmarshal(v.Error, &e) != nil || e.Message == "" && e.Code == 0 {
		return nil
	}
	return v.Error
}

func parseOutgoingJSON(msg []byte) (jsonrpc.Outgoing, error) {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(msg, &env); err != nil {
		return jsonrpc.Outgoing{}, err
	}
	m := jsonrpc.Outgoing{Method: env.Method}
	if env.Method != "" && len(env.ID) > 0 && string(env.ID) != "null" {
		m.ID = env.ID
	}
	if len(env.Params) > 0 && env.Params[0] == '{' {
		var p struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
			Meta struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal(env.Params, &p)
		m.Version = p.Meta.Version
		m.Name = p.Name
		if m.Name == "" {
			m.Name = p.URI
		}
	}
	return m, nil
}

// checkDecoder runs decode and json.Unmarshal into fresh values of T on
// in, and fails unless both err or neither does and, then, the values
// are the same.
func checkDecoder[T any](t *testing.T, name, in string, decode func([]byte, *T) error) {
	t.Helper()
	checkDecoderVia(t, name, in, decode, func(b []byte, v *T) error { return json.Unmarshal(b, v) })
}

// checkDecoderVia is checkDecoder with reference, which must read with
// encoding/json's own reflection.
func checkDecoderVia[T any](t *testing.T, name, in string, decode, reference func([]byte, *T) error) {
	t.Helper()
	var got, want T
	errGot := decode([]byte(in), &got)
	errWant := reference([]byte(in), &want)
	if (errGot != nil) != (errWant != nil) {
		t.Fatalf("%s(%s): error %v, encoding/json: %v", name, in, errGot, errWant)
	}
	if errWant == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s(%s):\n got  %#v\n want %#v", name, in, got, want)
	}
}

// implementationPlain, initializeResultPlain and discoverResultPlain are
// Implementation, InitializeResult and discoverResult without methods:
// what encoding/json reads with its reflection.
type implementationPlain Implementation

type initializeResultPlain struct {
	ProtocolVersion string              `json:"protocolVersion"`
	Capabilities    ServerCapabilities  `json:"capabilities"`
	ServerInfo      implementationPlain `json:"serverInfo"`
	Instructions    string              `json:"instructions,omitempty"`
}

type discoverResultPlain struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions"`
	Meta              struct {
		ServerInfo implementationPlain `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
}

// supportedData is the data of an UnsupportedProtocolVersion error, as
// supportedOf reads it.
type supportedData struct {
	Supported []string `json:"supported"`
}

func checkWireDecoders(t *testing.T, in string) {
	t.Helper()
	// Implementation has an UnmarshalJSON of its own (the hand reader):
	// the references read into copies of the types without it.
	checkDecoderVia(t, "decodeInitializeResult", in, decodeInitializeResult, func(b []byte, r *InitializeResult) error {
		var p initializeResultPlain
		err := json.Unmarshal(b, &p)
		*r = InitializeResult{ProtocolVersion: p.ProtocolVersion, Capabilities: p.Capabilities, ServerInfo: Implementation(p.ServerInfo), Instructions: p.Instructions}
		return err
	})
	checkDecoderVia(t, "decodeDiscoverResult", in, decodeDiscoverResult, func(b []byte, r *discoverResult) error {
		var p discoverResultPlain
		err := json.Unmarshal(b, &p)
		*r = discoverResult{SupportedVersions: p.SupportedVersions, Capabilities: p.Capabilities, Instructions: p.Instructions}
		r.Meta.ServerInfo = Implementation(p.Meta.ServerInfo)
		return err
	})
	checkDecoderVia(t, "Implementation.UnmarshalJSON", in, func(b []byte, im *Implementation) error { return im.UnmarshalJSON(b) }, func(b []byte, im *Implementation) error {
		return json.Unmarshal(b, (*implementationPlain)(im))
	})
	checkDecoder(t, "decodeAckParams", in, decodeAckParams)
	checkDecoder(t, "decodeRPCError", in, func(b []byte, e *RPCError) error {
		if err := jsontext.Check(b); err != nil {
			return err
		}
		return jsonrpc.DecodeError(b[jsontext.SkipWS(b, 0):], e)
	})
	if got, want := jsonRPCErrorBody([]byte(in)), jsonRPCErrorBodyJSON([]byte(in)); string(got) != string(want) {
		t.Fatalf("jsonRPCErrorBody(%s) = %s, with encoding/json: %s", in, got, want)
	}
	for _, msg := range []string{in, `{"jsonrpc":"2.0","id":1,"method":"m","params":` + in + `}`} {
		got, errGot := parseOutgoing([]byte(msg))
		want, errWant := parseOutgoingJSON([]byte(msg))
		if (errGot != nil) != (errWant != nil) || errWant == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("parseOutgoing(%s) = %#v, %v; with encoding/json: %#v, %v", msg, got, errGot, want, errWant)
		}
	}
	// supportedOf and Capabilities ignore errors: they give what
	// encoding/json gives when it does not err, and nothing when it does.
	var sd supportedData
	if json.Unmarshal([]byte(in), &sd) != nil {
		sd.Supported = nil
	}
	if got := supportedOf(&RPCError{Data: json.RawMessage(in)}); !reflect.DeepEqual(got, sd.Supported) {
		t.Fatalf("supportedOf(%s) = %#v, encoding/json: %#v", in, got, sd.Supported)
	}
}

func TestWireDecodersMatchEncodingJSON(t *testing.T) {
	for _, in := range wireDecodeCases {
		checkWireDecoders(t, in)
	}
}

// The merge of a repeated member, as encoding/json does it: checked
// explicitly, so that a change of both cannot pass unseen.
func TestWireDecodersRepeatedMembers(t *testing.T) {
	var r InitializeResult
	if err := decodeInitializeResult([]byte(`{"capabilities":{"tools":{"listChanged":true}},"capabilities":{"tools":{}},"serverInfo":{"icons":[{"src":"a","theme":"t"}]},"serverInfo":{"icons":[{"src":"c"}]}}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Capabilities.Tools == nil || !r.Capabilities.Tools.ListChanged {
		t.Fatalf("tools capability %+v: a repeated object must merge into the first", r.Capabilities.Tools)
	}
	if len(r.ServerInfo.Icons) != 1 || !reflect.DeepEqual(r.ServerInfo.Icons[0], Icon{Src: "c", Theme: "t"}) {
		t.Fatalf("icons %+v: a repeated array reuses the elements of the first", r.ServerInfo.Icons)
	}
}

func TestClientCapabilitiesMatchesEncodingJSON(t *testing.T) {
	for _, in := range wireDecodeCases {
		var want struct {
			Capabilities json.RawMessage `json:"capabilities"`
		}
		if json.Unmarshal([]byte(in), &want) != nil {
			want.Capabilities = nil
		}
		got := capabilitiesOf(json.RawMessage(in))
		if string(got) != string(want.Capabilities) {
			t.Fatalf("capabilitiesOf(%s) = %s, encoding/json: %s", in, got, want.Capabilities)
		}
	}
}

// wireStrings are strings that JSON escapes one way or another.
var wireStrings = []string{"", "plain", `q"b\s/`, "<a&b>", "é ✓ 😀", "\x00\x01\n\r\t\b\f\x7f", "\u2028\u2029", "bad \xff\xfe utf-8", "\xe2\x82"}

func TestWireEncodersMatchEncodingJSON(t *testing.T) {
	impls := []Implementation{
		{},
		{Name: "mcplive", Version: "0"},
		{Name: "n", Title: "t", Version: "v", Description: "d", WebsiteURL: "https://x", Icons: []Icon{{Src: "s"}, {Src: "a", MIMEType: "m", Sizes: []string{"1x1", "any"}, Theme: "light"}}},
		{Name: "n", Icons: []Icon{}},
		{Name: "n", Icons: []Icon{{Sizes: []string{}}}},
	}
	for _, s := range wireStrings {
		impls = append(impls, Implementation{Name: s, Title: s, Version: s, Description: s, WebsiteURL: s, Icons: []Icon{{Src: s, MIMEType: s, Sizes: []string{s, s}, Theme: s}}})
	}
	for _, im := range impls {
		checkWireEncoders(t, im, "2025-11-25", "debug")
	}
	for _, s := range wireStrings {
		checkWireEncoders(t, Implementation{Name: "n"}, s, s)
	}
}

func checkWireEncoders(t *testing.T, im Implementation, version, logLevel string) {
	t.Helper()
	// Implementation has its own MarshalJSON now: encoding/json's own
	// encoding is that of a type with the same fields and no methods.
	type plain Implementation
	want, err := json.Marshal(plain(im))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := im.MarshalJSON()
	if string(got) != string(want) {
		t.Fatalf("MarshalJSON(%#v) = %s, encoding/json: %s", im, got, want)
	}
	if viaJSON, _ := json.Marshal(im); string(viaJSON) != string(want) {
		t.Fatalf("json.Marshal(%#v) = %s, want %s", im, viaJSON, want)
	}
	for _, elicit := range []bool{false, true} {
		o := &Options{ClientInfo: im}
		if elicit {
			o.OnElicit = func(context.Context, *ElicitRequest) (*ElicitResult, error) { return nil, nil }
		}
		// What the client declares: elicitation (form mode) with a handler.
		caps := map[string]any{}
		if elicit {
			caps["elicitation"] = map[string]any{"form": map[string]any{}}
		}
		params, _ := json.Marshal(map[string]any{
			"protocolVersion": version,
			"capabilities":    caps,
			"clientInfo":      plain(im),
		})
		if got := o.initializeParams(version); string(got) != string(params) {
			t.Fatalf("initializeParams = %s, encoding/json: %s", got, params)
		}
		for _, level := range []string{"", logLevel} {
			m := map[string]any{
				metaProtocolVersion:    version,
				metaClientCapabilities: caps,
				metaClientInfo:         plain(im),
			}
			if level != "" {
				m[metaLogLevel] = level
			}
			meta, _ := json.Marshal(m)
			if got := o.modernMeta(version, level); string(got) != string(meta) {
				t.Fatalf("modernMeta = %s, encoding/json: %s", got, meta)
			}
		}
	}
}

func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, s := range append(wireStrings, `\u00e9\/\"`, "\\ud83d\\ude00", "\\ud800", "\\udc00x", "\\ud800\\u0041", "\\ud800\\ud800\\udc00", `\uD83D\uDE00`, "a\\u00") {
		checkUnquote(t, []byte(`"`+s+`"`))
		q, _ := json.Marshal(s)
		checkUnquote(t, q)
	}
}

func checkUnquote(t *testing.T, tok []byte) {
	t.Helper()
	var want string
	if json.Unmarshal(tok, &want) != nil {
		return // not a string token: jsontext.Unquote is only given valid ones
	}
	if got := jsontext.Unquote(tok); got != want {
		t.Fatalf("jsontext.Unquote(%q) = %q, encoding/json: %q", tok, got, want)
	}
}

// FuzzWireMatchesEncodingJSON compares the readers with encoding/json on
// any valid JSON, and jsontext.Unquote on any string token.
func FuzzWireMatchesEncodingJSON(f *testing.F) {
	for _, in := range wireDecodeCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if json.Valid([]byte(in)) {
			checkWireDecoders(t, in)
			if i := jsontext.SkipWS([]byte(in), 0); in[i] == '"' {
				checkUnquote(t, []byte(strings.TrimSpace(in)))
			}
		} else if utf8.ValidString(in) {
			checkUnquote(t, []byte(`"`+in+`"`))
		}
	})
}

// FuzzWireEncodersMatchEncodingJSON compares the writers with
// encoding/json for any strings.
func FuzzWireEncodersMatchEncodingJSON(f *testing.F) {
	for _, s := range wireStrings {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkWireEncoders(t, Implementation{Name: a, Title: b, Version: a, Icons: []Icon{{Src: b, Sizes: []string{a}}}}, a, b)
	})
}

func TestListenParamsMatchEncodingJSON(t *testing.T) {
	filters := []map[string]any{
		{},
		{"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": false},
		{"resourceSubscriptions": []string{"file:///a<b>&c", "é ✓", "\xff"}, "toolsListChanged": true},
		{"resourceSubscriptions": []string(nil)},
		{"odd": map[string]any{"x": 1}},
	}
	for _, f := range filters {
		for _, meta := range []json.RawMessage{nil, json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)} {
			m := map[string]any{"notifications": f}
			if meta != nil {
				m["_meta"] = meta
			}
			want, _ := json.Marshal(m)
			got, err := listenParams{filter: f, meta: meta}.MarshalJSON()
			if err != nil || string(got) != string(want) {
				t.Fatalf("listenParams(%v) = %s, %v; encoding/json: %s", f, got, err, want)
			}
			msg, _ := jsonrpc.MarshalMessage(nil, methods.Listen, listenParams{filter: f, meta: meta}, marshalJSON)
			if !strings.Contains(string(msg), `"params":`+string(want)+"}") {
				t.Fatalf("MarshalMessage: %s, want params %s", msg, want)
			}
		}
	}
	for _, raw := range []string{`["a","b"]`, `null`, `[1,"x"]`, `"x"`, ` ["a"] `} {
		var want []string
		_ = json.Unmarshal([]byte(raw), &want)
		if got := (listenFilter{"resourceSubscriptions": json.RawMessage(raw)}).uris(); !reflect.DeepEqual(got, want) {
			t.Fatalf("uris(%s) = %#v, encoding/json: %#v", raw, got, want)
		}
	}
}
