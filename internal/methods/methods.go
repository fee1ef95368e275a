// Package methods names the MCP methods and notifications as the
// specification spells them. The root package speaks them and its wasm
// binding names them in its errors: one spelling for both.
package methods

const (
	Initialize             = "initialize"
	Ping                   = "ping"
	ListTools              = "tools/list"
	CallTool               = "tools/call"
	ListPrompts            = "prompts/list"
	GetPrompt              = "prompts/get"
	ListResources          = "resources/list"
	ListTemplates          = "resources/templates/list"
	ReadResource           = "resources/read"
	Subscribe              = "resources/subscribe"
	Unsubscribe            = "resources/unsubscribe"
	Complete               = "completion/complete"
	SetLevel               = "logging/setLevel"
	Discover               = "server/discover"
	Listen                 = "subscriptions/listen"
	NotifyAcknowledged     = "notifications/subscriptions/acknowledged"
	NotifyInitialized      = "notifications/initialized"
	NotifyCancelled        = "notifications/cancelled"
	NotifyProgress         = "notifications/progress"
	NotifyMessage          = "notifications/message"
	NotifyResourceUpdated  = "notifications/resources/updated"
	NotifyToolsChanged     = "notifications/tools/list_changed"
	NotifyPromptsChanged   = "notifications/prompts/list_changed"
	NotifyResourcesChanged = "notifications/resources/list_changed"
)
