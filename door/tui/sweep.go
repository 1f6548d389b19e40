package tui

import (
	"slices"
	"strings"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"

	tea "charm.land/bubbletea/v2"
)

// While the screen holds a field writable, it does what the field's
// deadlines ask for every Options.SweepEvery, as arbiter sweep does:
// reminders, overdue notices, fallbacks. Several screens and a cron job
// sweeping the same field do each thing once (review's Sweep).

type (
	// sweepDueMsg: time to sweep.
	sweepDueMsg struct{}
	// sweptMsg is what a sweep did.
	sweptMsg struct {
		rep model.SweepReport
		err error
	}
)

// sweeps reports whether the screen sweeps the field's deadlines.
func (m *Model) sweeps() bool {
	_, hw := m.highway()
	_, offline := m.svc.Offline()
	return m.opt.SweepEvery > 0 && hw && !offline && m.readOnly == ""
}

// sweepAfter asks for a sweep after d.
func (m *Model) sweepAfter(d time.Duration) tea.Cmd {
	if !m.sweeps() {
		return nil
	}
	return m.after(d, sweepDueMsg{})
}

// sweep sweeps the field now.
func (m *Model) sweep() tea.Cmd {
	ctx := m.ctx
	hw, _ := m.highway()
	return func() tea.Msg {
		rep, err := hw.Sweep(ctx)
		return sweptMsg{rep: rep, err: err}
	}
}

// swept says what a sweep did that concerns the person, reloads what it
// changed and waits for the next one. A failing sweep is said once, until
// one succeeds again.
func (m *Model) swept(msg sweptMsg) tea.Cmd {
	if model.HasCode(msg.err, model.CodeNotPermitted) {
		return nil // the field takes deadlines from others' sessions: stop
	}
	next := m.sweepAfter(m.opt.SweepEvery)
	if model.HasCode(msg.err, model.CodeFieldGone) {
		return next // the header says so
	}
	if msg.err != nil {
		if m.sweepFailed {
			return next
		}
		m.sweepFailed = true
		return tea.Batch(next, m.say("Sweeping the field's deadlines failed (trying again): "+plainError(msg.err)))
	}
	m.sweepFailed = false
	if len(msg.rep.Actions) == 0 {
		return next
	}
	cmds := []tea.Cmd{next, m.reloadQueue()}
	if m.inConflict() {
		cmds = append(cmds, loadDetail(m.ctx, m.svc, m.conflict.id))
	}
	if s := sweepNews(msg.rep, m.me.ID); s != "" {
		cmds = append(cmds, m.say(s))
	}
	return tea.Batch(cmds...)
}

// sweepNews is the line a sweep's report earns on the screen of viewer:
// every fallback executed, and the reminders meant for them.
func sweepNews(rep model.SweepReport, viewer string) string {
	var parts []string
	for _, a := range rep.Actions {
		id := safetext.Line(a.ConflictID)
		mine := viewer != "" && (a.Owner == viewer || slices.Contains(a.NotifiedAgents, viewer))
		switch {
		case a.Kind == model.SweepFallback:
			parts = append(parts, id+"'s deadline passed: "+lineOf(a.Result))
		case !mine:
		case a.Kind == model.SweepOverdue:
			parts = append(parts, id+" is overdue and nothing executes: it waits for an answer")
		default:
			parts = append(parts, "reminder: "+id+" has "+lineOf(a.Result))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}
