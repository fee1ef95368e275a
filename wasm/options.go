//go:build js && wasm

package main

import (
	"encoding/json"
	"time"

	"github.com/mcplive/mcplive"
)

// jsOptions is the options object as the JS package sends it: flat, in
// milliseconds, already validated and normalised by JS (0 = default).
type jsOptions struct {
	ClientInfo              *mcplive.Implementation `json:"clientInfo"`
	ProtocolVersion         string                  `json:"protocolVersion"`
	Headers                 mcplive.Header          `json:"headers"` // Streamable HTTP only; JS sends canonical names
	RequestTimeoutMs        float64                 `json:"requestTimeoutMs"`
	DialTimeoutMs           float64                 `json:"dialTimeoutMs"`
	ReadLimit               int64                   `json:"readLimit"`
	MaxPages                int                     `json:"maxPages"`
	HeartbeatIntervalMs     float64                 `json:"heartbeatIntervalMs"` // < 0 disables
	HeartbeatTimeoutMs      float64                 `json:"heartbeatTimeoutMs"`
	Reconnect               *bool                   `json:"reconnect"`
	ReconnectInitialDelayMs float64                 `json:"reconnectInitialDelayMs"`
	ReconnectMaxDelayMs     float64                 `json:"reconnectMaxDelayMs"`
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func parseOptions(s string) (*mcplive.Options, mcplive.Header, error) {
	var o jsOptions
	if s != "" {
		if err := json.Unmarshal([]byte(s), &o); err != nil {
			return nil, nil, err
		}
	}
	opts := &mcplive.Options{
		// JS reads each item's raw JSON (lists.go): decoding it into Go
		// types as well would only cost time and memory.
		RawItems:          true,
		ProtocolVersion:   o.ProtocolVersion,
		RequestTimeout:    ms(o.RequestTimeoutMs),
		DialTimeout:       ms(o.DialTimeoutMs),
		ReadLimit:         o.ReadLimit,
		MaxPages:          o.MaxPages,
		HeartbeatInterval: ms(o.HeartbeatIntervalMs),
		HeartbeatTimeout:  ms(o.HeartbeatTimeoutMs),
		Reconnect: mcplive.ReconnectOptions{
			Disabled:     o.Reconnect != nil && !*o.Reconnect,
			InitialDelay: ms(o.ReconnectInitialDelayMs),
			MaxDelay:     ms(o.ReconnectMaxDelayMs),
		},
	}
	if o.HeartbeatIntervalMs < 0 {
		opts.HeartbeatInterval = -1
	}
	if o.ClientInfo != nil {
		opts.ClientInfo = *o.ClientInfo
	}
	return opts, o.Headers, nil
}
