package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/fieldgen"

	"github.com/charmbracelet/x/ansi"
)

// A queue longer than the first page the screen loads can be read to its
// last row: the rest comes as a whole page at once (see the test below)
// or, for a reader quicker than that, as the cursor nears the end.
func TestQueueLoadsAWholePageAfterTheFirst(t *testing.T) {
	svc := openService(t, queueField(t, 600), false)
	ctx := context.Background()
	me, _ := svc.Agent(ctx, fieldgen.Operator)
	p, _ := svc.Policy(ctx)
	rows, err := svc.List(ctx, model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortAge,
		For: model.ViewerOf(p, me, screenNow)}) // as the screen orders it for its person
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) <= firstPage {
		t.Fatalf("the field's queue has %d rows, want more than the first page's %d", len(rows), firstPage)
	}
	s := start(t, svc, fieldgen.Operator, 160, 40)
	s.waitFor(rows[0].ID, fmt.Sprintf("escalated %d", countStatus(rows, model.StatusEscalated)))
	last := "▸ " + rows[len(rows)-1].ID
	// G goes to the last row read; each press there reads the next page,
	// until the last row of all.
	for pages := 0; !strings.Contains(s.Frame(), last); pages++ {
		if pages > len(rows)/firstPage+2 {
			t.Fatalf("G never reached %s; last frame:\n%s", rows[len(rows)-1].ID, s.Frame())
		}
		loads := s.loads()
		s.keys("G")
		s.until(testwait.Deadline, "another page or the last row", func(f string) bool {
			return strings.Contains(ansi.Strip(f), last) || s.queueLoads > loads
		})
	}
}

func countStatus(rows []model.ConflictSummary, st model.ConflictStatus) int {
	n := 0
	for _, r := range rows {
		if r.Status == st {
			n++
		}
	}
	return n
}

// A full first page asks for a whole page at once, and the cursor starts
// on the oldest escalated conflict even when the first page holds none:
// the whole page places it.
func TestQueueCursorFindsTheOldestEscalatedBeyondTheFirstPage(t *testing.T) {
	m := New(openService(t, demoField(t), false), Options{As: "ops-maya", Theme: "dark"})
	m.Update(windowSize(160, 40))
	var rows []model.ConflictSummary
	for i := range 300 {
		st := model.StatusPendingVote
		if i >= 250 {
			st = model.StatusEscalated
		}
		rows = append(rows, model.ConflictSummary{Conflict: model.Conflict{ID: fmt.Sprintf("conflict-%03d", i), Status: st}})
	}
	m.loadQueue(firstPage) // as Init asks; the test answers it
	_, next := m.Update(queueLoadedMsg{seq: m.queueSeq, limit: firstPage, rows: rows[:firstPage]})
	if next == nil {
		t.Fatal("a full first page asked for nothing more")
	}
	if m.queue.cursor != 0 || m.queue.opened {
		t.Fatalf("after the first page: cursor %d, opened %v; want 0 and not yet", m.queue.cursor, m.queue.opened)
	}
	m.Update(queueLoadedMsg{seq: m.queueSeq, limit: queuePage, rows: rows})
	if got, _ := m.queue.selected(); got.ID != "conflict-250" || !m.queue.opened {
		t.Fatalf("after the whole page: cursor on %q (opened %v), want conflict-250", got.ID, m.queue.opened)
	}
	m.Update(queueLoadedMsg{seq: m.queueSeq, limit: queuePage, rows: rows})
	if got, _ := m.queue.selected(); got.ID != "conflict-250" {
		t.Fatalf("a reload moved the cursor to %q", got.ID)
	}
}
