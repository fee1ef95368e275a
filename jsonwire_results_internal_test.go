package mcplive

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcplive/mcplive/internal/jsontext"
)

// The readers of jsonwire_results.go must read what encoding/json reads
// into the same types: the same values, an error where it errs.

// wireResultCases are results, notification params and answers a client
// reads: well-formed, odd (other cases, repeats, null, escapes) and of the
// wrong types.
var wireResultCases = []string{
	`{}`, `null`, `[]`, `"x"`, `1`, `true`,
	`{"content":[{"type":"text","text":"hi"}],"isError":false}`,
	` {"content":[ {"type":"text", "text":"a\nb \u00e9 \ud83d\ude00", "annotations":{"audience":["user","assistant"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"},"_meta":{"k":1}} ],"structuredContent":{"a":[1,2,{"b":null}]},"isError":true,"_meta":{"x":"y"}} `,
	`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"resource_link","uri":"file:///a","name":"a"},{"type":"resource","resource":{"uri":"u","mimeType":"text/plain","text":"t","_meta":null}},{"type":"resource","resource":{"uri":"b","blob":"AA=="}}]}`,
	`{"content":[null,{"type":"text"}]}`,
	`{"content":null,"structuredContent":null,"isError":null,"_meta":null}`,
	`{"content":[]}`,
	`{"content":{}}`,
	`{"content":"x"}`,
	`{"content":[1]}`,
	`{"content":[{"type":1}]}`,
	`{"content":[{"text":true}]}`,
	`{"content":[{"resource":"x"}]}`,
	`{"content":[{"resource":null,"annotations":null}]}`,
	`{"content":[{"resource":{"text":null,"blob":null}}]}`,
	`{"content":[{"resource":{"text":1}}]}`,
	`{"content":[{"annotations":{"priority":"high"}}]}`,
	`{"content":[{"annotations":{"priority":1e400}}]}`,
	`{"content":[{"annotations":{"priority":-0,"audience":null}}]}`,
	`{"content":[{"annotations":{"audience":[1]}}]}`,
	`{"content":[{"type":"text","text":"a"}],"content":[{"type":"image"}]}`,
	`{"CONTENT":[{"TYPE":"text","Text":"a"}],"IsError":true}`,
	`{"content":[{"type":"a","type":"b","resource":{"uri":"x"},"resource":{"mimeType":"m"}}]}`,
	`{"isError":"yes","content":[{"type":"after"}]}`,
	`{"structuredContent":[1,"2"]}`,
	`{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"hi"}},{"role":"assistant","content":{"type":"image","data":"x"}}]}`,
	`{"messages":[{"role":"user","content":null}]}`,
	`{"messages":[{"content":"x"}]}`,
	`{"messages":[null]}`,
	`{"messages":null,"description":null}`,
	`{"messages":{}}`,
	`{"messages":[{"role":1}]}`,
	`{"contents":[{"uri":"file:///a","mimeType":"text/plain","text":"t"},{"uri":"b","blob":"AA=="}],"_meta":{}}`,
	`{"contents":[{"uri":1}]}`,
	`{"contents":[null]}`,
	`{"contents":"x"}`,
	`{"completion":{"values":["a","b"],"total":10,"hasMore":true}}`,
	`{"completion":{"values":[],"total":null,"hasMore":null}}`,
	`{"completion":{"total":1.5}}`,
	`{"completion":{"total":1e2}}`,
	`{"completion":{"total":99999999999999999999}}`,
	`{"completion":{"total":-3}}`,
	`{"completion":{"values":[null,"x"]}}`,
	`{"completion":{"values":[1]}}`,
	`{"completion":null}`,
	`{"completion":[]}`,
	`{"progressToken":"t1","progress":50,"total":100,"message":"half"}`,
	`{"progressToken":7,"progress":0.25}`,
	`{"progressToken":null,"progress":null,"total":null,"message":null}`,
	`{"progressToken":{"a":1},"progress":"x"}`,
	`{"progress":1e400}`,
	`{"level":"info","logger":"l","data":{"a":[1]}}`,
	`{"level":"error","data":null}`,
	`{"level":5}`,
	`{"uri":"file:///a","requestId":3,"reason":"r"}`,
	`{"requestId":"a"}`,
	`{"requestId":null}`,
	`{"uri":1}`,
	`{"action":"accept","content":{"name":"n","age":30,"ok":true,"tags":["a",1,null],"nested":{"x":{}},"none":null}}`,
	`{"action":"decline"}`,
	`{"action":"accept","content":null}`,
	`{"action":"accept","content":[]}`,
	`{"action":"accept","content":{"n":1e400}}`,
	`{"action":"accept","content":{"a":1,"a":2,"A":3}}`,
	`{"Action":"cancel","CONTENT":{"k":"\ud800 lone"}}`,
	`{"action":1}`,
	`{"arguments":{"a":"1","b":"2"}}`,
	`{"arguments":{"a":null,"a":"x","b":""}}`,
	`{"arguments":{"a":1}}`,
	`{"arguments":null}`,
	`{"arguments":[]}`,
	`{"params":{"arguments":{"k":"v"}}}`,
	`{"params":null}`,
	`{"params":{"arguments":null}}`,
	`{"params":"x"}`,
	"{\"content\":[{\"type\":\"text\",\"text\":\"bad utf-8: \xff\xfe, cut: \xe2\x82\"}]}",
	`{"content":[{"type":"text","text":"\ud800\u0041 broken pair, \u0000 nul, \/ slash"}]}`,
}

// contentRef is Content as it read itself with encoding/json before the
// hand reader: its fields by reflection, then Raw.
type contentRef Content

func (c *contentRef) UnmarshalJSON(b []byte) error {
	type plain Content
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	c.Raw = append(json.RawMessage(nil), b...)
	return nil
}

type callToolResultRef struct {
	Content           []contentRef    `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
}

type getPromptResultRef struct {
	Description string `json:"description,omitempty"`
	Messages    []struct {
		Role    string     `json:"role"`
		Content contentRef `json:"content"`
	} `json:"messages"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

type elicitResultPlain ElicitResult

func contents(cs []contentRef) []Content {
	if cs == nil {
		return nil
	}
	out := make([]Content, len(cs))
	for i, c := range cs {
		out[i] = Content(c)
	}
	return out
}

func checkResultDecoders(t *testing.T, in string) {
	t.Helper()
	checkDecoderVia(t, "decodeResult(CallToolResult)", in, func(b []byte, r *CallToolResult) error { return decodeResult(b, r) }, func(b []byte, r *CallToolResult) error {
		var p callToolResultRef
		err := json.Unmarshal(b, &p)
		*r = CallToolResult{Content: contents(p.Content), StructuredContent: p.StructuredContent, IsError: p.IsError, Meta: p.Meta}
		return err
	})
	checkDecoderVia(t, "decodeResult(GetPromptResult)", in, func(b []byte, r *GetPromptResult) error { return decodeResult(b, r) }, func(b []byte, r *GetPromptResult) error {
		var p getPromptResultRef
		err := json.Unmarshal(b, &p)
		*r = GetPromptResult{Description: p.Description, Meta: p.Meta}
		if p.Messages != nil {
			r.Messages = make([]PromptMessage, len(p.Messages))
			for i, m := range p.Messages {
				r.Messages[i] = PromptMessage{Role: m.Role, Content: Content(m.Content)}
			}
		}
		return err
	})
	checkDecoder(t, "decodeResult(ReadResourceResult)", in, func(b []byte, r *ReadResourceResult) error { return decodeResult(b, r) })
	checkDecoder(t, "decodeResult(CompleteResult)", in, func(b []byte, r *CompleteResult) error { return decodeResult(b, r) })
	checkDecoderVia(t, "Content.UnmarshalJSON", in, func(b []byte, c *Content) error { return c.UnmarshalJSON(b) }, func(b []byte, c *Content) error {
		return (*contentRef)(c).UnmarshalJSON(b)
	})
	checkDecoderVia(t, "ElicitResult.UnmarshalJSON", in, func(b []byte, r *ElicitResult) error { return r.UnmarshalJSON(b) }, func(b []byte, r *ElicitResult) error {
		return json.Unmarshal(b, (*elicitResultPlain)(r))
	})
	type progressParams struct {
		Token json.RawMessage `json:"progressToken"`
		Progress
	}
	checkDecoder(t, "decodeProgress", in, func(b []byte, p *progressParams) error { return decodeProgress(b, &p.Token, &p.Progress) })
	checkDecoder(t, "decodeLogMessage", in, decodeLogMessage)
	checkDecoder(t, "decodeRawMap", in, decodeRawMap)
	checkDecoder(t, "decodeAny", in, func(b []byte, v *any) error {
		if err := jsontext.Check(b); err != nil {
			return err
		}
		x, err := decodeAny(bytes.TrimSpace(b)) // a value as the scanner hands it over
		*v = x
		return err
	})
	type uriParams struct {
		URI string `json:"uri"`
	}
	checkDecoder(t, "jsontext.Decode(uri)", in, func(b []byte, p *uriParams) error {
		return jsontext.Decode(b, "params", []jsontext.Field{{Name: "uri", Dst: &p.URI}})
	})
	type cancelParams struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	checkDecoder(t, "jsontext.Decode(requestId)", in, func(b []byte, p *cancelParams) error {
		return jsontext.Decode(b, "params", []jsontext.Field{{Name: "requestId", Dst: &p.RequestID}})
	})
	type argsParams struct {
		Arguments map[string]string `json:"arguments"`
		Params    struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	checkDecoder(t, "jsontext.Decode(arguments)", in, func(b []byte, p *argsParams) error {
		return jsontext.Decode(b, "args", []jsontext.Field{{Name: "arguments", Dst: &p.Arguments}, {Name: "params", Dst: func(v []byte) error {
			return jsontext.DecodeFields(v, "params", []jsontext.Field{{Name: "arguments", Dst: &p.Params.Arguments}})
		}}})
	})
	type numbers struct {
		Total    int     `json:"total"`
		Priority float64 `json:"priority"`
	}
	checkDecoder(t, "jsontext.Decode(numbers)", in, func(b []byte, n *numbers) error {
		return jsontext.Decode(b, "numbers", []jsontext.Field{{Name: "total", Dst: &n.Total}, {Name: "priority", Dst: &n.Priority}})
	})
}

func TestWireResultDecodersMatchEncodingJSON(t *testing.T) {
	for _, in := range wireResultCases {
		checkResultDecoders(t, in)
	}
	for _, in := range wireDecodeCases {
		checkResultDecoders(t, in)
	}
}

// A content block keeps its bytes as sent: checked explicitly, so that a
// change of both readers cannot pass unseen.
func TestWireContentKeepsItsBytes(t *testing.T) {
	var r CallToolResult
	in := `{"content":[ {"type":"text" , "text":"a"} ,null]}`
	if err := decodeResult([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 2 || string(r.Content[0].Raw) != `{"type":"text" , "text":"a"}` || r.Content[0].Text != "a" || string(r.Content[1].Raw) != "null" {
		t.Fatalf("content = %#v", r.Content)
	}
	if err := decodeResult([]byte(`{"content":[{"type":1}]}`), &r); err == nil {
		t.Fatal("a type of the wrong JSON type: no error")
	}
}

// paramValue reads a string argument as encoding/json unquotes it.
func TestParamValueStringsMatchEncodingJSON(t *testing.T) {
	for _, s := range append(wireStrings, `"`, `\`) {
		tok, _ := json.Marshal(s)
		var want string
		if err := json.Unmarshal(tok, &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := paramValue(tok); !ok || got != encodeHeaderValue(want) {
			t.Fatalf("paramValue(%s) = %q, %v; want %q", tok, got, ok, encodeHeaderValue(want))
		}
	}
	for _, bad := range []string{`"unterminated`, `"a"b"`, `"\x"`} {
		if got, ok := paramValue([]byte(bad)); ok {
			t.Fatalf("paramValue(%s) = %q: want none", bad, got)
		}
	}
}

// FuzzWireResultsMatchEncodingJSON compares the readers of results,
// notification params and answers with encoding/json on any valid JSON.
func FuzzWireResultsMatchEncodingJSON(f *testing.F) {
	for _, in := range wireResultCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if json.Valid([]byte(in)) {
			checkResultDecoders(t, in)
		}
	})
}
