package review

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// outcome gathers the effects of one decision; the first error stops the
// rest (each step checks o.err).
type outcome struct {
	s         *Service
	tx        store.Tx
	op        string // the operation, for errors: MERGE unless set
	d         decision
	by        string
	rationale string
	message   string // the offline message applied, "" for a live decision
	epoch     int64
	now       time.Time
	err       error

	conflict   model.Conflict
	overridden []model.Ballot // a vote closed by an operator, with its ballots
	closing    *model.Ballot  // the ballot that closes a vote, when one does
	superseded []string
	newUnit    *string
	notified   []string
	// timeout, revision and continuedBy go into the logged event's
	// payload besides the request and the outcome: what a deadline
	// executed, a rework's revision (model.DecisionLog).
	timeout     *model.Timeout
	revision    string
	continuedBy string
}

func (o *outcome) update(c model.Conflict) {
	if o.err != nil {
		return
	}
	if err := o.tx.ConflictUpdate(c, o.d.Conflict.Version); err != nil {
		if store.IsStale(err) {
			op := cmp.Or(o.op, model.OpMerge)
			err = model.Errorf(op, model.CodeInvalidTransition, "re-read the conflict", "%s changed while deciding", c.ID)
		}
		o.err = err
		return
	}
	c.Version = o.d.Conflict.Version + 1
	o.conflict = c
}

func (o *outcome) tell(ids []string, n model.Notification, actors ...string) {
	if o.err != nil {
		return
	}
	n.Epoch, n.CreatedAt, n.ConflictID = o.epoch, o.now, &o.d.Conflict.ID
	got, err := notify(o.tx, ids, n, actors...)
	o.err = err
	o.notified = mergeSorted(o.notified, got)
}

// concerned is who is told of the change o makes to its conflict, by
// the field's one rule (model.Concerned).
func (o *outcome) concerned(event string) []string {
	if o.err != nil {
		return nil
	}
	after := o.conflict
	if after.ID == "" {
		after = o.d.Conflict
	}
	ch := model.Change{Event: event, Before: o.d.Conflict, After: after, Authors: o.authors(), Ballots: o.d.Ballots}
	if ch.NeedsVoters() {
		ch.Voters, o.err = voters(o.tx, o.d.ConflictDetail)
	}
	if ch.NeedsOperators() && o.err == nil {
		ch.Operators, o.err = humanOperators(o.tx)
	}
	return model.Concerned(ch)
}

// tellConcerned tells everyone concerned of the change o makes
// (concerned) but those in skip, n for event; actors, when given, are
// the only ones asked to act. When the change closes a vote, whoever cast
// a ballot (and is not asked to act) is told with a vote_closed notice
// that gives the tally.
func (o *outcome) tellConcerned(event string, n model.Notification, skip []string, actors ...string) {
	ids := o.concerned(event)
	if o.err != nil {
		return
	}
	n.Event = event
	var casters, rest []string
	for _, id := range ids {
		if slices.Contains(skip, id) {
			continue
		}
		asked := n.RequiresAction && (len(actors) == 0 || slices.Contains(actors, id))
		cast := slices.ContainsFunc(o.d.Ballots, func(b model.Ballot) bool { return b.VoterID == id })
		if o.d.Conflict.Status == model.StatusPendingVote && cast && !asked {
			casters = append(casters, id)
		} else {
			rest = append(rest, id)
		}
	}
	o.tell(rest, n, actors...)
	if len(casters) > 0 {
		t := model.Count(o.d.Conflict, o.d.Ballots, o.d.Policy.Quorum)
		closed := n
		closed.Event, closed.RequiresAction = model.EventVoteClosed, false
		closed.Summary = fmt.Sprintf("The vote on %s closed at %d for A, %d for B of quorum %d%s. %s",
			o.d.Conflict.ID, t.ForA, t.ForB, t.Quorum, o.closingBallot(), n.Summary)
		o.tell(casters, closed)
	}
}

// closingBallot names the ballot that closed the vote, when one did:
// ", with lead-kenji's ballot for mem-011 (B)".
func (o *outcome) closingBallot() string {
	b := o.closing
	if b == nil {
		return ""
	}
	return fmt.Sprintf(", with %s's ballot for %s (%s)", b.VoterID, b.Choice, o.d.Conflict.Side(b.Choice))
}

// decided tells everyone concerned of the decision o made: who, how,
// what (the outcome), what became of the proposal, and why (synthesis is
// the text of the unit a synthesis made).
func (o *outcome) decided(what string, unit *string, synthesis string) {
	if o.err != nil {
		return
	}
	c, r := o.conflict, o.conflict.Resolution
	p := o.d.Conflict.Proposal
	verdict := model.ProposalVerdict(p, r, synthesis)
	o.tellConcerned(model.EventConflictResolved, model.Notification{MemoryUnitID: unit,
		Summary: model.DecisionNotice(c, *r, what, verdict, p)}, nil)
}

func (o *outcome) authors() []string {
	return []string{o.d.A.Unit.Source.AgentID, o.d.B.Unit.Source.AgentID}
}

// escalate sends the conflict to people, routed as r and the policy say,
// with the escalating agent's proposal if there is one.
func (o *outcome) escalate(reason string, r model.Routing, proposal *model.Proposed) {
	if o.err != nil {
		return
	}
	route, note, err := routeFor(o.tx, cmp.Or(o.op, model.OpMerge), o.d.ConflictDetail, routeEscalation, o.by, r, o.now)
	if err != nil {
		o.err = err
		return
	}
	var p *model.Proposal
	if proposal != nil {
		p = &model.Proposal{By: o.by, WinnerID: proposal.WinnerID, Synthesis: proposal.Synthesis}
	}
	o.escalateRoute(reason, route, note, p)
}

// escalateRoute sends the conflict to people along route: its owner and
// the authors are told, or, without an owner, the authors and every human
// operator.
func (o *outcome) escalateRoute(reason string, route *model.Route, note string, p *model.Proposal) {
	if o.err != nil {
		return
	}
	c := o.d.Conflict
	c.Status = model.StatusEscalated
	c.Escalation = &model.Escalation{By: o.by, Reason: reason, Epoch: o.epoch, At: o.now}
	c.Route, c.Proposal = route, p
	o.update(c)
	if o.err != nil {
		return
	}
	to, who := []string{route.Owner}, route.Owner
	if route.Owner == "" {
		if to, o.err = humanOperators(o.tx); o.err != nil {
			return
		}
		who = "a human operator"
	}
	if prev := o.d.Conflict.Route; prev != nil && prev.Owner != "" && prev.Owner != route.Owner {
		who += " (from " + prev.Owner + ")"
	}
	summary := fmt.Sprintf("%s escalated to %s by %s%s: %s", c.ID, who, o.by, routeSentence(route, o.now), oneLine(reason))
	if p != nil {
		summary += fmt.Sprintf(" %s proposes: %s.", p.By, p.Describe(c))
	}
	if note != "" {
		summary += " (" + note + ")"
	}
	o.tellConcerned(model.EventConflictEscalated, model.Notification{RequiresAction: true, Summary: summary}, nil,
		append(o.authors(), to...)...)
}

func (o *outcome) openVote(r model.Routing) {
	if o.err != nil {
		return
	}
	route, _, err := routeFor(o.tx, cmp.Or(o.op, model.OpMerge), o.d.ConflictDetail, routeVote, o.by, r, o.now)
	if err != nil {
		o.err = err
		return
	}
	c := o.d.Conflict
	c.Status = model.StatusPendingVote
	c.VoteOpened = &model.Escalation{By: o.by, Reason: o.rationale, Epoch: o.epoch, At: o.now}
	c.Route = nil // a vote goes to its voters: it has a route only for its deadline
	if route.Deadline != nil {
		c.Route = route
	}
	o.update(c)
	if o.err == nil {
		o.err = o.tx.BallotClear(c.ID)
	}
	if o.err != nil {
		return
	}
	vs, err := voters(o.tx, o.d.ConflictDetail)
	if err != nil {
		o.err = err
		return
	}
	o.tell(append(o.concerned(model.EventVoteOpened), vs...), model.Notification{Event: model.EventVoteOpened, RequiresAction: true,
		Summary: fmt.Sprintf("%s is put to a vote by %s (quorum %d%s)", c.ID, o.by, o.d.Policy.Quorum, routeSentence(route, o.now))})
}

// resolve settles the conflict for winner ("" when nobody wins: dismiss);
// the loser is superseded.
func (o *outcome) resolve(strategy model.Strategy, winner string) {
	c := o.d.Conflict
	c.Status, c.Route = model.StatusResolved, nil
	c.Resolution = &model.Resolution{Strategy: strategy, Rationale: o.rationale, ResolvedBy: o.by,
		EpochResolved: o.epoch, ResolvedAt: o.now}
	what := "dismissed as not a real conflict; both units stand"
	if winner == "" && strategy == model.Dismiss && o.err == nil {
		// Whoever dismisses a conflict says its units do not contradict
		// each other: detection never opens one between them again.
		o.err = o.tx.DetectDismiss(model.Dismissed{UnitA: c.UnitA, UnitB: c.UnitB, By: o.by, At: o.now, ConflictID: c.ID})
	}
	if winner != "" {
		loser, _ := c.Other(winner)
		c.Resolution.WinnerID = &winner
		o.supersede(loser)
		what = fmt.Sprintf("%s prevails, %s superseded", winner, loser)
	}
	o.update(c)
	o.settle(c.UnitA, c.UnitB)
	o.decided(what, nil, "")
}

func (o *outcome) synthesize(text string) {
	c := o.d.Conflict
	a, b := o.d.A.Unit, o.d.B.Unit
	score := max(a.Confidence.ScoreOr(0), b.Confidence.ScoreOr(0))
	u := model.Unit{
		Mode: model.ModeCommitted, Type: model.TypeSynthesis, Content: text, Status: model.UnitActive, Epoch: o.epoch,
		Intent: model.Intent{Purpose: fmt.Sprintf("Reconcile %s and %s (%s)", a.ID, b.ID, c.ID)},
		Confidence: model.Confidence{Score: &score, Reasoning: o.rationale,
			Evidence: []string{a.ID, b.ID}, Assumptions: []string{}},
		Source: model.Source{AgentID: o.d.caller.ID, AgentRole: o.d.caller.Role, Timestamp: o.now},
		Relations: []model.Relation{
			{Type: model.RelElaborates, TargetID: a.ID, Description: "synthesis of " + c.ID},
			{Type: model.RelElaborates, TargetID: b.ID, Description: "synthesis of " + c.ID},
		},
	}
	if o.err == nil {
		id, err := o.tx.UnitInsert(u)
		o.err, o.newUnit = err, &id
	}
	o.supersede(a.ID)
	o.supersede(b.ID)
	c.Status, c.Route = model.StatusResolved, nil
	c.Resolution = &model.Resolution{Strategy: model.Synthesis, SynthesisUnitID: o.newUnit, Rationale: o.rationale,
		ResolvedBy: o.by, EpochResolved: o.epoch, ResolvedAt: o.now}
	o.update(c)
	o.decided(fmt.Sprintf("%s and %s superseded by %s", a.ID, b.ID, deref(o.newUnit)), o.newUnit, text)
}

// override records that a human operator closes a vote short of its
// quorum: the ballots cast so far go into the rationale and the log, and
// their voters are told.
func (o *outcome) override() {
	t := o.d.Tally
	o.overridden = o.d.Ballots
	note := fmt.Sprintf("Overrides the vote at %d for A, %d for B of quorum %d.", t.ForA, t.ForB, t.Quorum)
	if len(o.d.Ballots) > 0 {
		note += " " + ballotSummary(o.d.Conflict, o.d.Ballots)
	}
	o.rationale += "\n\n" + note
	// Whoever cast a ballot is told with the decision (tellConcerned).
}

func (o *outcome) supersede(id string) {
	if o.err != nil {
		return
	}
	o.err = o.tx.UnitSetStatus(id, model.UnitSuperseded)
	o.superseded = append(o.superseded, id)
}

func (o *outcome) settle(ids ...string) {
	for _, id := range ids {
		if o.err == nil {
			o.err = settle(o.tx, id)
		}
	}
}

// logDecision appends the decision's event, by o.by: req and what the
// decision did (model.DecisionLog).
func logDecision[R any](o *outcome, op string, req R) {
	if o.err != nil {
		return
	}
	p := model.DecisionLog[R]{Request: req, Status: o.conflict.Status, SupersededUnits: nonNil(o.superseded),
		NewUnitID: o.newUnit, NotifiedAgents: nonNil(o.notified), MessageID: o.message,
		OverriddenBallots: o.overridden, Timeout: o.timeout, Revision: o.revision, ContinuedBy: o.continuedBy}
	if r := o.conflict.Route; r != nil && o.conflict.Status.Routed() && op != model.OpVote {
		p.Route = r // where it went, with the policy's defaults applied
	}
	_, o.err = o.tx.EventAppend(model.Event{Epoch: o.epoch, Operation: op, AgentID: o.by,
		ConflictID: &o.d.Conflict.ID, UnitID: o.newUnit, At: o.now, Payload: mustJSON(p)})
}

func (o *outcome) response() (model.MergeResponse, error) {
	if o.err != nil {
		return model.MergeResponse{}, o.err
	}
	return model.MergeResponse{Status: o.conflict.Status, Conflict: o.conflict, SideEffects: model.SideEffects{
		SupersededUnits: nonNil(o.superseded), NewUnitID: o.newUnit, NotifiedAgents: nonNil(o.notified)}}, nil
}

func mergeSorted(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(a, b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sortStrings(out)
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// oneLine is s on one line, whole: a notice carries all of it, and
// whoever shows it wraps it.
func oneLine(s string) string {
	return model.OneLine(s)
}
