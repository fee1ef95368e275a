package jsonrpc

import (
	"bytes"
	"errors"
	"strconv"
	"time"

	"github.com/mcplive/mcplive/internal/jsontext"
	"github.com/mcplive/mcplive/internal/printf"
)

// Message is any JSON-RPC 2.0 message as it travels.
type Message struct {
	JSONRPC string              `json:"jsonrpc"`
	ID      jsontext.RawMessage `json:"id,omitempty"`
	Method  string              `json:"method,omitempty"`
	Params  jsontext.RawMessage `json:"params,omitempty"`
	Result  jsontext.RawMessage `json:"result,omitempty"`
	Error   *RPCError           `json:"error,omitempty"`

	// Arrived is when the read loop got a notification, on Clock
	// (ArrivedAt). Not a time.Time: encoding/json reflects on this type,
	// and a time.Time among its fields would keep time's parser and
	// formatter (~60 KB) in the wasm through its methods.
	Arrived time.Duration `json:"-"`
	// Gap, set only on entries the read loop queues itself, says that
	// messages may have been missed here (EntryReader): the dispatcher hands
	// it to the handler of notifications like one.
	Gap bool `json:"-"`
	// Liveness, set only on entries the read loop queues itself, says
	// that the transport's pushes changed (EntryReader).
	Liveness bool `json:"-"`
	// Index is Result read in the envelope's pass, when it is an object
	// (see parseEnvelope); nil otherwise.
	Index *ResultIndex `json:"-"`
	// fail, set only on entries the read loop hands a pending request
	// itself, is why the request failed without a response (failPending).
	fail error `json:"-"`
}

// Kind classifies a decoded message.
type Kind int

const (
	KindRequest Kind = iota + 1
	KindNotification
	KindResponse
)

// Decode parses one JSON-RPC message and checks its shape. It never
// panics, whatever the input; every failure wraps ErrProtocol.
func Decode(data []byte) (*Message, Kind, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, 0, ProtocolError("empty message")
	}
	switch trimmed[0] {
	case '[':
		return nil, 0, ProtocolError("server sent a JSON-RPC batch (array), which MCP does not use: %s", jsontext.Snippet(data))
	case '{':
	default:
		return nil, 0, ProtocolError("message is not a JSON object: %s", jsontext.Snippet(data))
	}
	m, err := parseEnvelope(data)
	if err != nil {
		return nil, 0, ProtocolError("message is not valid JSON-RPC (%v): %s", err, jsontext.Snippet(data))
	}
	if m.JSONRPC != "2.0" {
		return nil, 0, ProtocolError(`message lacks "jsonrpc": "2.0": %s`, jsontext.Snippet(data))
	}
	if len(m.ID) > 0 {
		// The JSON is valid, so its first byte tells the type.
		switch m.ID[0] {
		case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		default:
			return nil, 0, ProtocolError("message id must be a string, a number or null: %s", jsontext.Snippet(data))
		}
	}
	hasID := len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null"))
	switch {
	case m.Method != "":
		if m.Result != nil || m.Error != nil {
			return nil, 0, ProtocolError("message has both a method and a result or error: %s", jsontext.Snippet(data))
		}
		if hasID {
			return m, KindRequest, nil
		}
		if len(m.ID) > 0 {
			return nil, 0, ProtocolError("request with a null id: %s", jsontext.Snippet(data))
		}
		return m, KindNotification, nil
	case m.Error != nil:
		if m.Result != nil {
			return nil, 0, ProtocolError("response has both a result and an error: %s", jsontext.Snippet(data))
		}
		return m, KindResponse, nil // the id may be null: see readLoop
	case m.Result != nil:
		if !hasID {
			return nil, 0, ProtocolError("response without an id: %s", jsontext.Snippet(data))
		}
		return m, KindResponse, nil
	default:
		return nil, 0, ProtocolError("message is neither a request, a notification nor a response: %s", jsontext.Snippet(data))
	}
}

// parseEnvelope validates data as one JSON object and picks the members of
// a JSON-RPC message out of it. The raw members (id, params, result) are
// sub-slices of data, which the caller owns and never reuses. Member names
// match exactly (encoding/json would also take "ID" for "id"); a repeated
// member keeps its last value, as with encoding/json.
//
// The one exception to the validation is a response's result: when it is
// an object, the same pass reads its members (IndexResult) and splits the
// arrays among them into their elements, without validating those; any
// other result is only passed over, every bound checked. Connection.CallWith
// validates what was not before its caller sees the result; a list walk
// (CallUnchecked) takes the index and validates only the items that it
// did not see before — an unchanged item is byte for byte one validated
// when it was new. In wasm, where a pass over a 26 KB page of a
// 10,000-tool list costs ~200 µs, a page is read once, not three times.
func parseEnvelope(data []byte) (*Message, error) {
	var m Message
	isObject, err := jsontext.ForEachMemberWith(data, func(b, key []byte, i int) (int, error) {
		if !jsontext.IsKey(key, "result") {
			return 0, nil
		}
		m.Index = nil
		if b[i] == '{' {
			if idx, end, err := IndexResult(b, i, 2); err == nil {
				m.Index = idx
				return end, nil
			}
		}
		return jsontext.SkipUnchecked(b, key, i)
	}, func(key string, val []byte) error {
		switch key {
		case "jsonrpc":
			if val[0] != '"' {
				return printf.Errorf(`"jsonrpc" is not a string`)
			}
			m.JSONRPC = jsontext.Unquote(val)
		case "id":
			m.ID = jsontext.RawMessage(val)
		case "method":
			switch val[0] {
			case '"':
				m.Method = jsontext.Unquote(val)
			case 'n':
				m.Method = ""
			default:
				return printf.Errorf(`"method" is not a string`)
			}
		case "params":
			m.Params = jsontext.RawMessage(val)
		case "result":
			m.Result = jsontext.RawMessage(val)
		case "error":
			m.Error = nil
			if val[0] == 'n' {
				return nil
			}
			var e RPCError
			if err := DecodeError(val, &e); err != nil {
				return printf.Errorf(`bad "error": %v`, err)
			}
			m.Error = &e
		}
		return nil
	})
	if err == nil && !isObject {
		err = errors.New("not a JSON object")
	}
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// ResultIndex is a result object as the envelope's pass read it: its
// members in order, each validated but for the elements of an array,
// which are split and not validated (see parseEnvelope).
type ResultIndex struct {
	Members []ResultMember
}

// ResultMember is one member of a result: its key token (with quotes),
// its value, and for an array its elements.
type ResultMember struct {
	Key, Val []byte
	Items    []jsontext.Ref
	Array    bool
}

// IndexResult reads the result object at b[i], at nesting depth depth:
// its index and its end, or why it is not valid as IndexResult checks it
// (in a message, the envelope then leaves the error to the result's
// reader).
func IndexResult(b []byte, i, depth int) (*ResultIndex, int, error) {
	idx := &ResultIndex{Members: make([]ResultMember, 0, 4)}
	end, err := jsontext.ScanObjectWith(b, i, depth, func(b, key []byte, i int) (int, error) {
		if b[i] != '[' {
			return 0, nil
		}
		// Room for one element per ~200 bytes that follow (a list page's
		// items are rarely smaller): one allocation, not one per doubling.
		items, end, ok := jsontext.SplitArrayAt(b, i, make([]jsontext.Ref, 0, (len(b)-i)/200+4))
		if !ok {
			return 0, nil // the scanner says what is wrong
		}
		idx.Members = append(idx.Members, ResultMember{Key: key, Val: b[i:end:end], Items: items, Array: true})
		return end, nil
	}, func(key, val []byte) error {
		if n := len(idx.Members); n == 0 || !idx.Members[n-1].Array || &idx.Members[n-1].Val[0] != &val[0] {
			idx.Members = append(idx.Members, ResultMember{Key: key, Val: val})
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return idx, end, nil
}

// validateResult validates what the envelope's pass did not of a
// response's result: the elements of its arrays, or all of it without an
// index.
func (m *Message) validateResult() error {
	if m.Index == nil {
		return jsontext.Check(m.Result)
	}
	for _, mem := range m.Index.Members {
		for _, it := range mem.Items {
			if err := jsontext.Check(it); err != nil {
				return err
			}
		}
	}
	return nil
}

// ParseID returns the integer id of a response, or false.
func ParseID(raw jsontext.RawMessage) (int64, bool) {
	id, err := strconv.ParseInt(string(raw), 10, 64)
	return id, err == nil
}

// Connection runs JSON-RPC 2.0 over a Conn: integer ids, pending requests
// matched by id, notifications handed to one dispatcher goroutine in arrival
// order, server requests answered (ping with {}, those of handlers by their

// Encode encodes a message the client sends. Unlike json.Marshal it
// does not escape <, > and & as \u003c, \u003e and \u0026, so an answer
// carries the server's request id byte for byte, as the server sent it
// (JSON says the two spellings are one string; a server that matches
// answers by the id's text would not find the escaped one).
func Encode(m *Message) ([]byte, error) {
	var buf bytes.Buffer
	if err := m.writeJSON(&buf, false); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MarshalMessage encodes a request (id set) or a notification: params
// that write themselves (ParamsWriter) as they write themselves, any other
// with marshal.
func MarshalMessage(id *int64, method string, params any, marshal func(any) ([]byte, error)) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0",`)
	if id != nil {
		buf.WriteString(`"id":`)
		buf.WriteString(strconv.FormatInt(*id, 10))
		buf.WriteByte(',')
	}
	buf.WriteString(`"method":`)
	jsontext.WriteString(&buf, method, true)
	switch p := params.(type) {
	case nil:
	case ParamsWriter:
		buf.WriteString(`,"params":`)
		if err := p.WriteParams(&buf); err != nil {
			return nil, printf.Errorf("mcplive: %s: encode params: %w", method, err)
		}
	default:
		pb, err := marshal(params)
		if err != nil {
			return nil, printf.Errorf("mcplive: %s: encode params: %w", method, err)
		}
		buf.WriteString(`,"params":`)
		buf.Write(pb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// ArrivedAt is when the read loop got m, on the package's one clock
// (clock).
func (m *Message) ArrivedAt() time.Time { return monoStart.Add(m.Arrived) }

// writeJSON writes m as json.Marshal writes the struct (esc true), or as
// an Encoder with SetEscapeHTML(false) does without its newline (esc
// false).
func (m *Message) writeJSON(b *bytes.Buffer, esc bool) error {
	b.WriteString(`{"jsonrpc":`)
	jsontext.WriteString(b, m.JSONRPC, esc)
	if err := writeRawField(b, `,"id":`, m.ID, esc); err != nil {
		return err
	}
	if m.Method != "" {
		b.WriteString(`,"method":`)
		jsontext.WriteString(b, m.Method, esc)
	}
	if err := writeRawField(b, `,"params":`, m.Params, esc); err != nil {
		return err
	}
	if err := writeRawField(b, `,"result":`, m.Result, esc); err != nil {
		return err
	}
	if m.Error != nil {
		b.WriteString(`,"error":`)
		if err := WriteError(b, m.Error, esc); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// WriteMessage writes m as json.Marshal writes it (esc: see writeJSON).
func WriteMessage(b *bytes.Buffer, m *Message, esc bool) error { return m.writeJSON(b, esc) }

// WriteError writes e as json.Marshal writes it (esc: see writeJSON).
func WriteError(b *bytes.Buffer, e *RPCError, esc bool) error {
	b.WriteString(`{"code":`)
	b.Write(strconv.AppendInt(b.AvailableBuffer(), e.Code, 10))
	b.WriteString(`,"message":`)
	jsontext.WriteString(b, e.Message, esc)
	if err := writeRawField(b, `,"data":`, e.Data, esc); err != nil {
		return err
	}
	b.WriteByte('}')
	return nil
}

// writeRawField writes an omitempty json.RawMessage field: name (with its
// comma and colon) and raw, or nothing when raw is empty.
func writeRawField(b *bytes.Buffer, name string, raw jsontext.RawMessage, esc bool) error {
	if len(raw) == 0 {
		return nil
	}
	b.WriteString(name)
	return jsontext.WriteCompact(b, raw, esc)
}

// DecodeError reads a JSON-RPC error object into e.
func DecodeError(val []byte, e *RPCError) error {
	return jsontext.DecodeFields(val, "RPCError", []jsontext.Field{{Name: "code", Dst: &e.Code}, {Name: "message", Dst: &e.Message}, {Name: "data", Dst: &e.Data}})
}
