package tui

import (
	"context"
	"slices"
	"strings"
	"time"

	"arbiter/internal/keymap"
	"arbiter/internal/safetext"
	"arbiter/model"

	tea "charm.land/bubbletea/v2"
)

// Drafts survive: a decision or a ballot being written is kept in the
// field, per person, conflict and form, as it is typed — saved once the
// typing pauses (draftQuiet), and at least every draftEvery while it
// goes on, by a command — and once more when the screen ends for any
// reason (Run: a quit, a closed session, a stopped server). When the
// person opens the conflict again, the conflict says so and offers it
// back: the form's key takes it up, drop_draft drops it. Once the
// decision or ballot is written the draft goes.

// draftKeeper is a desk that keeps drafts: a field; another program's
// file keeps none.
type draftKeeper interface {
	Drafts(ctx context.Context, agentID, conflictID string) ([]model.Draft, error)
	DraftSave(ctx context.Context, d model.Draft) error
	DraftDrop(ctx context.Context, agentID, conflictID string, form model.DraftForm) error
}

const (
	// draftQuiet is how long typing pauses before the draft is saved.
	draftQuiet = 1500 * time.Millisecond
	// draftEvery is how often, at least, a draft is saved while typing
	// goes on.
	draftEvery = 10 * time.Second
	// draftFlush is how long the screen's end waits to save what is left.
	draftFlush = 5 * time.Second
)

// draftKey names a draft of the person at the screen.
type draftKey struct {
	conflict string
	form     model.DraftForm
}

// draftMark is what the screen knows of a form's draft: the text last
// seen, how many changes it saw, which of them was last sent to be
// saved (when) and which the field has kept.
type draftMark struct {
	shown            string
	seen, sent, kept int
	at               time.Time
}

// draftsState is the drafts the screen follows, and whether the person
// was told that a draft could not be kept.
type draftsState struct {
	marks map[draftKey]*draftMark
	said  bool
}

type (
	draftsReadMsg struct {
		id     string
		drafts []model.Draft
		err    error
	}
	// draftDueMsg: the form's typing paused, at its seen'th change.
	draftDueMsg struct {
		key  draftKey
		seen int
	}
	draftSavedMsg struct {
		key  draftKey
		seen int
		err  error
	}
)

// readDrafts reads the person's drafts on conflict id, to offer them
// back.
func (m *Model) readDrafts(id string) tea.Cmd {
	dk, ok := m.svc.(draftKeeper)
	if !ok || m.opt.As == "" {
		return nil
	}
	ctx, as := m.ctx, m.opt.As
	return func() tea.Msg {
		ds, err := dk.Drafts(ctx, as, id)
		return draftsReadMsg{id: id, drafts: ds, err: err}
	}
}

// draftsRead offers back the drafts of a conflict with no form of
// theirs on screen already (what is on screen is newer).
func (m *Model) draftsRead(msg draftsReadMsg) tea.Cmd {
	c := m.held[msg.id]
	if c == nil || msg.err != nil {
		return nil
	}
	c.offered = nil
	for _, d := range msg.drafts {
		if d.Blank() || (d.Form == model.DraftDecide && c.decide != nil) || (d.Form == model.DraftVote && c.vote != nil) {
			continue
		}
		c.offered = append(c.offered, d)
	}
	return m.layout() // the header grew
}

// offeredDraft is the draft of form offered on c, if any.
func (c *openConflict) offeredDraft(form model.DraftForm) (model.Draft, bool) {
	i := slices.IndexFunc(c.offered, func(d model.Draft) bool { return d.Form == form })
	if i < 0 {
		return model.Draft{}, false
	}
	return c.offered[i], true
}

// takeUpDraft puts the draft of form offered on c into c's new form.
func (m *Model) takeUpDraft(c *openConflict, form model.DraftForm) tea.Cmd {
	d, ok := c.offeredDraft(form)
	if !ok {
		return nil
	}
	c.offered = slices.DeleteFunc(c.offered, func(o model.Draft) bool { return o.Form == form })
	switch {
	case form == model.DraftDecide && c.decide != nil:
		c.decide.takeUp(d)
	case form == model.DraftVote && c.vote != nil:
		f := c.vote
		if d.Choice == f.detail.Conflict.UnitA || d.Choice == f.detail.Conflict.UnitB {
			f.choice = d.Choice
		}
		f.rationale.SetValue(d.Rationale)
	default:
		return nil
	}
	m.drafts.mark(draftKey{c.id, form}, draftText(d), m.now())
	return m.say("Your draft from " + ago(m.now(), d.SavedAt) + " is back in the form.")
}

// takeUp fills a new decision form with draft d: its strategy when the
// person may still choose it, its winner, its texts.
func (f *decideForm) takeUp(d model.Draft) {
	if i := slices.IndexFunc(f.choices, func(c model.Choice) bool { return c.Strategy == d.Strategy && c.Err == nil }); i >= 0 {
		f.sel = i
		f.pickDefaultWinner()
	}
	if c := f.detail.Conflict; d.Choice == c.UnitA || d.Choice == c.UnitB {
		f.winner = d.Choice
	}
	f.rationale.SetValue(d.Rationale)
	f.synthesis.SetValue(d.Synthesis)
	f.recount()
}

// dropDrafts drops the drafts offered on the conflict on screen.
func (m *Model) dropDrafts() tea.Cmd {
	c := m.conflict.openConflict
	dk, ok := m.svc.(draftKeeper)
	if !ok || len(c.offered) == 0 {
		return nil
	}
	ctx, as, drop := m.ctx, m.opt.As, c.offered
	c.offered = nil
	m.layout()
	return tea.Batch(m.say("Your unwritten draft on "+safetext.Line(c.id)+" is dropped."), func() tea.Msg {
		for _, d := range drop {
			if err := dk.DraftDrop(ctx, as, d.ConflictID, d.Form); err != nil {
				return draftSavedMsg{key: draftKey{d.ConflictID, d.Form}, err: err}
			}
		}
		return nil
	})
}

// offerLines are the conflict's lines offering back the drafts left on
// it, each naming the keys that take it up (while who may open that form
// on the conflict) and drop it.
func (v conflictView) offerLines(st Styles, k keymap.Map, who onlooker) []string {
	var out []string
	for _, d := range v.offered {
		what, take := "decision", keyOf(k.Decide)
		if !who.decides {
			take = ""
		}
		if d.Form == model.DraftVote {
			what, take = "ballot", keyOf(k.Vote)
			if !who.votes {
				take = ""
			}
		}
		line := "✎ Your unwritten " + what + " from " + ago(who.now, d.SavedAt) + " is kept: "
		if take != "" {
			line += take + " takes it up, "
		}
		out = append(out, st.Warn.Render(line+keyOf(k.DropDraft)+" drops it."))
	}
	return out
}

// formDrafts are the drafts of c's forms still being written.
func (m *Model) formDrafts(c *openConflict) []model.Draft {
	var out []model.Draft
	if f := c.decide; f != nil && !f.busy {
		out = append(out, model.Draft{AgentID: m.opt.As, ConflictID: c.id, Form: model.DraftDecide, Strategy: f.strategy(),
			Choice: f.winner, Rationale: f.rationale.Value(), Synthesis: f.synthesis.Value()})
	}
	if f := c.vote; f != nil && !f.busy {
		out = append(out, model.Draft{AgentID: m.opt.As, ConflictID: c.id, Form: model.DraftVote, Choice: f.choice,
			Rationale: f.rationale.Value()})
	}
	return out
}

// draftText is what a draft holds, to tell a change.
func draftText(d model.Draft) string {
	return strings.Join([]string{string(d.Strategy), d.Choice, d.Rationale, d.Synthesis}, "\x00")
}

// mark notes text as a form's draft, kept already at at.
func (s *draftsState) mark(k draftKey, text string, at time.Time) {
	if s.marks == nil {
		s.marks = map[draftKey]*draftMark{}
	}
	s.marks[k] = &draftMark{shown: text, at: at}
}

// watchDrafts notes, after each message, what the open conflict's forms
// hold: a change is saved once typing pauses, or at once when the last
// save is draftEvery old. A form's first sight is what it started with.
func (m *Model) watchDrafts() tea.Cmd {
	c := m.conflict.openConflict
	if _, ok := m.svc.(draftKeeper); !ok || c.id == "" || (c.decide == nil && c.vote == nil) || m.opt.As == "" {
		return nil
	}
	var cmds []tea.Cmd
	for _, d := range m.formDrafts(c) {
		k, text := draftKey{c.id, d.Form}, draftText(d)
		mk := m.drafts.marks[k]
		if mk == nil {
			m.drafts.mark(k, text, time.Time{})
			continue
		}
		if text == mk.shown {
			continue
		}
		mk.shown = text
		mk.seen++
		if m.now().Sub(mk.at) >= draftEvery {
			cmds = append(cmds, m.saveDraft(k, d))
		} else {
			cmds = append(cmds, m.after(draftQuiet, draftDueMsg{key: k, seen: mk.seen}))
		}
	}
	return tea.Batch(cmds...)
}

// draftDue saves the form's draft if its typing paused since.
func (m *Model) draftDue(msg draftDueMsg) tea.Cmd {
	mk := m.drafts.marks[msg.key]
	c := m.held[msg.key.conflict]
	if mk == nil || c == nil || mk.seen != msg.seen || mk.sent == mk.seen {
		return nil
	}
	for _, d := range m.formDrafts(c) {
		if d.Form == msg.key.form {
			return m.saveDraft(msg.key, d)
		}
	}
	return nil
}

// saveDraft keeps d in the field, by a command.
func (m *Model) saveDraft(k draftKey, d model.Draft) tea.Cmd {
	mk := m.drafts.marks[k]
	mk.sent, mk.at = mk.seen, m.now()
	dk := m.svc.(draftKeeper)
	ctx, seen := m.ctx, mk.seen
	return func() tea.Msg { return draftSavedMsg{key: k, seen: seen, err: dk.DraftSave(ctx, d)} }
}

// draftSaved says, once, that a draft cannot be kept; the form keeps it
// while the screen is open, and the next change tries again.
func (m *Model) draftSaved(msg draftSavedMsg) tea.Cmd {
	mk := m.drafts.marks[msg.key]
	if msg.err == nil {
		if mk != nil {
			mk.kept = max(mk.kept, msg.seen)
		}
		return nil
	}
	if mk != nil {
		mk.sent = -1
	}
	if m.ctx.Err() != nil {
		return nil
	}
	if m.drafts.said {
		return nil
	}
	m.drafts.said = true
	return m.say("Your draft is not kept in the field (" + plainError(msg.err) + "); it stays in the form while arbiter runs.")
}

// dropWritten drops, in the command that wrote them, the drafts of the
// decisions and ballots written: what was typed is in the field now. A
// draft that stays (the field refused) is offered again, and can be
// dropped then.
func dropWritten(ctx context.Context, svc any, as string, results []written) {
	dk, ok := svc.(draftKeeper)
	if !ok || as == "" {
		return
	}
	for _, k := range writtenDrafts(results) {
		_ = dk.DraftDrop(ctx, as, k.conflict, k.form)
	}
}

// writtenDrafts are the drafts results wrote: a ballot's, or a
// decision's.
func writtenDrafts(results []written) []draftKey {
	var out []draftKey
	for _, w := range results {
		switch {
		case w.err != nil:
		case w.vote != nil:
			out = append(out, draftKey{w.conflict, model.DraftVote})
		default:
			out = append(out, draftKey{w.conflict, model.DraftDecide})
		}
	}
	return out
}

// draftsWritten forgets the drafts of what was written.
func (m *Model) draftsWritten(results []written) {
	for _, k := range writtenDrafts(results) {
		delete(m.drafts.marks, k)
		if c := m.held[k.conflict]; c != nil {
			c.offered = slices.DeleteFunc(c.offered, func(d model.Draft) bool { return d.Form == k.form })
		}
	}
}

// keepDrafts saves, when the screen has ended, every draft typed since
// it was last saved: Run calls it with a context of its own, since the
// session's has ended.
func (m *Model) keepDrafts(ctx context.Context) {
	dk, ok := m.svc.(draftKeeper)
	if !ok || m.opt.As == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, draftFlush)
	defer cancel()
	for id, c := range m.held {
		for _, d := range m.formDrafts(c) {
			mk := m.drafts.marks[draftKey{id, d.Form}]
			if mk == nil || mk.kept == mk.seen {
				continue
			}
			_ = dk.DraftSave(ctx, d) // nobody is left to tell
		}
	}
}
