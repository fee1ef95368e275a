package mcplive_test

// Tests of the core's seams: transports chosen by URL scheme, the cause and
// latency of a list update, the kind-independent ListView.

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/scripted"
)

func TestNewTransportBySchemes(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"ws://127.0.0.1:1/mcp", "wss://example.com/mcp", "WS://127.0.0.1:1/"} {
		tr, err := mcplive.NewTransport(url, nil)
		assertNoErr(t, err, "NewTransport "+url)
		ws, ok := tr.(*mcplive.WebSocketTransport)
		if !ok || ws.URL != url || ws.ReadLimit != mcplive.DefaultReadLimit || ws.DialTimeout != mcplive.DefaultDialTimeout {
			t.Errorf("NewTransport(%q) = %#v, want a WebSocketTransport with the default limits", url, tr)
		}
	}
	tr, err := mcplive.NewTransport("ws://127.0.0.1:1/", &mcplive.Options{ReadLimit: 99, DialTimeout: time.Second})
	assertNoErr(t, err, "NewTransport with options")
	if ws := tr.(*mcplive.WebSocketTransport); ws.ReadLimit != 99 || ws.DialTimeout != time.Second {
		t.Errorf("options did not reach the transport: %#v", ws)
	}
	for url, want := range map[string]string{
		"127.0.0.1:8080/mcp":  "has no scheme",
		"/mcp":                "has no scheme",
		"ftp://127.0.0.1/mcp": `unsupported scheme "ftp"`,
	} {
		if _, err := mcplive.NewTransport(url, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewTransport(%q) = %v, want an error saying %q", url, err, want)
		}
		// Connect refuses it the same way, at once, without dialing.
		if _, err := mcplive.Connect(testCtx(t), url, eraOptions(nil)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Connect(%q) = %v, want an error saying %q", url, err, want)
		}
	}
}

// A refused dial is ErrDial, with what to check; not ErrClosed.
func TestDialRefusedIsErrDial(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 0)
	url := srv.URL
	srv.Close() // nothing listens there any more
	_, err := mcplive.Connect(testCtx(t), url, eraOptions(&mcplive.Options{Reconnect: mcplive.ReconnectOptions{Disabled: true}}))
	if !errors.Is(err, mcplive.ErrDial) || errors.Is(err, mcplive.ErrClosed) || !strings.Contains(err.Error(), "Origin") {
		t.Fatalf("Connect to a closed port = %v, want ErrDial naming the likely causes", err)
	}
}

// Every update says why its walk ran; a notification's carries the time
// from the notification's arrival to the update.
func TestUpdateCause(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, "", 2)
	srv.Set(scripted.Tools, scripted.Tool("a"))
	c := liveConnect(t, srv.URL, nil)
	if s := c.Tools().Snapshot(); s.Version != 1 || s.Status != mcplive.StatusReady {
		t.Fatalf("after Connect: %s", liveDescribe(s))
	}
	rec := liveRecord(t, c.Tools())

	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"))
	srv.Notify("notifications/tools/list_changed", nil)
	u := rec.at(t, 0)
	if u.Cause != mcplive.CauseNotification || u.Latency <= 0 || u.Version != 2 {
		t.Errorf("after a notification: cause %q, latency %v, version %d; want notification, > 0, 2", u.Cause, u.Latency, u.Version)
	}

	srv.Set(scripted.Tools, scripted.Tool("b"))
	assertNoErr(t, c.Refresh(testCtx(t), mcplive.KindTools), "Refresh")
	u = rec.at(t, 1)
	if u.Cause != mcplive.CauseRefresh || u.Latency != 0 || u.Version != 3 {
		t.Errorf("after Refresh: cause %q, latency %v, version %d; want refresh, 0, 3", u.Cause, u.Latency, u.Version)
	}

	srv.Set(scripted.Tools, scripted.Tool("c"))
	srv.DropConns()
	snap := liveWait(t, c.Tools(), "the list after the reconnect", liveHasKeys[mcplive.Tool]([]string{"c"}))
	ups := rec.all()
	last := ups[len(ups)-1]
	if last.Version != snap.Version || last.Cause != mcplive.CauseReconnect {
		t.Errorf("after a reconnect: cause %q of version %d; want reconnect", last.Cause, last.Version)
	}
}

// ListView shows the same state as the typed List, for every kind.
func TestListView(t *testing.T) {
	t.Parallel()
	srv := liveScripted(t, `{"tools":{},"resources":{}}`, 0)
	srv.Set(scripted.Tools, scripted.Tool("a"), scripted.Tool("b"))
	srv.Set(scripted.ResourceTemplates, scripted.Template("file:///{x}"))
	c := liveConnect(t, srv.URL, nil)
	if c.List("nope") != nil {
		t.Error(`List("nope") is not nil`)
	}
	want := map[mcplive.Kind][]string{
		mcplive.KindTools: {"a", "b"}, mcplive.KindPrompts: nil,
		mcplive.KindResources: nil, mcplive.KindResourceTemplates: {"file:///{x}"},
	}
	for _, k := range mcplive.Kinds {
		v := c.List(k)
		if v == nil || v.Kind() != k {
			t.Fatalf("List(%s) = %v", k, v)
		}
		s := v.View()
		var got []string
		for i := 0; i < s.Items.Len(); i++ {
			got = append(got, s.Items.Key(i))
			if !strings.Contains(string(s.Items.RawJSON(i)), s.Items.Key(i)) {
				t.Errorf("%s item %d: raw JSON %s does not hold its key", k, i, s.Items.RawJSON(i))
			}
		}
		wantStatus := mcplive.StatusReady
		if k == mcplive.KindPrompts {
			wantStatus = mcplive.StatusUnsupported
		}
		if !liveSameKeys(got, want[k]) || s.Status != wantStatus {
			t.Errorf("List(%s).View() = %v %s, want %v %s", k, got, s.Status, want[k], wantStatus)
		}
	}

	ups := make(chan mcplive.ViewUpdate, 4)
	stop := c.List(mcplive.KindTools).WatchView(func(u mcplive.ViewUpdate) { ups <- u })
	defer stop()
	srv.Set(scripted.Tools, scripted.Tool("b", "new"), scripted.Tool("c"))
	srv.Notify("notifications/tools/list_changed", nil)
	u := recv(t, ups, "a view update")
	if u.Added.Len() != 1 || u.Added.Key(0) != "c" || u.Removed.Len() != 1 || u.Removed.Key(0) != "a" ||
		u.Changed.Len() != 1 || u.Changed.Key(0) != "b" || u.Cause != mcplive.CauseNotification || u.Items.Len() != 2 {
		t.Errorf("view update: +%d -%d ~%d of %d, cause %q", u.Added.Len(), u.Removed.Len(), u.Changed.Len(), u.Items.Len(), u.Cause)
	}
}
