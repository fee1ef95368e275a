package mcplive

import (
	"github.com/mcplive/mcplive/internal/methods"
)

// Kind names one of the four lists a server may offer.
type Kind string

// The four list kinds.
const (
	KindTools             Kind = "tools"
	KindPrompts           Kind = "prompts"
	KindResources         Kind = "resources"
	KindResourceTemplates Kind = "resourceTemplates"
)

// Kinds lists every kind, in a fixed order.
var Kinds = []Kind{KindTools, KindPrompts, KindResources, KindResourceTemplates}

// kindSpec is everything this package knows about one kind of list, in one
// place: how to list it, how to read its pages, what identifies an item,
// whether a server offers it, and which notification invalidates it.
type kindSpec struct {
	kind         Kind
	method       string // the list method
	field        string // the items' member in a page
	key          string // the member that identifies an item, for error texts
	capability   string // the capability that offers it, for error texts
	offered      func(ServerCapabilities) bool
	notification string // the list_changed that invalidates it
	listenField  string // what subscriptions/listen asks for to get it
}

func offersTools(c ServerCapabilities) bool     { return c.Tools != nil }
func offersPrompts(c ServerCapabilities) bool   { return c.Prompts != nil }
func offersResources(c ServerCapabilities) bool { return c.Resources != nil }

// kindTable is the kind registry, in Kinds order. resources/list_changed
// invalidates both resources and resource templates. The List of each
// kind is made by the Client (client.go, liveOf, in the same order; the
// Client's Tools, Prompts... would fail at once on another).
var kindTable = []kindSpec{
	{KindTools, methods.ListTools, "tools", "name", "tools", offersTools, methods.NotifyToolsChanged, "toolsListChanged"},
	{KindPrompts, methods.ListPrompts, "prompts", "name", "prompts", offersPrompts, methods.NotifyPromptsChanged, "promptsListChanged"},
	{KindResources, methods.ListResources, "resources", "uri", "resources", offersResources, methods.NotifyResourcesChanged, "resourcesListChanged"},
	{KindResourceTemplates, methods.ListTemplates, "resourceTemplates", "uriTemplate", "resources", offersResources, methods.NotifyResourcesChanged, "resourcesListChanged"},
}

// specOf returns the registry entry of k.
func specOf(k Kind) (kindSpec, bool) {
	for _, s := range kindTable {
		if s.kind == k {
			return s, true
		}
	}
	return kindSpec{}, false
}

// kindsInvalidatedBy returns the kinds a list_changed notification
// invalidates, in Kinds order; none for any other method.
func kindsInvalidatedBy(method string) []Kind {
	var out []Kind
	for _, s := range kindTable {
		if s.notification == method {
			out = append(out, s.kind)
		}
	}
	return out
}
