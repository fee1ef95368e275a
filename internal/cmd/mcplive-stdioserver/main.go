// Command mcplive-stdioserver is an official go-sdk MCP server over stdio,
// for the tests of mcplive-bridge (cmd/mcplive-bridge) and of the JS
// package through it: its tools change its own lists (list_changed), update
// a subscribed resource, report progress, log, ask the user (elicitation),
// and misbehave on request (exit mid-call, write garbage, never answer,
// flood), each in its own process.
//
// Tools:
//
//	echo {text}            answers text
//	add_tool {name}        adds a tool named name (tools/list_changed)
//	remove_tool {name}     removes it
//	bump {}                changes test://counter (resources/updated to subscribers)
//	slow {}                sends two progress notifications and a log message, then answers
//	ask {}                 asks the user (elicitation/create; in 2026-07-28 an input request) and answers with the reply as JSON
//	crash {}               writes "crashing on purpose" on stderr and exits with status 3
//	garbage {}             writes a line that is not JSON on stdout
//	hang {}                never answers (writes "hang started" on stderr, and "hang cancelled" when cancelled)
//	flood {count}          sends count log messages as fast as it can, then answers
//
// With -stderr-lines N it writes N lines on stderr at start; with -legacy it
// speaks the revisions before 2026-07-28 only.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type nameArgs struct {
	Name string `json:"name"`
}

type textArgs struct {
	Text string `json:"text"`
}

type countArgs struct {
	Count int `json:"count"`
}

type empty struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	lines := flag.Int("stderr-lines", 0, "lines to write on stderr at start")
	legacy := flag.Bool("legacy", false, "speak the revisions before 2026-07-28 only")
	flag.Parse()
	var versions []string
	if *legacy {
		for _, v := range mcp.SupportedProtocolVersions() {
			if v < "2026-07-28" {
				versions = append(versions, v)
			}
		}
	}
	for i := range *lines {
		fmt.Fprintf(os.Stderr, "stderr line %d\n", i)
	}
	var mu sync.Mutex
	counter := 0
	var srv *mcp.Server
	srv = mcp.NewServer(&mcp.Implementation{Name: "mcplive-stdioserver", Version: "1.0.0"}, &mcp.ServerOptions{
		SubscribeHandler:          func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler:        func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		SupportedProtocolVersions: versions,
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "answers its text"}, func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
		return text(a.Text), nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "add_tool", Description: "adds a tool"}, func(ctx context.Context, req *mcp.CallToolRequest, a nameArgs) (*mcp.CallToolResult, any, error) {
		name := a.Name
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: "added at run time"}, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return text(name), nil, nil
		})
		return text("added " + name), nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "remove_tool", Description: "removes a tool"}, func(ctx context.Context, req *mcp.CallToolRequest, a nameArgs) (*mcp.CallToolResult, any, error) {
		srv.RemoveTools(a.Name)
		return text("removed " + a.Name), nil, nil
	})
	srv.AddResource(&mcp.Resource{URI: "test://counter", Name: "counter", MIMEType: "text/plain"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		mu.Lock()
		n := counter
		mu.Unlock()
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://counter", MIMEType: "text/plain", Text: strconv.Itoa(n)}}}, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "bump", Description: "changes test://counter"}, func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		counter++
		n := counter
		mu.Unlock()
		srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://counter"})
		return text(strconv.Itoa(n)), nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "slow", Description: "reports progress and logs"}, func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			for i := 1; i <= 2; i++ {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 2})
			}
		}
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "slow is done"})
		return text("done"), nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "ask", Description: "asks the user"}, func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
		params := &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}},
		}}
		if ip := req.Session.InitializeParams(); ip != nil && ip.ProtocolVersion >= "2026-07-28" {
			// 2026-07-28 has no server requests: the question is an
			// input request of the result (multi round-trip requests),
			// the answer comes with the call sent again.
			if res, ok := req.Params.InputResponses["name"]; ok {
				b, _ := json.Marshal(res)
				return text(string(b)), nil, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": params}}, nil, nil
		}
		res, err := req.Session.Elicit(ctx, params)
		if err != nil {
			return nil, nil, err
		}
		b, _ := json.Marshal(res)
		return text(string(b)), nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "crash", Description: "exits mid-call"}, func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "crashing on purpose")
		os.Exit(3)
		return nil, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "garbage", Description: "writes a line that is not JSON on stdout"}, func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
		os.Stdout.WriteString("this is not JSON\n")
		select {}
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "hang", Description: "never answers"}, func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "hang started")
		<-ctx.Done()
		fmt.Fprintln(os.Stderr, "hang cancelled")
		return nil, nil, ctx.Err()
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "flood", Description: "sends count log messages"}, func(ctx context.Context, req *mcp.CallToolRequest, a countArgs) (*mcp.CallToolResult, any, error) {
		for i := range a.Count {
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "flood " + strconv.Itoa(i)}); err != nil {
				return nil, nil, err
			}
		}
		return text("flooded"), nil, nil
	})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
}
