package mcplive

import (
	"github.com/mcplive/mcplive/internal/jsontext"
)

// Implementation describes an MCP client or server (schema "Implementation").
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is a sized icon a user interface may show. Src is an https: or data: URL
// in well-behaved servers; callers that render it must check the scheme.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Annotations are hints about a resource or content block.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// ToolAnnotations are hints about a tool's behaviour. They are hints only: a
// client must not trust them from an untrusted server.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// RawMessage is encoding/json's RawMessage: the same type (an alias), in
// every build a Go program makes. Only the npm package's wasm, built with
// GOOS=js and the tag mcplive_rawitems, has a []byte type of its own in its
// place, with the same JSON behaviour (internal/jsontext, rawmessage_own.go),
// so that encoding/json stays out of that wasm.
type RawMessage = jsontext.RawMessage

// ToolExecution holds execution-related properties of a tool.
type ToolExecution struct {
	TaskSupport string `json:"taskSupport,omitempty"`
}

// Tool is one entry of tools/list. Raw holds the exact JSON the server sent,
// so fields this package does not model still reach the caller.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  RawMessage       `json:"inputSchema,omitempty"`
	OutputSchema RawMessage       `json:"outputSchema,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Execution    *ToolExecution   `json:"execution,omitempty"`
	Meta         RawMessage       `json:"_meta,omitempty"`
	Raw          RawMessage       `json:"-"`

	note any // what a transport read of it (transport.go, noteSlots)
}

// PromptArgument describes one argument of a prompt template.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Prompt is one entry of prompts/list.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        RawMessage       `json:"_meta,omitempty"`
	Raw         RawMessage       `json:"-"`
}

// Resource is one entry of resources/list.
type Resource struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        RawMessage   `json:"_meta,omitempty"`
	Raw         RawMessage   `json:"-"`
}

// ResourceTemplate is one entry of resources/templates/list.
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        RawMessage   `json:"_meta,omitempty"`
	Raw         RawMessage   `json:"-"`
}

// Key returns the tool's name, its identity within the list.
func (t Tool) Key() string { return t.Name }

// Key returns the prompt's name, its identity within the list.
func (p Prompt) Key() string { return p.Name }

// Key returns the resource's URI, its identity within the list.
func (r Resource) Key() string { return r.URI }

// Key returns the template's URI template, its identity within the list.
func (r ResourceTemplate) Key() string { return r.URITemplate }

// RawJSON returns the item exactly as the server sent it.
func (t Tool) RawJSON() RawMessage { return t.Raw }

// RawJSON returns the item exactly as the server sent it.
func (p Prompt) RawJSON() RawMessage { return p.Raw }

// RawJSON returns the item exactly as the server sent it.
func (r Resource) RawJSON() RawMessage { return r.Raw }

// RawJSON returns the item exactly as the server sent it.
func (r ResourceTemplate) RawJSON() RawMessage { return r.Raw }

// setRaw is called once per decoded item (a re-list reuses unchanged ones).
func (t *Tool) setRaw(raw RawMessage)             { t.Raw = raw }
func (p *Prompt) setRaw(raw RawMessage)           { p.Raw = raw }
func (r *Resource) setRaw(raw RawMessage)         { r.Raw = raw }
func (r *ResourceTemplate) setRaw(raw RawMessage) { r.Raw = raw }

// Content is one content block (text, image, audio, resource_link or
// resource). Only the fields of its Type are set; Raw has the block as sent.
type Content struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	Data        string            `json:"data,omitempty"` // base64, image and audio
	MIMEType    string            `json:"mimeType,omitempty"`
	URI         string            `json:"uri,omitempty"`  // resource_link
	Name        string            `json:"name,omitempty"` // resource_link
	Resource    *ResourceContents `json:"resource,omitempty"`
	Annotations *Annotations      `json:"annotations,omitempty"`
	Meta        RawMessage        `json:"_meta,omitempty"`
	Raw         RawMessage        `json:"-"`
}

// ResourceContents is the content of a resource: Text for text resources,
// Blob (base64) for binary ones.
type ResourceContents struct {
	URI      string     `json:"uri"`
	MIMEType string     `json:"mimeType,omitempty"`
	Text     *string    `json:"text,omitempty"`
	Blob     *string    `json:"blob,omitempty"`
	Meta     RawMessage `json:"_meta,omitempty"`
}

// CallToolResult is the result of tools/call. A tool that failed reports
// IsError with the reason in Content; that is not a Go error.
type CallToolResult struct {
	Content           []Content  `json:"content"`
	StructuredContent RawMessage `json:"structuredContent,omitempty"`
	IsError           bool       `json:"isError,omitempty"`
	Meta              RawMessage `json:"_meta,omitempty"`
	Raw               RawMessage `json:"-"`
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Meta        RawMessage      `json:"_meta,omitempty"`
	Raw         RawMessage      `json:"-"`
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	Contents []ResourceContents `json:"contents"`
	Meta     RawMessage         `json:"_meta,omitempty"`
	Raw      RawMessage         `json:"-"`
	// Retried reports a result of a retried request (inputResponses,
	// requestState: 2026-07-28), which must never be cached.
	Retried bool `json:"-"`
}

// CompleteParams are the params of completion/complete. Ref is
// {"type":"ref/prompt","name":…} or {"type":"ref/resource","uri":…}.
type CompleteParams struct {
	Ref      CompleteRef      `json:"ref"`
	Argument CompleteArgument `json:"argument"`
	Context  *CompleteContext `json:"context,omitempty"`
}

// CompleteRef names the prompt or resource template being completed.
type CompleteRef struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being completed and its partial value.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext carries the values of arguments already resolved.
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteResult is the result of completion/complete.
type CompleteResult struct {
	Completion struct {
		Values  []string `json:"values"`
		Total   *int     `json:"total,omitempty"`
		HasMore bool     `json:"hasMore,omitempty"`
	} `json:"completion"`
	Raw RawMessage `json:"-"`
}

// ServerCapabilities are what the server declared in its initialize result.
type ServerCapabilities struct {
	Tools        *ListCapability     `json:"tools,omitempty"`
	Prompts      *ListCapability     `json:"prompts,omitempty"`
	Resources    *ResourceCapability `json:"resources,omitempty"`
	Logging      RawMessage          `json:"logging,omitempty"`
	Completions  RawMessage          `json:"completions,omitempty"`
	Tasks        RawMessage          `json:"tasks,omitempty"`
	Experimental RawMessage          `json:"experimental,omitempty"`
}

// ListCapability is the tools or prompts capability.
type ListCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourceCapability is the resources capability.
type ResourceCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
	Subscribe   bool `json:"subscribe,omitempty"`
}

// InitializeResult is the server's answer to initialize. Raw has it as sent.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
	Raw             RawMessage         `json:"-"`
}

// Progress is one notifications/progress for a request.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"` // 0 when unknown
	Message  string  `json:"message,omitempty"`
}

// LogMessage is one notifications/message from the server.
type LogMessage struct {
	Level  string     `json:"level"`
	Logger string     `json:"logger,omitempty"`
	Data   RawMessage `json:"data"`
}
