package mcplive

// Protocol revisions. A client tries ModernVersion first (server/discover)
// and falls back to initialize with ProtocolVersion when the server does not
// speak it; Options.ProtocolVersion pins one.
const (
	// ModernVersion is the current revision: no initialize, _meta on every
	// request, list changes only through subscriptions/listen.
	ModernVersion = "2026-07-28"
	// ProtocolVersion is the newest revision with an initialize handshake
	// (the "legacy" era), the one this client asks for in initialize.
	ProtocolVersion = "2025-11-25"
)

// supportedVersions are the legacy revisions a server may answer
// initialize with.
var supportedVersions = []string{ProtocolVersion, "2025-06-18", "2025-03-26"}

// modernVersions are the modern revisions this client speaks.
var modernVersions = []string{ModernVersion}

// _meta keys of the modern era.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// Error codes of the modern era.
const (
	CodeHeaderMismatch             = -32020
	CodeMissingClientCapability    = -32021
	CodeUnsupportedProtocolVersion = -32022
)
