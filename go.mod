module github.com/mcplive/mcplive

go 1.26.8

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/hack-pad/safejs v0.1.0 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	go.uber.org/goleak v1.3.0 // indirect
)
