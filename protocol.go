package mcplive

// ProtocolVersion is the MCP revision this client speaks first.
const ProtocolVersion = "2025-11-25"

// supportedVersions are the revisions a server may answer with.
var supportedVersions = []string{ProtocolVersion, "2025-06-18", "2025-03-26"}

// Method and notification names, as the spec spells them.
const (
	methodInitialize       = "initialize"
	methodPing             = "ping"
	methodListTools        = "tools/list"
	methodCallTool         = "tools/call"
	methodListPrompts      = "prompts/list"
	methodGetPrompt        = "prompts/get"
	methodListResources    = "resources/list"
	methodListTemplates    = "resources/templates/list"
	methodReadResource     = "resources/read"
	methodSubscribe        = "resources/subscribe"
	methodUnsubscribe      = "resources/unsubscribe"
	methodComplete         = "completion/complete"
	methodSetLevel         = "logging/setLevel"
	notifyInitialized      = "notifications/initialized"
	notifyCancelled        = "notifications/cancelled"
	notifyProgress         = "notifications/progress"
	notifyMessage          = "notifications/message"
	notifyResourceUpdated  = "notifications/resources/updated"
	notifyToolsChanged     = "notifications/tools/list_changed"
	notifyPromptsChanged   = "notifications/prompts/list_changed"
	notifyResourcesChanged = "notifications/resources/list_changed"
)
