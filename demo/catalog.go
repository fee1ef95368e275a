package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// access says who may see a tool or prompt, besides its minimum role.
type access int

const (
	accessPublic    access = iota // every connection
	accessAnonymous               // only connections not logged in (login)
	accessLoggedIn                // only logged-in connections
)

var accessNames = [...]string{accessPublic: "public", accessAnonymous: "anonymous", accessLoggedIn: "loggedIn"}

func (a access) MarshalText() ([]byte, error) { return []byte(accessNames[a]), nil }

func (a *access) UnmarshalText(b []byte) error {
	for i, name := range accessNames {
		if string(b) == name {
			*a = access(i)
			return nil
		}
	}
	return fmt.Errorf("unknown access %q", b)
}

// toolDef is one tool of the catalog. Its fixed fields never change after
// creation; enabled is guarded by demo.mu.
type toolDef struct {
	name        string
	description string
	access      access
	minRole     role
	extra       bool // added through the control API
	// register adds the tool, bound to one connection, to that
	// connection's server.
	register func(srv *mcp.Server, d *demo, s *session)

	enabled bool
}

// promptDef is one prompt template of the catalog.
type promptDef struct {
	prompt  mcp.Prompt // template for each connection's copy
	access  access
	minRole role
	render  func(d *demo, args map[string]string) (string, error)

	enabled bool
}

// resourceDef is one resource; online and text are guarded by demo.mu.
type resourceDef struct {
	name        string // key in the control API
	uri         string
	title       string
	description string
	mimeType    string
	dynamic     func() string // content computed at read time, if set
	churn       bool          // -churn may take it offline

	online bool
	text   string
}

// templateDef is one resource template; online is guarded by demo.mu.
type templateDef struct {
	name        string
	uriTemplate string
	prefix      string // URIs it serves start with prefix
	title       string
	description string
	mimeType    string
	read        func(param string) (string, error)
	churn       bool // -churn may take it offline

	online bool
}

// newTool declares a typed tool: h builds the handler for one connection.
func newTool[In, Out any](name, description string, acc access, minRole role,
	h func(d *demo, s *session) mcp.ToolHandlerFor[In, Out]) *toolDef {
	return &toolDef{
		name: name, description: description, access: acc, minRole: minRole, enabled: true,
		register: func(srv *mcp.Server, d *demo, s *session) {
			mcp.AddTool(srv, &mcp.Tool{Name: name, Description: description}, h(d, s))
		},
	}
}

// newExtraTool declares a tool added through the control API: it reports
// its name and arguments back.
func newExtraTool(name, description string) *toolDef {
	if description == "" {
		description = "An extra tool added through the control API; it returns its arguments."
	}
	return &toolDef{
		name: name, description: description, access: accessPublic, extra: true, enabled: true,
		register: func(srv *mcp.Server, d *demo, s *session) {
			srv.AddTool(&mcp.Tool{
				Name:        name,
				Description: description,
				InputSchema: map[string]any{"type": "object"},
			}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				args := string(req.Params.Arguments)
				if args == "" {
					args = "{}"
				}
				return textResult(fmt.Sprintf("%s called with %s", name, args)), nil
			})
		},
	}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func errorResult(text string) *mcp.CallToolResult {
	r := textResult(text)
	r.IsError = true
	return r
}

type (
	textIn struct {
		Text string `json:"text" jsonschema:"the text"`
	}
	addIn struct {
		A float64 `json:"a" jsonschema:"the first number"`
		B float64 `json:"b" jsonschema:"the second number"`
	}
	addOut struct {
		Sum float64 `json:"sum"`
	}
	loginIn struct {
		User     string `json:"user" jsonschema:"user name: alice or bob"`
		Password string `json:"password" jsonschema:"password: wonderland for alice, builder for bob"`
	}
	whoamiOut struct {
		Connection string `json:"connection"`
		User       string `json:"user,omitempty"`
		LoggedIn   bool   `json:"loggedIn"`
		Role       string `json:"role" jsonschema:"viewer, editor or admin"`
	}
	searchIn struct {
		Query string `json:"query" jsonschema:"words to look for, case-insensitive"`
	}
	searchHit struct {
		URI  string `json:"uri"`
		Line string `json:"line"`
	}
	searchOut struct {
		Hits []searchHit `json:"hits"`
	}
	countOut struct {
		Words      int `json:"words"`
		Characters int `json:"characters"`
		Lines      int `json:"lines"`
	}
	randomIn struct {
		Min int `json:"min,omitempty" jsonschema:"smallest value (default 1)"`
		Max int `json:"max,omitempty" jsonschema:"largest value (default 100)"`
	}
	noteIn struct {
		Text   string `json:"text" jsonschema:"the new text of the scratch note"`
		Append bool   `json:"append,omitempty" jsonschema:"append instead of replacing"`
	}
	statsOut struct {
		Connections int    `json:"connections"`
		Uptime      string `json:"uptime"`
		Tools       int    `json:"tools"`
		Prompts     int    `json:"prompts"`
		Resources   int    `json:"resourcesOnline"`
	}
)

// builtinTools returns the demo's tools in a fresh catalog.
func builtinTools() []*toolDef {
	return []*toolDef{
		newTool("echo", "Returns its text unchanged.", accessPublic, roleViewer,
			func(*demo, *session) mcp.ToolHandlerFor[textIn, any] {
				return func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
					return textResult(in.Text), nil, nil
				}
			}),
		newTool("add", "Adds two numbers.", accessPublic, roleViewer,
			func(*demo, *session) mcp.ToolHandlerFor[addIn, addOut] {
				return func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
					sum := in.A + in.B
					return textResult(strconv.FormatFloat(sum, 'g', -1, 64)), addOut{Sum: sum}, nil
				}
			}),
		newTool("now", "Returns the server's current time (UTC, RFC 3339).", accessPublic, roleViewer,
			func(*demo, *session) mcp.ToolHandlerFor[struct{}, any] {
				return func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					return textResult(time.Now().UTC().Format(time.RFC3339)), nil, nil
				}
			}),
		newTool("whoami", "Tells this connection's id (for the control API), user and role.", accessPublic, roleViewer,
			func(d *demo, s *session) mcp.ToolHandlerFor[struct{}, whoamiOut] {
				return func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, whoamiOut, error) {
					d.mu.Lock()
					out := whoamiOut{Connection: s.id, User: s.user, LoggedIn: s.user != "", Role: s.role.String()}
					d.mu.Unlock()
					return nil, out, nil
				}
			}),
		newTool("login", "Logs this connection in and unlocks more tools for it. Demo accounts: alice/wonderland, bob/builder.",
			accessAnonymous, roleViewer,
			func(d *demo, s *session) mcp.ToolHandlerFor[loginIn, any] {
				return func(ctx context.Context, req *mcp.CallToolRequest, in loginIn) (*mcp.CallToolResult, any, error) {
					if s.shared {
						return errorResult("this connection is shared: over Streamable HTTP with MCP 2026-07-28 every request stands alone, " +
							"so a login needs a connection key in the URL (/mcp?conn=<random>) to stick; or connect with ?token=alice-token"), nil, nil
					}
					if !checkLogin(in.User, in.Password) {
						d.log.Info("login refused", "conn", s.id, "user", in.User)
						return errorResult("wrong user name or password"), nil, nil
					}
					d.setUser(s, in.User)
					notifyLog(ctx, req, "logged in as "+in.User)
					return textResult("Logged in as " + in.User + ": more tools are available now."), nil, nil
				}
			}),
		newTool("logout", "Logs this connection out; the tools that login unlocked go away.", accessLoggedIn, roleViewer,
			func(d *demo, s *session) mcp.ToolHandlerFor[struct{}, any] {
				return func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
					d.setUser(s, "")
					notifyLog(ctx, req, "logged out")
					return textResult("Logged out."), nil, nil
				}
			}),
		newTool("search", "Searches the text of the online demo resources; returns the matching lines.", accessLoggedIn, roleViewer,
			func(d *demo, _ *session) mcp.ToolHandlerFor[searchIn, searchOut] {
				return func(_ context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, searchOut, error) {
					hits := d.search(in.Query)
					var b strings.Builder
					fmt.Fprintf(&b, "%d matching lines for %q", len(hits), in.Query)
					for _, h := range hits {
						fmt.Fprintf(&b, "\n%s: %s", h.URI, h.Line)
					}
					return textResult(b.String()), searchOut{Hits: hits}, nil
				}
			}),
		newTool("word_count", "Counts the words, characters and lines of a text.", accessLoggedIn, roleViewer,
			func(*demo, *session) mcp.ToolHandlerFor[textIn, countOut] {
				return func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, countOut, error) {
					out := countOut{Words: len(strings.Fields(in.Text)), Characters: utf8.RuneCountInString(in.Text)}
					if in.Text != "" {
						out.Lines = strings.Count(in.Text, "\n") + 1
					}
					return nil, out, nil
				}
			}),
		newTool("uppercase", "Returns the text in upper case.", accessLoggedIn, roleViewer,
			func(*demo, *session) mcp.ToolHandlerFor[textIn, any] {
				return func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
					return textResult(strings.ToUpper(in.Text)), nil, nil
				}
			}),
		newTool("random_number", "Returns a random integer between min and max (inclusive).", accessLoggedIn, roleViewer,
			func(*demo, *session) mcp.ToolHandlerFor[randomIn, any] {
				return func(_ context.Context, _ *mcp.CallToolRequest, in randomIn) (*mcp.CallToolResult, any, error) {
					if in.Min == 0 && in.Max == 0 {
						in.Min, in.Max = 1, 100
					}
					if in.Max < in.Min {
						return errorResult(fmt.Sprintf("max (%d) is smaller than min (%d)", in.Max, in.Min)), nil, nil
					}
					return textResult(strconv.Itoa(in.Min + rand.IntN(in.Max-in.Min+1))), nil, nil
				}
			}),
		newTool("write_note", "Replaces (or appends to) the scratch note demo://notes/scratch; subscribers get resources/updated. Editors and admins.",
			accessPublic, roleEditor,
			func(d *demo, s *session) mcp.ToolHandlerFor[noteIn, any] {
				return func(ctx context.Context, req *mcp.CallToolRequest, in noteIn) (*mcp.CallToolResult, any, error) {
					text := in.Text
					if in.Append {
						d.mu.Lock()
						text = d.resourceByName["note"].text + in.Text
						d.mu.Unlock()
					}
					if err := d.setContent("note", text, s.id); err != nil {
						return errorResult(err.Error()), nil, nil
					}
					notifyLog(ctx, req, "scratch note updated")
					return textResult(fmt.Sprintf("The scratch note now has %d characters.", utf8.RuneCountInString(text))), nil, nil
				}
			}),
		newTool("server_stats", "Reports the demo server's connections, uptime and catalog sizes. Admins only.",
			accessPublic, roleAdmin,
			func(d *demo, _ *session) mcp.ToolHandlerFor[struct{}, statsOut] {
				return func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, statsOut, error) {
					return nil, d.stats(), nil
				}
			}),
		newTool("list_connections", "Lists the connections (id, user, role), as the control API does. Admins only.",
			accessPublic, roleAdmin,
			func(d *demo, _ *session) mcp.ToolHandlerFor[struct{}, connectionsOut] {
				return func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, connectionsOut, error) {
					return nil, d.connectionsOut(), nil
				}
			}),
	}
}

// notifyLog sends a notifications/message to the calling client (if it
// asked for logs with logging/setLevel).
func notifyLog(ctx context.Context, req *mcp.CallToolRequest, msg string) {
	if req == nil || req.Session == nil {
		return
	}
	_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "demo", Data: msg})
}

// builtinPrompts returns the demo's prompt templates.
func builtinPrompts() []*promptDef {
	arg := func(name, desc string, required bool) *mcp.PromptArgument {
		return &mcp.PromptArgument{Name: name, Description: desc, Required: required}
	}
	return []*promptDef{
		{
			prompt: mcp.Prompt{Name: "summarize", Title: "Summarize a text", Description: "Asks for a summary of a text.",
				Arguments: []*mcp.PromptArgument{arg("text", "the text to summarize", true), arg("length", "short, medium or long (default short)", false)}},
			render: func(_ *demo, a map[string]string) (string, error) {
				length := a["length"]
				if length == "" {
					length = "short"
				}
				return fmt.Sprintf("Write a %s summary of the following text:\n\n%s", length, a["text"]), nil
			},
		},
		{
			prompt: mcp.Prompt{Name: "translate", Title: "Translate a text", Description: "Asks for a translation.",
				Arguments: []*mcp.PromptArgument{arg("text", "the text to translate", true), arg("language", "the target language", true)}},
			render: func(_ *demo, a map[string]string) (string, error) {
				return fmt.Sprintf("Translate the following text into %s:\n\n%s", a["language"], a["text"]), nil
			},
		},
		{
			prompt: mcp.Prompt{Name: "explain_code", Title: "Explain code", Description: "Asks for an explanation of a piece of code. Logged-in connections.",
				Arguments: []*mcp.PromptArgument{arg("code", "the code", true), arg("language", "its programming language", false)}},
			access: accessLoggedIn,
			render: func(_ *demo, a map[string]string) (string, error) {
				lang := a["language"]
				if lang == "" {
					lang = "code"
				}
				return fmt.Sprintf("Explain what this %s does, step by step:\n\n```\n%s\n```", lang, a["code"]), nil
			},
		},
		{
			prompt: mcp.Prompt{Name: "review_note", Title: "Review the scratch note", Description: "Asks for a review of the scratch note. Editors and admins.",
				Arguments: []*mcp.PromptArgument{arg("focus", "what to focus on (default clarity)", false)}},
			minRole: roleEditor,
			render: func(d *demo, a map[string]string) (string, error) {
				focus := a["focus"]
				if focus == "" {
					focus = "clarity"
				}
				d.mu.Lock()
				note := d.resourceByName["note"].text
				d.mu.Unlock()
				return fmt.Sprintf("Review this note, focusing on %s:\n\n%s", focus, note), nil
			},
		},
		{
			prompt: mcp.Prompt{Name: "incident_report", Title: "Draft an incident report", Description: "Drafts an incident report. Admins only.",
				Arguments: []*mcp.PromptArgument{arg("service", "the affected service", true), arg("severity", "low, medium, high or critical", false)}},
			minRole: roleAdmin,
			render: func(_ *demo, a map[string]string) (string, error) {
				sev := a["severity"]
				if sev == "" {
					sev = "medium"
				}
				return fmt.Sprintf("Draft an incident report for the %s service (severity %s): timeline, impact, root cause, follow-ups.", a["service"], sev), nil
			},
		},
	}
}

// register adds the prompt to one connection's server.
func (p *promptDef) register(srv *mcp.Server, d *demo) {
	pr := p.prompt // each server gets its own copy
	srv.AddPrompt(&pr, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args := req.Params.Arguments
		for _, a := range pr.Arguments {
			if a.Required && strings.TrimSpace(args[a.Name]) == "" {
				return nil, fmt.Errorf("prompt %s: missing required argument %q", pr.Name, a.Name)
			}
		}
		text, err := p.render(d, args)
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{
			Description: pr.Description,
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
		}, nil
	})
}

// builtinResources returns the demo's resources.
func builtinResources() []*resourceDef {
	doc := func(name, title, desc, text string, online bool) *resourceDef {
		return &resourceDef{name: name, uri: "demo://docs/" + name, title: title, description: desc,
			mimeType: "text/markdown", churn: true, online: online, text: text}
	}
	return []*resourceDef{
		doc("readme", "About this demo", "What the demo shows and how to drive it.", docReadme, true),
		doc("mcp", "What is MCP", "The Model Context Protocol in a few lines.", docMCP, true),
		doc("websocket", "MCP over WebSocket", "The conventions this demo's transport follows.", docWebSocket, true),
		doc("changelog", "Changelog", "Starts offline: bring it online through the control API.", docChangelog, false),
		{name: "note", uri: "demo://notes/scratch", title: "Scratch note", description: "Editable with write_note or the control API; subscribe to see resources/updated.",
			mimeType: "text/plain", online: true, text: "Nothing written yet."},
		{name: "clock", uri: "demo://status/clock", title: "Server clock", description: "The server's time; with -churn, subscribers get resources/updated on every tick.",
			mimeType: "text/plain", online: true, dynamic: func() string { return time.Now().UTC().Format(time.RFC3339Nano) }},
	}
}

// builtinTemplates returns the demo's resource templates.
func builtinTemplates() []*templateDef {
	return []*templateDef{
		{name: "greeting", uriTemplate: "demo://greetings/{name}", prefix: "demo://greetings/", title: "Greeting",
			description: "A greeting for anyone.", mimeType: "text/plain", online: true,
			read: func(name string) (string, error) {
				if name == "" {
					return "", fmt.Errorf("empty name")
				}
				return "Hello, " + name + "!", nil
			}},
		{name: "square", uriTemplate: "demo://math/square/{n}", prefix: "demo://math/square/", title: "Square of a number",
			description: "The square of the integer n.", mimeType: "text/plain", online: true, churn: true,
			read: func(s string) (string, error) {
				n, err := strconv.ParseInt(s, 10, 32)
				if err != nil {
					return "", fmt.Errorf("not an integer: %q", s)
				}
				return strconv.FormatInt(n*n, 10), nil
			}},
	}
}

// register adds the resource to one connection's server.
func (r *resourceDef) register(srv *mcp.Server, d *demo) {
	srv.AddResource(&mcp.Resource{URI: r.uri, Name: r.name, Title: r.title, Description: r.description, MIMEType: r.mimeType},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			text, ok := d.content(r)
			if !ok {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.uri, MIMEType: r.mimeType, Text: text}}}, nil
		})
}

// register adds the template to one connection's server.
func (t *templateDef) register(srv *mcp.Server, d *demo) {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: t.uriTemplate, Name: t.name, Title: t.title, Description: t.description, MIMEType: t.mimeType},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uri := req.Params.URI
			param, ok := strings.CutPrefix(uri, t.prefix)
			d.mu.Lock()
			online := t.online
			d.mu.Unlock()
			if !ok || !online {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			text, err := t.read(param)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", uri, err)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: t.mimeType, Text: text}}}, nil
		})
}

// complete suggests prompt argument and template parameter values.
func (d *demo) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var values []string
	switch req.Params.Argument.Name {
	case "language":
		values = []string{"English", "French", "German", "Italian", "Japanese", "Spanish", "Go", "JavaScript", "Python", "Rust"}
	case "length":
		values = []string{"short", "medium", "long"}
	case "severity":
		values = []string{"low", "medium", "high", "critical"}
	case "name":
		values = []string{"alice", "bob", "world"}
	}
	prefix := strings.ToLower(req.Params.Argument.Value)
	var out []string
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), prefix) {
			out = append(out, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: out, Total: len(out)}}, nil
}

const docReadme = `# mcplive demo

This server shows, live, the four situations in which MCP lists change:

1. Authentication: call the login tool (alice/wonderland, bob/builder) or connect with ?token=alice-token.
2. Configuration: an admin enables and disables tools and prompts for everyone.
3. Resource availability: resources and templates go online and offline; subscribed resources get updates.
4. Permissions: an admin changes a connection's role (viewer, editor, admin).
`

const docMCP = `# What is MCP

The Model Context Protocol lets applications offer tools, prompts and resources to language models.
A client lists them, and a server announces changes with notifications such as
notifications/tools/list_changed, after which the client lists again.
`

const docWebSocket = `# MCP over WebSocket

WebSocket is not a transport of the MCP specification yet. The convention: subprotocol mcp,
one JSON-RPC message per text frame, no batches. Browsers cannot set headers on a WebSocket,
so credentials travel in the URL.
`

const docChangelog = `# Changelog

- 0.1.0: first demo, with live tools, prompts, resources and resource templates.
`
