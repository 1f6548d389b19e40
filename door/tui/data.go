package tui

import (
	"context"
	"time"

	"arbiter/model"
	"arbiter/service/review"

	tea "charm.land/bubbletea/v2"
)

// Messages the screen's commands send back to Update.
type (
	queueLoadedMsg struct {
		seq     int
		limit   int // the most rows asked for
		rows    []model.ConflictSummary
		counts  map[model.ConflictStatus]int
		version int64
		// voted are the pending votes the person at the screen voted
		// on; decided, the conflicts the decisions file decides.
		voted   map[string]bool
		decided map[string]string
		// news is what reached the person's inbox after their notice
		// since (news.go), read with the queue so that both show at once.
		since int64
		news  *model.InboxNews
		err   error
	}
	detailLoadedMsg struct {
		id     string
		detail model.ConflictDetail
		err    error
	}
	// renderedMsg is a unit's formatted text: all of it, or its head
	// and the rest of the work (rest), for renderRest.
	renderedMsg struct {
		key  mdKey
		out  string
		rest *formatJob
	}
	// watchTickMsg: time to ask the field again; gone, why its file is
	// no longer at its path when that is why it could not answer.
	watchTickMsg   struct{ gone string }
	dataChangedMsg struct{ version int64 }
	flashClearMsg  struct{ id int }
)

// queuePage is how many conflicts one load brings; more come as the
// cursor nears the end.
const queuePage = 2000

// firstPage is how many the screen loads first: more than the tallest
// terminal shows, and a tenth of the time of a whole page on a large
// field. A whole page follows at once.
const firstPage = 200

// watchEvery is how often the screen asks a file whether it changed: one
// PRAGMA data_version, no reload unless it did.
const watchEvery = time.Second

// loadQueue reads one page of the queue and the counts.
// seq numbers the request so that an answer overtaken by a later one
// (typing a filter sends one per key) is dropped.
func loadQueue(ctx context.Context, svc review.Desk, q model.ListQuery, seq int, as string, since int64) tea.Cmd {
	return func() tea.Msg {
		msg := queueLoadedMsg{seq: seq, limit: q.Limit, since: since}
		msg.version, msg.err = svc.Changed(ctx)
		if msg.err == nil {
			msg.rows, msg.err = svc.List(ctx, q)
		}
		if msg.err == nil {
			msg.counts, msg.err = svc.Counts(ctx)
		}
		if msg.err == nil && as != "" {
			msg.voted, msg.err = svc.VotedOn(ctx, as)
		}
		if msg.err == nil {
			msg.decided, msg.err = svc.OfflineDecided()
		}
		if msg.err == nil && as != "" {
			msg.news = readNews(ctx, svc, as, since)
		}
		return msg
	}
}

// loadDetail reads one conflict with both units.
func loadDetail(ctx context.Context, svc review.Desk, id string) tea.Cmd {
	return func() tea.Msg {
		d, err := svc.Detail(ctx, id)
		return detailLoadedMsg{id: id, detail: d, err: err}
	}
}

// renderUnit renders a unit's markdown away from Update and View: at
// first what a pane of the given height shows, and the rest after it
// (renderRest) when there is more.
func renderUnit(md *markdown, k mdKey, content string, height int) tea.Cmd {
	return func() tea.Msg {
		out, rest := md.RenderHead(content, k.width, k.theme, height+headSlack)
		return renderedMsg{key: k, out: out, rest: rest}
	}
}

// headSlack is how many lines more than its pane shows a unit's head has.
const headSlack = 6

// renderRest renders the rest of a unit whose head is on screen.
func renderRest(md *markdown, k mdKey, rest *formatJob) tea.Cmd {
	return func() tea.Msg { return renderedMsg{key: k, out: md.Finish(rest)} }
}

// watch waits until the field changes after version since: pushed by
// the server on PostgreSQL (LISTEN/NOTIFY), asked every watchEvery of a
// file (one PRAGMA data_version). A field that cannot answer is asked
// again a moment later, saying so if its file is gone. It stops, sending
// nothing, when ctx ends.
func watch(ctx context.Context, svc review.Desk, since int64) tea.Cmd {
	return func() tea.Msg {
		v, err := review.WaitChange(ctx, svc, since, watchEvery)
		if err != nil {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(watchEvery):
			}
			if model.HasCode(err, model.CodeFieldGone) {
				return watchTickMsg{gone: plainError(err)}
			}
			return watchTickMsg{}
		}
		return dataChangedMsg{version: v}
	}
}
