package tui

import (
	"fmt"
	"strconv"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/model"
)

// On a conflict put to a vote, keep A and keep B cast the person's
// ballot (or change it) through the same prompt as a quick decision: it
// says what the ballot does to the tally before asking why, and the
// ballot waits in the undo window like a decision.

// mayBallot reports whether me may cast a ballot on the conflict of d
// now: it is put to a vote, the policy lets me vote and does not recuse
// me from it.
func mayBallot(me model.Agent, d model.ConflictDetail) bool {
	return d.Conflict.Status == model.StatusPendingVote && d.Policy.MayVote(me) && !d.Policy.Recused(me, d)
}

// ballotRefusal says why me may not vote on the conflict of d, put to a
// vote, naming who may ("" when me may, or when me closes votes by the
// operator's override instead).
func ballotRefusal(me model.Agent, agents []model.Agent, d model.ConflictDetail) string {
	if mayBallot(me, d) || model.TurnOf(d.Policy, me, summaryOf(d), false) == model.TurnDecide {
		return ""
	}
	who := model.WhoActs(d.Policy, agents, summaryOf(d))
	if d.Policy.MayVote(me) {
		return fmt.Sprintf("you wrote one of %s's units and the field's policy asks authors not to vote on them; %s may",
			d.Conflict.ID, who)
	}
	return fmt.Sprintf("%s is put to a vote and you may not vote in this field (it needs authority %d%s); %s may",
		d.Conflict.ID, d.Policy.VoterMinAuthority, rolesOf(d.Policy), who)
}

// planBallot is the ballot keep A or keep B casts on the conflict of d.
func planBallot(me model.Agent, kind quickKind, d model.ConflictDetail) plan {
	choice := d.Conflict.UnitA
	if kind == quickKeepB {
		choice = d.Conflict.UnitB
	}
	return plan{detail: d, winner: choice,
		req:  model.MergeRequest{ConflictID: d.Conflict.ID, ExpectedVersion: d.Conflict.Version},
		vote: &model.VoteRequest{ConflictID: d.Conflict.ID, Choice: choice, ExpectedVersion: d.Conflict.Version}}
}

// ballotAfter is the tally a ballot by me for choice leaves on the
// conflict of d, what it means, and the ballot it replaces ("" if none).
func ballotAfter(me model.Agent, d model.ConflictDetail, choice string) (model.Tally, model.Outcome, string, string) {
	ballots := []model.Ballot{{VoterID: me.ID, Choice: choice}}
	replaces := ""
	for _, b := range d.Ballots {
		if b.VoterID == me.ID {
			replaces = b.Choice
			continue
		}
		ballots = append(ballots, b)
	}
	t := model.Count(d.Conflict, ballots, d.Policy.Quorum)
	o, winner := t.Decide(d.Conflict, d.Policy.Tie)
	return t, o, winner, replaces
}

// ballotLine says, in full, what one ballot does: "Ballot for A
// (mem-046) on conflict-014: your ballot makes it 2–1 of quorum 3: this
// closes the vote, mem-046 prevails and mem-047 is superseded".
func (m *Model) ballotLine(pl plan) string {
	st := m.styles
	d := pl.detail
	c := d.Conflict
	side := c.Side(pl.winner)
	t, o, winner, replaces := ballotAfter(m.me, d, pl.winner)
	var b strings.Builder
	fmt.Fprintf(&b, "on %s: ", safetext.Line(c.ID))
	if replaces == pl.winner {
		b.WriteString("you voted for " + side + " already; this replaces your rationale. ")
	} else if replaces != "" {
		b.WriteString("it replaces your ballot for " + c.Side(replaces) + ". ")
	}
	fmt.Fprintf(&b, "Your ballot makes it %s of quorum %d", score(t), t.Quorum)
	switch o {
	case model.VoteWon:
		loser := c.UnitA
		if winner == c.UnitA {
			loser = c.UnitB
		}
		fmt.Fprintf(&b, ": this closes the vote, %s prevails and %s is superseded", safetext.Line(winner), safetext.Line(loser))
	case model.VoteTiedEscalate:
		b.WriteString(": a tie at the quorum, so it goes to a human operator")
	default:
		if left := t.Quorum - t.Total(); left > 0 {
			b.WriteString(": the vote stays open, " + strconv.Itoa(left) + " more needed")
		} else {
			b.WriteString(": a tie, and the vote stays open")
		}
	}
	return st.Header.Render("Ballot for "+side+" ("+safetext.Line(pl.winner)+")") + " " + b.String() + st.Muted.Render(" · why?")
}

// score is a tally as "2–1 (A–B)".
func score(t model.Tally) string { return fmt.Sprintf("%d–%d (A–B)", t.ForA, t.ForB) }

// ballotsOf names the ballots of a closed vote, side by side: "2–1:
// lead-priya, lead-tomas for A; lead-kenji for B".
func ballotsOf(d model.ConflictDetail) string {
	var a, b []string
	for _, bl := range d.Ballots {
		switch d.Conflict.Side(bl.Choice) {
		case "A":
			a = append(a, safetext.Line(bl.VoterID))
		case "B":
			b = append(b, safetext.Line(bl.VoterID))
		}
	}
	out := fmt.Sprintf("%d–%d", len(a), len(b))
	var parts []string
	if len(a) > 0 {
		parts = append(parts, strings.Join(a, ", ")+" for A")
	}
	if len(b) > 0 {
		parts = append(parts, strings.Join(b, ", ")+" for B")
	}
	if len(parts) > 0 {
		out += ": " + strings.Join(parts, "; ")
	}
	return out
}

// refusedAll says why the field would refuse every plan of a quick
// decision of kind, in one message ("" when it would take one of them).
func refusedAll(kind quickKind, plans []plan) string {
	var why []string
	for _, pl := range plans {
		if pl.refusal == "" {
			return ""
		}
		why = append(why, safetext.Line(pl.req.ConflictID)+": "+pl.refusal)
	}
	if len(why) == 1 {
		return kindNames[kind] + " on " + why[0] + "."
	}
	return batchNames[kind] + " none of the marked conflicts: " + strings.Join(why, "; ") + "."
}
