package tui

import (
	"regexp"
	"strings"
	"testing"

	"arbiter/internal/queueview"
	"arbiter/internal/testwait"
	"arbiter/service/demo"

	"github.com/charmbracelet/x/ansi"
)

// queueID is a queue row's conflict id.
var queueID = regexp.MustCompile(`^[ ●✓⋯↷▸]{1,2} ?(conflict-\d+) `)

// The config file's views show as tabs above the queue; next_view and
// prev_view switch them, and each keeps what its query asks for: the
// store's statuses and what is the person's turn, and the rows of a type,
// an owner or a deadline.
func TestViewsShowAsTabsAndKeepWhatTheirQueriesAsk(t *testing.T) {
	views := testViews(t)
	resolved, err := queueview.Parse("Resolved", "status:resolved type:factual")
	if err != nil {
		t.Fatal(err)
	}
	views = append(views, resolved)
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-tomas", 100, 30, func(o *Options) { o.Views = views })
	f := s.waitFor("▸ conflict-", " Waiting ", " Mine ", " Overdue ", " Resolved ", "[ ] switch views")
	if !strings.Contains(f, "conflict-011") {
		t.Fatalf("the first tab is the whole queue:\n%s", f)
	}
	rows := func(f string) []string {
		var ids []string
		for _, l := range strings.Split(f, "\n") {
			if m := queueID.FindStringSubmatch(l); m != nil {
				ids = append(ids, m[1])
			}
		}
		return ids
	}

	s.press(s.k.NextView) // Mine: what is lead-tomas's turn
	s.waitFor("showing the view “Mine”")
	hasRows := func(f string) bool { return len(rows(ansi.Strip(f))) > 0 }
	f = ansi.Strip(s.until(testwait.Deadline, "the rows of the view Mine", func(f string) bool {
		return hasRows(f) && !strings.Contains(f, "conflict-011")
	}))
	for _, id := range rows(f) {
		if d := detailOf(t, svc, id); id != "conflict-009" && d.Conflict.Status != "pending_vote" {
			t.Errorf("the view Mine shows %s, not lead-tomas's to act on:\n%s", id, f)
		}
	}
	if len(rows(f)) == 0 {
		t.Errorf("the view Mine is empty:\n%s", f)
	}

	s.press(s.k.NextView) // Overdue: conflict-011 alone
	s.waitFor("showing the view “Overdue”")
	f = ansi.Strip(s.until(testwait.Deadline, "the rows of the view Overdue", func(f string) bool {
		return hasRows(f) && !strings.Contains(f, "conflict-009")
	}))
	if got := rows(f); len(got) != 1 || got[0] != "conflict-011" {
		t.Errorf("the view Overdue shows %v, want conflict-011 alone:\n%s", got, f)
	}

	s.press(s.k.PrevView)
	s.press(s.k.PrevView)
	s.press(s.k.PrevView) // back round to Resolved: factual, resolved
	f = ansi.Strip(s.waitFor("showing the view “Resolved”"))
	// The view's own rows: the tab's name shows at once, the rows once the
	// field has answered; until then it says it is reading them, never
	// showing the rows of the view before under the new name.
	resolvedFactual := func(id string) bool {
		d := detailOf(t, svc, id)
		return d.Conflict.Status == "resolved" && d.Conflict.Type == "factual"
	}
	for _, id := range rows(f) {
		if !resolvedFactual(id) {
			t.Errorf("under the name Resolved, before its rows came, the screen showed %s of another view:\n%s", id, f)
		}
	}
	if len(rows(f)) == 0 && !strings.Contains(f, "Reading the field…") {
		t.Errorf("the view Resolved shows no rows and does not say it is reading them:\n%s", f)
	}
	f = s.until(testwait.Deadline, "the rows of the view Resolved", func(f string) bool {
		ids := rows(ansi.Strip(f))
		return len(ids) > 0 && resolvedFactual(ids[0])
	})
	f = ansi.Strip(f)
	for _, id := range rows(f) {
		if d := detailOf(t, svc, id); d.Conflict.Status != "resolved" || d.Conflict.Type != "factual" {
			t.Errorf("the view Resolved shows %s (%s, %s):\n%s", id, d.Conflict.Status, d.Conflict.Type, f)
		}
	}
	if len(rows(f)) == 0 {
		t.Errorf("the view Resolved is empty:\n%s", f)
	}
	if strings.Contains(f, "yours first") {
		t.Errorf("a view of resolved conflicts claims the person's order, which the store gives only to what waits for people:\n%s", f)
	}
}

// Without views in the config, the keys say how to have some.
func TestWithoutViewsTheViewKeysSayHowToSetThem(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 100, 30)
	f := s.waitFor("▸ conflict-008")
	if strings.Contains(f, "switch views") || strings.Contains(footerOf(f), "next view") {
		t.Errorf("the queue offers views it does not have:\n%s", f)
	}
	s.press(s.k.NextView)
	s.waitForWrapped("No views are set: the config file's views: names them")
}
