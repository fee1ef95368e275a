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

// firstModernVersion is the first revision of the modern era, the one
// versions are compared with (revisions are dates): over Streamable HTTP
// the first without sessions and the GET stream, and with the Mcp-Method
// and Mcp-Name headers (http.go). Today it is ModernVersion; a newer
// revision would move ModernVersion, not this.
const firstModernVersion = ModernVersion

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
