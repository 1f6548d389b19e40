package review

import (
	"fmt"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// lapsed is a deadline executing: the decision by "fallback" it amounts
// to, and what the sweep reports of it. Each step stops at the first
// error, as the outcome's do.
type lapsed struct {
	*outcome
	route model.Route
	// lapse says which deadline passed, for the rationale.
	lapse string
	act   *model.SweepAction
	req   model.MergeRequest
	logOp string
}

// deadline executes what the deadline of the conflict of d asks for at
// at: a vote's majority, or the route's fallback, as a decision by
// "fallback"; a vote with neither is overdue.
func (s *Service) deadline(tx store.Tx, d model.ConflictDetail, at time.Time) (*model.SweepAction, error) {
	c, r := d.Conflict, *d.Conflict.Route
	majority := voteMajority(d)
	if c.Status == model.StatusPendingVote && majority == "" && r.Fallback == "" {
		return remind(tx, d, at, 2)
	}
	l := s.lapse(tx, d, at)
	switch rule := r.Fallback.Rule(); {
	case majority != "":
		l.closeVote(majority)
	case r.Fallback == model.FallbackDismiss:
		l.dismiss()
	case rule != "":
		l.pick(rule)
	case r.Fallback == model.FallbackRework && c.Status != model.StatusResolving:
		l.rework()
	case r.Fallback.EscalateTo() != "":
		l.escalateTo(r.Fallback.EscalateTo())
	default:
		l.stuck(fmt.Sprintf("the fallback %s cannot apply to a conflict %s", r.Fallback, c.Status),
			"it stays escalated for any human operator, without a deadline")
	}
	return l.finish()
}

// voteMajority is the unit the ballots cast on d's vote pick, if enough
// were cast and they do not tie; "" otherwise, or if d is no vote.
func voteMajority(d model.ConflictDetail) string {
	t := d.Tally
	if d.Conflict.Status != model.StatusPendingVote || t.Total() < max(1, d.Policy.VoteMinBallots) || t.ForA == t.ForB {
		return ""
	}
	if t.ForB > t.ForA {
		return d.Conflict.UnitB
	}
	return d.Conflict.UnitA
}

// lapse starts the decision a deadline of d executes at at.
func (s *Service) lapse(tx store.Tx, d model.ConflictDetail, at time.Time) *lapsed {
	c, r := d.Conflict, *d.Conflict.Route
	o := &outcome{s: s, tx: tx, op: model.OpSweep, d: decision{ConflictDetail: d, caller: model.Agent{ID: model.FallbackAgent}},
		by: model.FallbackAgent, now: at}
	o.epoch, o.err = tx.EpochTick()
	o.timeout = &model.Timeout{Outcome: model.TimeoutOutcome, Fallback: r.Fallback, Deadline: r.Deadline,
		RoutedTo: r.Owner, RoutedAt: r.Since}
	who := r.Owner
	if who == "" {
		who = "any human operator"
	}
	if c.Status == model.StatusPendingVote {
		who = "the voters"
	}
	return &lapsed{outcome: o, route: r, logOp: model.OpMerge,
		act: &model.SweepAction{ConflictID: c.ID, Kind: model.SweepFallback, Fallback: r.Fallback},
		req: model.MergeRequest{ConflictID: c.ID},
		lapse: fmt.Sprintf("The deadline (%s, %s after it was routed to %s) passed without an answer",
			r.Deadline.UTC().Format("2006-01-02 15:04 UTC"), model.ShortDuration(r.Length()), who)}
}

// closeVote settles a vote for the majority of the ballots cast.
func (l *lapsed) closeVote(majority string) {
	c, t := l.d.Conflict, l.d.Tally
	l.rationale = fmt.Sprintf("The vote's deadline (%s) passed at %d for A, %d for B of quorum %d; the majority of the ballots cast prevails (the field asks for at least %d). %s",
		l.route.Deadline.UTC().Format("2006-01-02 15:04 UTC"), t.ForA, t.ForB, t.Quorum, max(1, l.d.Policy.VoteMinBallots), ballotSummary(c, l.d.Ballots))
	l.resolve(model.Vote, majority)
	l.timeout.WinnerID = &majority
	l.req.Strategy = model.Vote
	l.act.Result = fmt.Sprintf("the vote closed at its deadline: %s (%s) prevails", c.Side(majority), majority)
}

func (l *lapsed) dismiss() {
	l.rationale = l.lapse + "; the fallback dismisses it: both units stand."
	l.resolve(model.Dismiss, "")
	l.req.Strategy = model.Dismiss
	l.act.Result = "dismissed: both units stand"
}

// pick settles the conflict for what rule picks, unless the units tie or
// its pick no longer stands.
func (l *lapsed) pick(rule model.Strategy) {
	c := l.d.Conflict
	p := model.RulePick(rule, l.d.A.Contender(), l.d.B.Contender())
	winner := p.WinnerID
	switch {
	case p.Tie:
		l.stuck(fmt.Sprintf("the fallback %s cannot decide: the units tie (%s)", rule, p.Why),
			fmt.Sprintf("%s ties (%s): it stays escalated for any human operator, without a deadline", rule, p.Why))
	case standing(l.d, winner) != nil:
		l.stuck(fmt.Sprintf("the fallback %s picks %s, which no longer stands", rule, winner),
			fmt.Sprintf("%s picks %s, which no longer stands: it stays escalated for any human operator", rule, winner))
	default:
		l.rationale = fmt.Sprintf("%s; the fallback %s picks %s (%s).", l.lapse, rule, winner, p.Why)
		l.resolve(rule, winner)
		l.req.Strategy, l.req.Resolution.WinnerID = rule, &winner
		l.act.Result = fmt.Sprintf("%s: %s (%s) prevails", rule, c.Side(winner), winner)
	}
}

// rework sends the conflict back to its authors, with the policy's
// deadline.
func (l *lapsed) rework() {
	if l.err != nil {
		return
	}
	route, _, err := routeFor(l.tx, model.OpSweep, l.d.ConflictDetail, routeRework, model.FallbackAgent, model.Routing{}, l.now)
	if err != nil {
		l.err = err
		return
	}
	l.rationale = l.lapse + "; the fallback sends it back to its authors: revise your units."
	if l.d.Conflict.Status == model.StatusPendingVote {
		l.overridden = l.d.Ballots
	}
	l.sendBack(l.rationale, route)
	l.logOp = model.OpRework
	l.act.Result = "sent back to its authors for rework"
}

// escalateTo routes the conflict to the person to, with a fresh deadline
// of the same length and no fallback.
func (l *lapsed) escalateTo(to string) {
	if l.err != nil {
		return
	}
	ok, err := isPerson(l.tx, to)
	if err != nil {
		l.err = err
		return
	}
	if !ok {
		l.stuck(fmt.Sprintf("the fallback routes it to %s, who is not a registered person", to),
			fmt.Sprintf("%s is not a registered person: it stays escalated for any human operator", to))
		return
	}
	length := l.route.Length()
	deadline := l.now.Add(length)
	route := &model.Route{Owner: to, Since: l.now, Deadline: &deadline}
	l.rationale = fmt.Sprintf("%s; the fallback routes it to %s, with a fresh deadline of %s.", l.lapse, to, model.ShortDuration(length))
	l.escalateRoute(l.rationale, route, "", l.d.Conflict.Proposal)
	l.req.Strategy, l.req.Routing = model.HumanEscalation, &model.Routing{To: to}
	l.act.Result = fmt.Sprintf("routed to %s, due in %s", to, model.ShortDuration(length))
}

// stuck leaves the conflict escalated for any human operator, without a
// deadline, when its fallback cannot decide it: why goes into the
// rationale, result into the sweep's report.
func (l *lapsed) stuck(why, result string) {
	l.rationale = l.lapse + "; " + why + ". It stays escalated for any human operator, without a deadline."
	l.escalateRoute(l.rationale, &model.Route{Since: l.now}, "", l.d.Conflict.Proposal)
	l.req.Strategy = model.HumanEscalation
	l.act.Result = result
}

// finish tells everyone concerned that the deadline passed — the authors,
// the owner and the voters, unless the decision told them already — logs
// the decision and reports it.
func (l *lapsed) finish() (*model.SweepAction, error) {
	l.req.Resolution.Rationale = l.rationale
	concerned := l.concerned(model.EventConflictTimeout)
	var rest []string
	for _, id := range concerned {
		if !contains(l.notified, id) {
			rest = append(rest, id)
		}
	}
	c := l.d.Conflict
	l.tell(rest, model.Notification{Event: model.EventConflictTimeout,
		Summary: fmt.Sprintf("%s: the deadline passed (fallback %s): %s", c.ID, fallbackName(l.route.Fallback), l.act.Result)})
	if l.logOp == model.OpRework {
		logDecision(l.outcome, l.logOp, model.ReworkRequest{ConflictID: c.ID, Rationale: l.rationale})
	} else {
		logDecision(l.outcome, l.logOp, l.req)
	}
	if l.err != nil {
		return nil, l.err
	}
	act := l.act
	act.Status, act.NotifiedAgents, act.Epoch = l.conflict.Status, nonNil(l.notified), l.epoch
	if res := l.conflict.Resolution; res != nil {
		act.Strategy, act.WinnerID = res.Strategy, res.WinnerID
	}
	if l.conflict.Route != nil {
		act.Owner = l.conflict.Route.Owner
	}
	return act, nil
}

func fallbackName(f model.Fallback) string {
	if f == "" {
		return "none: the majority of the ballots"
	}
	return string(f)
}
