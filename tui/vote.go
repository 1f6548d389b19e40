package tui

import (
	"fmt"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/bubbles/v2/textarea"
)

// voteForm is a ballot being written on a conflict put to a vote.
type voteForm struct {
	detail     model.ConflictDetail
	me         model.Agent
	choice     string
	focus      field
	rationale  textarea.Model
	confirming bool
	busy       bool
	refusal    string
	result     *model.VoteResponse
}

func newVoteForm(d model.ConflictDetail, me model.Agent, dark bool) *voteForm {
	f := &voteForm{detail: d, me: me, rationale: newTextarea("Why this unit? (required)", dark)}
	for _, b := range d.Ballots {
		if b.VoterID == me.ID {
			f.choice = b.Choice
			f.rationale.SetValue(b.Rationale)
		}
	}
	if f.choice == "" {
		f.focus = fieldWinner
	} else {
		f.focus = fieldRationale
		f.rationale.Focus()
	}
	return f
}

// cycle moves between the choice and the rationale.
func (f *voteForm) cycle() {
	if f.focus == fieldWinner {
		f.focus = fieldRationale
		f.rationale.Focus()
		return
	}
	f.focus = fieldWinner
	f.rationale.Blur()
}

func (f *voteForm) typing() bool { return f.focus == fieldRationale }

func (f *voteForm) layout(w, h int) {
	f.rationale.SetWidth(min(w, 100))
	f.rationale.SetHeight(5)
}

// mine is the caller's current ballot, if any.
func (f *voteForm) mine() *model.Ballot {
	for _, b := range f.detail.Ballots {
		if b.VoterID == f.me.ID {
			return &b
		}
	}
	return nil
}

func (f *voteForm) request() (model.VoteRequest, string) {
	req := model.VoteRequest{ConflictID: f.detail.Conflict.ID, Choice: f.choice,
		Rationale: strings.TrimSpace(f.rationale.Value()), ExpectedVersion: f.detail.Conflict.Version}
	switch {
	case f.detail.Conflict.Status != model.StatusPendingVote:
		return req, fmt.Sprintf("%s is not open for votes: it is %s.", f.detail.Conflict.ID, f.detail.Conflict.Status)
	case !f.detail.Policy.MayVote(f.me):
		return req, fmt.Sprintf("You (%s) may not vote in this field.", f.me.ID)
	case f.choice == "":
		return req, "Choose the unit you vote for: a or b."
	case req.Rationale == "":
		return req, "Write a rationale first: it is required."
	}
	return req, ""
}

// after is the tally this ballot would leave, and whether it closes the
// vote.
func (f *voteForm) after() (model.Tally, model.Outcome) {
	ballots := []model.Ballot{{VoterID: f.me.ID, Choice: f.choice}}
	for _, b := range f.detail.Ballots {
		if b.VoterID != f.me.ID {
			ballots = append(ballots, b)
		}
	}
	t := model.Count(f.detail.Conflict, ballots, f.detail.Policy.Quorum)
	o, _ := t.Decide(f.detail.Conflict, f.detail.Policy.Tie)
	return t, o
}

func (f *voteForm) view(st Styles) string {
	var b strings.Builder
	c := f.detail.Conflict
	b.WriteString(st.Title.Render("Vote on "+safetext.Line(c.ID)) + "\n" + sidesLine(st, f.detail) + "\n\n")
	if r := f.result; r != nil && r.Offline != nil {
		b.WriteString(st.Success.Render("Recorded.") + " The field is read-only, so your vote went to " +
			safetext.Line(r.Offline.File) + "; `arbiter apply` casts it on the live field.\n")
		b.WriteString("\n" + st.Muted.Render("esc returns to the conflict"))
		return b.String()
	}
	if r := f.result; r != nil {
		b.WriteString(st.Success.Render("Your vote is counted.") + fmt.Sprintf(" %d for A · %d for B · %d of quorum %d\n",
			r.Tally.ForA, r.Tally.ForB, r.Tally.Total(), r.Tally.Quorum))
		if r.Changed {
			b.WriteString("  It replaces your earlier vote.\n")
		}
		if r.Closed {
			b.WriteString(st.Bold.Render("  The vote is closed: ") + safetext.Line(r.Conflict.ID) + " is now " + string(r.Status))
			if res := r.Conflict.Resolution; res != nil && res.WinnerID != nil {
				b.WriteString(", " + safetext.Line(*res.WinnerID) + " prevails")
			}
			b.WriteString("\n  notified: " + safetext.Line(strings.Join(r.SideEffects.NotifiedAgents, ", ")) + "\n")
		}
		b.WriteString("\n" + st.Muted.Render("esc returns to the conflict"))
		return b.String()
	}
	b.WriteString(strings.Join(voteLines(st, f.detail), "\n") + "\n")
	if m := f.mine(); m != nil {
		b.WriteString(st.Muted.Render("  you voted for "+c.Side(m.Choice)+"; a new vote replaces it") + "\n")
	}
	opt := func(id, name string) string {
		t := fmt.Sprintf(" %s %s ", name, safetext.Line(id))
		if f.choice == id {
			return st.Selected.Render(sideStyle(st, name).Render(t))
		}
		return st.Muted.Render(t)
	}
	label := func(fl field, name string) string {
		if f.focus == fl {
			return st.Key.Render("▍" + name)
		}
		return st.Label.Render(" " + name)
	}
	b.WriteString("\n" + label(fieldWinner, "For") + "  " + opt(c.UnitA, "A") + " " + opt(c.UnitB, "B") + st.Muted.Render("  a/b or ←/→ · tab to the rationale") + "\n\n")
	b.WriteString(label(fieldRationale, "Rationale") + "\n" + f.rationale.View() + "\n")
	if f.confirming {
		t, o := f.after()
		b.WriteString("\n" + st.Header.Render("Cast this vote?") + fmt.Sprintf(" For %s (%s). Afterwards: %d for A · %d for B · %d of quorum %d.",
			c.Side(f.choice), safetext.Line(f.choice), t.ForA, t.ForB, t.Total(), t.Quorum))
		switch o {
		case model.VoteWon:
			b.WriteString(st.Warn.Render(" This vote closes it: the majority prevails and the loser is superseded."))
		case model.VoteTiedEscalate:
			b.WriteString(st.Warn.Render(" This vote ties it at quorum: it goes to a human operator."))
		}
		b.WriteString("\n" + st.Key.Render("y") + " cast it   " + st.Key.Render("N") + " go back (default)\n")
	}
	if f.refusal != "" {
		b.WriteString("\n" + st.Error.Render(safetext.Block(f.refusal)) + "\n")
	}
	if f.busy {
		b.WriteString("\n" + st.Muted.Render("Writing…") + "\n")
	}
	return b.String()
}
