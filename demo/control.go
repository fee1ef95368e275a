package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"
)

// The control API: JSON over HTTP under /control/, behind the admin token.
// README.md documents every endpoint.

type (
	toolView struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Enabled     bool   `json:"enabled"`
		Access      access `json:"access"`
		MinRole     role   `json:"minRole"`
		Extra       bool   `json:"extra"`
	}
	promptView struct {
		Name        string   `json:"name"`
		Title       string   `json:"title,omitempty"`
		Description string   `json:"description"`
		Arguments   []string `json:"arguments"`
		Enabled     bool     `json:"enabled"`
		Access      access   `json:"access"`
		MinRole     role     `json:"minRole"`
	}
	resourceView struct {
		Name   string `json:"name"`
		URI    string `json:"uri"`
		Title  string `json:"title"`
		Online bool   `json:"online"`
		// Writable: PUT /control/resources/{name}/content accepts it.
		Writable bool `json:"writable"`
		// Churn: -churn may toggle it.
		Churn bool `json:"churn"`
	}
	templateView struct {
		Name        string `json:"name"`
		URITemplate string `json:"uriTemplate"`
		Title       string `json:"title"`
		Online      bool   `json:"online"`
		Churn       bool   `json:"churn"`
	}
	stateOut struct {
		PageSize    int            `json:"pageSize"`
		Churn       string         `json:"churn"` // Go duration, "0s" when off
		Tools       []toolView     `json:"tools"`
		Prompts     []promptView   `json:"prompts"`
		Resources   []resourceView `json:"resources"`
		Templates   []templateView `json:"templates"`
		Connections []connection   `json:"connections"`
	}
)

func (d *demo) controlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /control/state", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, d.state())
	})
	mux.HandleFunc("GET /control/connections", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, d.connectionsOut())
	})
	mux.HandleFunc("GET /control/connections/{id}", func(w http.ResponseWriter, r *http.Request) {
		for _, c := range d.connections() {
			if c.ID == r.PathValue("id") {
				writeJSON(w, http.StatusOK, c)
				return
			}
		}
		writeError(w, http.StatusNotFound, "no connection "+r.PathValue("id"))
	})
	mux.HandleFunc("POST /control/connections/{id}/role", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Role string `json:"role"`
		}
		if !readJSON(w, r, &in) {
			return
		}
		ro, err := parseRole(in.Role)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		c, ok := d.setRole(r.PathValue("id"), ro)
		if !ok {
			writeError(w, http.StatusNotFound, "no connection "+r.PathValue("id"))
			return
		}
		writeJSON(w, http.StatusOK, c)
	})

	mux.HandleFunc("POST /control/tools", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		}
		if !readJSON(w, r, &in) {
			return
		}
		t, created, err := d.addExtraTool(in.Name, in.Description)
		if err != nil {
			status := http.StatusBadRequest
			if errors.Is(err, errBuiltin) {
				status = http.StatusConflict
			}
			writeError(w, status, err.Error())
			return
		}
		status := http.StatusOK
		if created {
			status = http.StatusCreated
		}
		writeJSON(w, status, t)
	})
	mux.HandleFunc("DELETE /control/tools/{name}", func(w http.ResponseWriter, r *http.Request) {
		if err := d.removeExtraTool(r.PathValue("name")); err != nil {
			status := http.StatusNotFound
			if errors.Is(err, errBuiltin) {
				status = http.StatusConflict
			}
			writeError(w, status, err.Error())
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /control/tools/{name}/{action}", d.toggle("tool", "enable", "disable", d.setToolEnabled))
	mux.HandleFunc("POST /control/prompts/{name}/{action}", d.toggle("prompt", "enable", "disable", d.setPromptEnabled))
	mux.HandleFunc("POST /control/resources/{name}/{action}", d.toggle("resource", "online", "offline", d.setResourceOnline))
	mux.HandleFunc("POST /control/templates/{name}/{action}", d.toggle("template", "online", "offline", d.setTemplateOnline))
	mux.HandleFunc("PUT /control/resources/{name}/content", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Text *string `json:"text"`
		}
		if !readJSON(w, r, &in) {
			return
		}
		if in.Text == nil {
			writeError(w, http.StatusBadRequest, `missing "text"`)
			return
		}
		if err := d.setContent(r.PathValue("name"), *in.Text, "control"); err != nil {
			status := http.StatusNotFound
			if errors.Is(err, errComputed) {
				status = http.StatusConflict
			}
			writeError(w, status, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"name": r.PathValue("name"), "chars": len(*in.Text)})
	})
	mux.HandleFunc("POST /control/churn", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Interval string `json:"interval"`
		}
		if !readJSON(w, r, &in) {
			return
		}
		iv, err := time.ParseDuration(in.Interval)
		if err != nil || iv < 0 || (iv > 0 && iv < 10*time.Millisecond) {
			writeError(w, http.StatusBadRequest, `"interval" must be a Go duration of at least 10ms ("2s"), or "0s" to stop`)
			return
		}
		d.setChurn(iv)
		writeJSON(w, http.StatusOK, map[string]string{"churn": iv.String()})
	})
	mux.HandleFunc("/control/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such control endpoint: "+r.Method+" "+r.URL.Path+" (see demo/README.md)")
	})
	return d.logRequests(mux)
}

// toggle serves POST …/{name}/{on|off}: set switches the named item and
// reports whether it exists.
func (d *demo) toggle(kind, on, off string, set func(name string, on bool) bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, action := r.PathValue("name"), r.PathValue("action")
		if action != on && action != off {
			writeError(w, http.StatusNotFound, fmt.Sprintf("unknown action %q: use %s or %s", action, on, off))
			return
		}
		if !set(name, action == on) {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no %s %q", kind, name))
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{kind: name, on: action == on})
	}
}

var (
	errBuiltin = errors.New("built-in tool")
	// toolNameRE is the tool name syntax of the MCP 2025-11-25 specification.
	toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
)

// addExtraTool adds (or replaces) a public tool for everyone.
func (d *demo) addExtraTool(name, description string) (toolView, bool, error) {
	if !toolNameRE.MatchString(name) {
		return toolView{}, false, fmt.Errorf("invalid tool name %q: 1 to 128 of A-Z a-z 0-9 _ - .", name)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.toolByName[name] != nil {
		return toolView{}, false, fmt.Errorf("%q is a %w: enable or disable it instead", name, errBuiltin)
	}
	_, replaced := d.extras[name]
	t := newExtraTool(name, description)
	d.extras[name] = t
	d.log.Info("extra tool added", "tool", name, "replaced", replaced)
	d.syncAll()
	return t.view(), !replaced, nil
}

// removeExtraTool removes a tool added by addExtraTool.
func (d *demo) removeExtraTool(name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.toolByName[name] != nil {
		return fmt.Errorf("%q is a %w: disable it instead", name, errBuiltin)
	}
	if d.extras[name] == nil {
		return fmt.Errorf("no extra tool %q", name)
	}
	delete(d.extras, name)
	d.log.Info("extra tool removed", "tool", name)
	d.syncAll()
	return nil
}

func (d *demo) setToolEnabled(name string, on bool) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.toolByName[name]
	if t == nil {
		t = d.extras[name]
	}
	if t == nil {
		return false
	}
	if t.enabled != on {
		t.enabled = on
		d.log.Info("tool switched", "tool", name, "enabled", on)
		d.syncAll()
	}
	return true
}

func (d *demo) setPromptEnabled(name string, on bool) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range d.prompts {
		if p.prompt.Name == name {
			if p.enabled != on {
				p.enabled = on
				d.log.Info("prompt switched", "prompt", name, "enabled", on)
				d.syncAll()
			}
			return true
		}
	}
	return false
}

func (d *demo) setResourceOnline(name string, on bool) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.resourceByName[name]
	if r == nil {
		return false
	}
	if r.online != on {
		r.online = on
		d.log.Info("resource switched", "resource", name, "uri", r.uri, "online", on)
		d.syncAll()
	}
	return true
}

func (d *demo) setTemplateOnline(name string, on bool) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, t := range d.templates {
		if t.name == name {
			if t.online != on {
				t.online = on
				d.log.Info("template switched", "template", name, "uriTemplate", t.uriTemplate, "online", on)
				d.syncAll()
			}
			return true
		}
	}
	return false
}

func (t *toolDef) view() toolView {
	return toolView{Name: t.name, Description: t.description, Enabled: t.enabled, Access: t.access, MinRole: t.minRole, Extra: t.extra}
}

// state is the whole picture for GET /control/state.
func (d *demo) state() stateOut {
	conns := d.connections()
	d.churnMu.Lock()
	churn := d.churnInterval
	d.churnMu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	out := stateOut{PageSize: d.cfg.PageSize, Churn: churn.String(), Connections: conns,
		Tools: []toolView{}, Prompts: []promptView{}, Resources: []resourceView{}, Templates: []templateView{}}
	for _, t := range d.allTools() {
		out.Tools = append(out.Tools, t.view())
	}
	for _, p := range d.prompts {
		v := promptView{Name: p.prompt.Name, Title: p.prompt.Title, Description: p.prompt.Description,
			Arguments: []string{}, Enabled: p.enabled, Access: p.access, MinRole: p.minRole}
		for _, a := range p.prompt.Arguments {
			v.Arguments = append(v.Arguments, a.Name)
		}
		out.Prompts = append(out.Prompts, v)
	}
	for _, r := range d.resources {
		out.Resources = append(out.Resources, resourceView{Name: r.name, URI: r.uri, Title: r.title, Online: r.online,
			Writable: r.dynamic == nil, Churn: r.churn})
	}
	for _, t := range d.templates {
		out.Templates = append(out.Templates, templateView{Name: t.name, URITemplate: t.uriTemplate, Title: t.title,
			Online: t.online, Churn: t.churn})
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// readJSON decodes a small JSON body into v, answering 400 on failure.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error())
		return false
	}
	return true
}

// statusRecorder remembers the status code for the request log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// logRequests logs one line per control request.
func (d *demo) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		d.log.Info("control", "method", r.Method, "path", r.URL.Path, "status", rec.status,
			"duration", time.Since(start).Round(time.Microsecond))
	})
}
