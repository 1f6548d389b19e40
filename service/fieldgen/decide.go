package fieldgen

import (
	"fmt"
	"strings"

	"arbiter/model"
)

var escalationReasons = []string{
	"The rules split: last write and confidence pick different units.",
	"Touches the PCI scope; a person must sign this off.",
	"Both measurements look sound and the cutover depends on the answer.",
	"Needs someone who can talk to the acquirer.",
	"The numbers disagree by more than our error budget; I cannot tell which is right.",
	"Policy question, not a data question.",
}

var voteReasons = []string{
	"Let the leads decide: both positions are defensible.",
	"Trade-off between risk and schedule; the leads own that.",
	"No deterministic rule fits; put it to the leads.",
}

var ballotReasons = []string{
	"Matches what we saw in the last incident.", "The method is sounder.", "The sample is larger.",
	"Safer for the cutover.", "The other reading double-counts.", "Cheaper to reverse if wrong.",
}

// decide plays p's decisions, one operation each, and writes the
// conflict's final state over the one DETECT stored.
func (g *gen) decide(p *plan) {
	c := p.conflict()
	r := g.r
	switch {
	case p.stage == escalated:
		g.escalate(p, &c)
	case p.stage == pendingVote:
		g.openVote(p, &c)
		for i := range p.ballots {
			g.ballot(p, &c, i)
		}
	case p.viaOperator:
		g.escalate(p, &c)
		g.resolve(p, &c, pick(r, g.operators), p.how)
	case p.how == model.Vote:
		g.openVote(p, &c)
		for i := range p.ballots {
			g.ballot(p, &c, i)
		}
	default:
		by := pick(r, g.seniors)
		if p.how == model.Authority {
			by = g.authority(p.typ)
		}
		g.resolve(p, &c, by, p.how)
	}
	g.w.decision(c)
	g.counts.Statuses[c.Status]++
}

// authority is who decides a conflict of type t by authority: an agent of
// the role the policy names, or a human operator where none is named.
func (g *gen) authority(t model.ConflictType) member {
	if role, ok := Policy().AuthorityRoles[t]; ok {
		return pick(g.r, g.byRole[role])
	}
	return pick(g.r, g.operators)
}

func (p *plan) authors() []string { return []string{p.a.by.ID, p.b.by.ID} }

// merge logs a MERGE as the rules do.
func (g *gen) merge(by string, epoch int64, c *model.Conflict, request model.MergeRequest, superseded []string, newUnit *string, notified []string) {
	g.decision(model.OpMerge, by, epoch, c, newUnit, decisionLog(request, c, superseded, newUnit, notified))
}

// decision logs a decision's event with its payload.
func (g *gen) decision(op string, by string, epoch int64, c *model.Conflict, newUnit *string, payload any) {
	g.w.event(model.Event{Epoch: epoch, Operation: op, AgentID: by, ConflictID: &c.ID, UnitID: newUnit, At: g.at(epoch),
		Payload: mustJSON(payload)})
	g.counts.Events++
}

// decisionLog is the payload of a decision on c, as review writes it.
func decisionLog[R any](request R, c *model.Conflict, superseded []string, newUnit *string, notified []string) model.DecisionLog[R] {
	return model.DecisionLog[R]{Request: request, Status: c.Status, SupersededUnits: nonNil(superseded),
		NewUnitID: newUnit, NotifiedAgents: nonNil(notified)}
}

func (g *gen) escalate(p *plan, c *model.Conflict) {
	by := p.b.by
	if g.r.IntN(5) < 2 {
		by = pick(g.r, g.seniors)
	}
	reason := pick(g.r, escalationReasons)
	epoch, at := g.tick()
	req := model.MergeRequest{ConflictID: c.ID, Strategy: model.HumanEscalation, ExpectedVersion: c.Version,
		Resolution: model.MergeResolution{Rationale: reason}}
	c.Status, c.Version = model.StatusEscalated, c.Version+1
	c.Escalation = &model.Escalation{By: by.ID, Reason: reason, Epoch: epoch, At: at}
	ids := p.authors()
	for _, o := range g.operators {
		ids = append(ids, o.ID)
	}
	notified := g.tell(ids, model.Notification{Event: model.EventConflictEscalated, Epoch: epoch, CreatedAt: at,
		ConflictID: &c.ID, RequiresAction: true,
		Summary: fmt.Sprintf("%s escalated to a human operator by %s: %s", c.ID, by.ID, reason)})
	g.merge(by.ID, epoch, c, req, nil, nil, notified)
}

func (g *gen) openVote(p *plan, c *model.Conflict) {
	by := pick(g.r, g.seniors)
	reason := pick(g.r, voteReasons)
	epoch, at := g.tick()
	req := model.MergeRequest{ConflictID: c.ID, Strategy: model.Vote, ExpectedVersion: c.Version,
		Resolution: model.MergeResolution{Rationale: reason}}
	c.Status, c.Version = model.StatusPendingVote, c.Version+1
	c.VoteOpened = &model.Escalation{By: by.ID, Reason: reason, Epoch: epoch, At: at}
	notified := g.tell(append(p.authors(), Leads...), model.Notification{Event: model.EventVoteOpened, Epoch: epoch,
		CreatedAt: at, ConflictID: &c.ID, RequiresAction: true,
		Summary: fmt.Sprintf("%s is put to a vote by %s (quorum %d)", c.ID, by.ID, Policy().Quorum)})
	g.merge(by.ID, epoch, c, req, nil, nil, notified)
}

// ballot casts p's ballot i; the third closes the vote for the majority.
func (g *gen) ballot(p *plan, c *model.Conflict, i int) {
	bp := p.ballots[i]
	epoch, at := g.tick()
	choice := c.UnitA
	if bp.forB {
		choice = c.UnitB
	}
	rationale := pick(g.r, ballotReasons)
	p.ballots[i].rationale = rationale
	g.w.ballot(model.Ballot{ConflictID: c.ID, VoterID: bp.voter, Choice: choice, Rationale: rationale, Epoch: epoch, CastAt: at})
	g.counts.Ballots++
	var forA, forB int
	var voters, parts []string
	for _, b := range p.ballots[:i+1] {
		side, unit := "A", c.UnitA
		if b.forB {
			side, unit = "B", c.UnitB
			forB++
		} else {
			forA++
		}
		voters = append(voters, b.voter)
		parts = append(parts, fmt.Sprintf("%s for %s (%s): %s", b.voter, unit, side, b.rationale))
	}
	var superseded, notified []string
	quorum := Policy().Quorum
	if forA+forB >= quorum {
		winner := c.UnitA
		if forB > forA {
			winner = c.UnitB
		}
		tally := fmt.Sprintf("%d–%d at quorum %d", max(forA, forB), min(forA, forB), quorum)
		why := fmt.Sprintf("Vote closed %s for %s. Ballots: %s.", tally, winner, strings.Join(parts, "; "))
		superseded, notified = g.settle(p, c, g.byID[bp.voter], model.Vote, why, epoch, nil)
		notified = merged(notified, g.tell(voters, model.Notification{Event: model.EventVoteClosed, Epoch: epoch,
			CreatedAt: at, ConflictID: &c.ID,
			Summary: fmt.Sprintf("the vote on %s closed %s: %s prevails", c.ID, tally, winner)}))
	}
	ballot := model.BallotLog{ConflictID: c.ID, Choice: choice, Rationale: rationale, ForA: forA, ForB: forB}
	g.decision(model.OpVote, bp.voter, epoch, c, nil, decisionLog(ballot, c, superseded, nil, notified))
}

// resolve is a MERGE that settles c with strategy s.
func (g *gen) resolve(p *plan, c *model.Conflict, by member, s model.Strategy) {
	epoch, _ := g.tick()
	req := model.MergeRequest{ConflictID: c.ID, Strategy: s, ExpectedVersion: c.Version,
		Resolution: model.MergeResolution{Rationale: g.rationale(p, s, by)}}
	if s == model.ConfidenceWeighted || s == model.Authority {
		w := g.winner(p)
		req.Resolution.WinnerID = &w
	}
	var synthesis *string
	if s == model.Synthesis {
		text := g.synthesisText(p)
		req.Resolution.Synthesis, synthesis = &text, &text
	}
	superseded, notified := g.settle(p, c, by, s, req.Resolution.Rationale, epoch, synthesis)
	var newUnit *string
	if c.Resolution.SynthesisUnitID != nil {
		newUnit = c.Resolution.SynthesisUnitID
	}
	g.merge(by.ID, epoch, c, req, superseded, newUnit, notified)
}

func (g *gen) winner(p *plan) string {
	if p.winnerB {
		return p.b.id
	}
	return p.a.id
}

// settle marks c resolved with its resolution, writes any synthesis unit
// and tells the authors; it returns the superseded units and the agents
// told. Unit statuses were written final with the units.
func (g *gen) settle(p *plan, c *model.Conflict, by member, s model.Strategy, rationale string, epoch int64, synthesis *string) ([]string, []string) {
	at := g.at(epoch)
	res := &model.Resolution{Strategy: s, Rationale: rationale, ResolvedBy: by.ID, EpochResolved: epoch, ResolvedAt: at}
	n := model.Notification{Event: model.EventConflictResolved, Epoch: epoch, CreatedAt: at, ConflictID: &c.ID}
	var superseded []string
	switch s {
	case model.Dismiss:
		n.Summary = fmt.Sprintf("%s dismissed by %s as not a real conflict; both units stand", c.ID, by.ID)
	case model.Synthesis:
		id := g.synthesisUnit(p, c, by, *synthesis, rationale, epoch)
		res.SynthesisUnitID, n.MemoryUnitID = &id, &id
		superseded = []string{p.a.id, p.b.id}
		n.Summary = fmt.Sprintf("%s resolved by %s (synthesis): %s and %s superseded by %s", c.ID, by.ID, p.a.id, p.b.id, id)
	default:
		winner, loser := p.a.id, p.b.id
		if p.winnerB {
			winner, loser = loser, winner
		}
		res.WinnerID = &winner
		superseded = []string{loser}
		n.Summary = fmt.Sprintf("%s resolved by %s (%s): %s prevails, %s superseded", c.ID, by.ID, s, winner, loser)
	}
	c.Status, c.Version, c.Resolution = model.StatusResolved, c.Version+1, res
	return superseded, g.tell(p.authors(), n)
}

// synthesisUnit writes the unit a synthesis creates: elaborating both
// originals, recorded by the decider.
func (g *gen) synthesisUnit(p *plan, c *model.Conflict, by member, text, rationale string, epoch int64) string {
	g.unitSeq++
	sc := max(p.a.score, p.b.score)
	u := model.Unit{
		ID: fmt.Sprintf("mem-%03d", g.unitSeq), Mode: model.ModeCommitted, Type: model.TypeSynthesis, Content: text,
		Status: model.UnitActive, Epoch: epoch,
		Intent: model.Intent{Purpose: fmt.Sprintf("Reconcile %s and %s (%s)", p.a.id, p.b.id, c.ID)},
		Confidence: model.Confidence{Score: &sc, Reasoning: rationale, Evidence: []string{p.a.id, p.b.id},
			Assumptions: []string{}},
		Source: model.Source{AgentID: by.ID, AgentRole: by.Role, Timestamp: g.at(epoch)},
		Relations: []model.Relation{
			{Type: model.RelElaborates, TargetID: p.a.id, Description: "synthesis of " + c.ID},
			{Type: model.RelElaborates, TargetID: p.b.id, Description: "synthesis of " + c.ID},
		},
	}
	g.w.unit(g.unitSeq, u)
	g.counts.Units++
	g.counts.Relations += len(u.Relations)
	g.counts.ContentBytes += int64(len(u.Content))
	return u.ID
}

func (g *gen) synthesisText(p *plan) string {
	head := fmt.Sprintf("Both hold in part. %s measured %s under load; %s measured it at rest.",
		p.a.id, p.topic, p.b.id)
	return head + "\n\n" + markdown(g.r, p.topic, 200+g.r.IntN(1500))
}

func (g *gen) rationale(p *plan, s model.Strategy, by member) string {
	switch s {
	case model.LastWriteWins:
		return "The later unit reflects the current state of " + p.topic + "; the earlier one is out of date."
	case model.ConfidenceWeighted:
		return fmt.Sprintf("The better-supported reading of %s wins: %.2f against %.2f.", p.topic,
			max(p.a.score, p.b.score), min(p.a.score, p.b.score))
	case model.Dismiss:
		return "Not a real conflict: the two units describe " + p.topic + " under different conditions."
	case model.Synthesis:
		return "Each unit is right about part of " + p.topic + "; the synthesis keeps both parts."
	case model.Authority:
		return fmt.Sprintf("As %s (%s) I decide %s conflicts: %s is the reading we act on.", by.ID, by.Role, p.typ, g.winner(p))
	}
	return "Decided."
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func merged(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, s := range b {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return sortedCopy(out)
}
