package mcplive_test

import (
	"strings"
	"testing"

	"github.com/mcplive/mcplive"
	"github.com/mcplive/mcplive/internal/scripted"
)

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
