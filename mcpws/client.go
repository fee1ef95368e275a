package mcpws

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultDialTimeout bounds a [ClientTransport] handshake when
// ClientTransport.DialTimeout is zero.
const DefaultDialTimeout = 10 * time.Second

// ClientTransport is an [mcp.Transport] that dials an MCP WebSocket endpoint
// such as a [Handler], for a go-sdk [mcp.Client]:
//
//	cs, err := client.Connect(ctx, &mcpws.ClientTransport{URL: "ws://127.0.0.1:8080/mcp"}, nil)
//
// It offers the subprotocol "mcp" and accepts a server that selects none.
type ClientTransport struct {
	// URL is the endpoint, ws:// or wss:// (http:// and https:// work too).
	URL string
	// DialOptions are passed to [websocket.Dial]; nil means defaults.
	// Subprotocols defaults to ["mcp"]. Set HTTPHeader["Origin"] to act
	// as a browser page.
	DialOptions *websocket.DialOptions
	// ReadLimit is the largest message accepted from the server, in bytes:
	// 0 means [DefaultReadLimit], a negative value means no limit.
	ReadLimit int64
	// DialTimeout bounds the handshake; 0 means [DefaultDialTimeout].
	DialTimeout time.Duration
}

// Connect implements [mcp.Transport]: it dials URL. The context bounds the
// handshake only.
func (t *ClientTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	if t.URL == "" {
		return nil, errors.New("mcpws: ClientTransport.URL is empty")
	}
	var opts websocket.DialOptions
	if t.DialOptions != nil {
		opts = *t.DialOptions
	}
	if len(opts.Subprotocols) == 0 {
		opts.Subprotocols = []string{Subprotocol}
	}
	timeout := t.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ws, resp, err := websocket.Dial(dctx, t.URL, &opts)
	if err != nil {
		if resp != nil && resp.StatusCode != 0 {
			return nil, fmt.Errorf("mcpws: dial %s: HTTP %s: %w", t.URL, resp.Status, err)
		}
		return nil, fmt.Errorf("mcpws: dial %s: %w", t.URL, err)
	}
	return newConn(ws, t.ReadLimit, ""), nil
}
