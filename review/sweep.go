package review

import (
	"context"
	"errors"
	"fmt"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// Sweep does what the field's deadlines ask for at the service's clock,
// and returns what it did:
//
//   - a conflict waiting for people with a fifth of its time left: its
//     owner (any human operator without one; a vote's voters who have
//     not voted; a rework's authors) is reminded, once;
//   - one past its deadline without a fallback: they are told it is
//     overdue, once; it stays where it is;
//   - one past its deadline with a fallback: the fallback executes —
//     dismiss, a deterministic rule (a tie cannot decide: the conflict
//     stays escalated for any human operator, without deadline), rework
//     (sent back to its authors), or escalate:ID (routed to ID with a
//     fresh deadline of the same length and no fallback) — as a decision
//     by "fallback" with "outcome": "timeout" in its event, telling the
//     authors, the owner and the voters;
//   - a vote past its deadline: the majority of the ballots cast prevails
//     if at least the policy's vote_min_ballots were cast; otherwise its
//     fallback executes (or it is overdue).
//
// Each conflict is handled in a transaction of its own that reads it
// again and acts only if it is still due; a fallback is a compare-and-set
// on the conflict's version like any decision and a reminder one on its
// reminder count. So sweepers racing in separate processes do each thing
// once, and one killed half way leaves each conflict whole. When nothing
// is due, a sweep is one read of two small indexes.
//
// On a read-only field (a decisions file included) Sweep writes nothing
// and returns READ_ONLY.
func (s *Service) Sweep(ctx context.Context) (model.SweepReport, error) {
	const op = model.OpSweep
	rep := model.SweepReport{Actions: []model.SweepAction{}}
	if s.st.ReadOnly() {
		return rep, s.write(ctx, op, func(store.Tx) error { return nil })
	}
	rep.At = s.now()
	var due []model.Conflict
	if err := s.st.Read(ctx, func(tx store.Tx) (err error) { due, err = tx.DueConflicts(rep.At); return err }); err != nil {
		return rep, err
	}
	for _, c := range due {
		var act *model.SweepAction
		err := s.write(ctx, op, func(tx store.Tx) (err error) {
			if s.sweeper != "" {
				if err := tx.ActAs(s.sweeper); err != nil {
					return err
				}
			}
			act, err = s.sweepOne(tx, c.ID, rep.At)
			return err
		})
		switch {
		case model.HasCode(err, model.CodeInvalidTransition):
			continue // another sweeper, or a person, acted first
		case err != nil:
			return rep, err
		case act != nil:
			rep.Actions = append(rep.Actions, *act)
		}
	}
	return rep, nil
}

// sweepOne does what conflict id's route asks for at at, if it still asks
// for anything.
func (s *Service) sweepOne(tx store.Tx, id string, at time.Time) (*model.SweepAction, error) {
	c, err := tx.Conflict(id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil || c.Route == nil {
		return nil, err
	}
	d, err := detail(tx, model.OpSweep, id)
	if err != nil {
		return nil, err
	}
	switch c.Route.DueAt(c.Status, at) {
	case model.DueReminder:
		return remind(tx, d, at, 1)
	case model.DueOverdue:
		return remind(tx, d, at, 2)
	case model.DueDeadline:
		return s.deadline(tx, d, at)
	}
	return nil, nil
}

// waitingFor lists who a routed conflict waits for: its owner, else every
// human operator; for a vote, the eligible voters who have not voted; for
// a rework, its authors (and, once overdue, whoever sent it back).
func waitingFor(tx store.Tx, d model.ConflictDetail, overdue bool) ([]string, error) {
	c := d.Conflict
	switch c.Status {
	case model.StatusPendingVote:
		vs, err := voters(tx, d)
		if err != nil {
			return nil, err
		}
		voted := map[string]bool{}
		for _, b := range d.Ballots {
			voted[b.VoterID] = true
		}
		var out []string
		for _, v := range vs {
			if !voted[v] {
				out = append(out, v)
			}
		}
		return out, nil
	case model.StatusResolving:
		out := []string{d.A.Unit.Source.AgentID, d.B.Unit.Source.AgentID}
		if overdue {
			out = append(out, c.Route.Owner)
		}
		return out, nil
	}
	if c.Route.Owner != "" {
		return []string{c.Route.Owner}, nil
	}
	return humanOperators(tx)
}

// remind tells who the conflict of d waits for that a fifth of its time is
// left (reminders 1) or that it is overdue (2). The conflict's version
// stays; a REMIND event by "sweep" logs it.
func remind(tx store.Tx, d model.ConflictDetail, at time.Time, reminders int) (*model.SweepAction, error) {
	c := d.Conflict
	r := *c.Route
	to, err := waitingFor(tx, d, reminders == 2)
	if err != nil {
		return nil, err
	}
	epoch, err := tx.Tick()
	if err != nil {
		return nil, err
	}
	kind, event := model.SweepReminder, model.EventConflictReminder
	waits := "waits for you"
	if c.Status == model.StatusResolving {
		waits = "waits for its authors' revision"
	}
	summary := fmt.Sprintf("%s %s: %s left of %s (%s)", c.ID, waits, r.DueIn(at), model.ShortDuration(r.Length()), r.DescribeDeadline(at))
	result := fmt.Sprintf("%s left of %s", r.DueIn(at), model.ShortDuration(r.Length()))
	if reminders == 2 {
		kind, event = model.SweepOverdue, model.EventConflictOverdue
		summary = fmt.Sprintf("%s is overdue: its deadline %s passed and no fallback executes; it %s still",
			c.ID, r.Deadline.UTC().Format("2006-01-02 15:04 UTC"), waits)
		result = "no fallback executes: it waits on, overdue"
	}
	notified, err := notify(tx, to, model.Notification{Event: event, Epoch: epoch, CreatedAt: at, ConflictID: &c.ID,
		RequiresAction: true, Summary: summary})
	if err != nil {
		return nil, err
	}
	if err := tx.SetReminded(c.ID, r.Reminded, reminders); err != nil {
		if store.IsStale(err) {
			return nil, model.Errorf(model.OpSweep, model.CodeInvalidTransition, "", "%s was reminded meanwhile", c.ID)
		}
		return nil, err
	}
	if _, err := tx.AppendEvent(model.Event{Epoch: epoch, Operation: model.OpRemind, AgentID: model.SweepAgent,
		ConflictID: &c.ID, At: at, Payload: mustJSON(map[string]any{"conflict_id": c.ID, "kind": kind,
			"reminded": reminders, "owner": r.Owner, "deadline": r.Deadline, "fallback": r.Fallback,
			"left": r.DueIn(at), "notified_agents": notified})}); err != nil {
		return nil, err
	}
	return &model.SweepAction{ConflictID: c.ID, Kind: kind, Fallback: r.Fallback, Status: c.Status, Owner: r.Owner,
		Result: result, NotifiedAgents: notified, Epoch: epoch}, nil
}

// deadline executes what the deadline of the conflict of d asks for at
// at: a vote's majority, or the route's fallback, as a decision by
// "fallback"; a vote with neither is overdue.
func (s *Service) deadline(tx store.Tx, d model.ConflictDetail, at time.Time) (*model.SweepAction, error) {
	c := d.Conflict
	r := *c.Route
	p := d.Policy
	majority := ""
	if c.Status == model.StatusPendingVote {
		t := d.Tally
		if t.Total() >= max(1, p.VoteMinBallots) && t.ForA != t.ForB {
			majority = c.UnitA
			if t.ForB > t.ForA {
				majority = c.UnitB
			}
		} else if r.Fallback == "" {
			return remind(tx, d, at, 2)
		}
	}
	o := &outcome{s: s, tx: tx, op: model.OpSweep, d: decision{ConflictDetail: d, caller: model.Agent{ID: model.FallbackAgent}},
		by: model.FallbackAgent, now: at}
	if o.epoch, o.err = tx.Tick(); o.err != nil {
		return nil, o.err
	}
	o.extra = map[string]any{"outcome": "timeout", "fallback": r.Fallback, "deadline": r.Deadline,
		"routed_to": r.Owner, "routed_at": r.Since}
	who := r.Owner
	if who == "" {
		who = "any human operator"
	}
	if c.Status == model.StatusPendingVote {
		who = "the voters"
	}
	lapse := fmt.Sprintf("The deadline (%s, %s after it was routed to %s) passed without an answer",
		r.Deadline.UTC().Format("2006-01-02 15:04 UTC"), model.ShortDuration(r.Length()), who)
	act := &model.SweepAction{ConflictID: c.ID, Kind: model.SweepFallback, Fallback: r.Fallback}
	req := model.MergeRequest{ConflictID: c.ID}
	logOp := model.OpMerge

	switch rule := r.Fallback.Rule(); {
	case majority != "":
		t := d.Tally
		o.rationale = fmt.Sprintf("The vote's deadline (%s) passed at %d for A, %d for B of quorum %d; the majority of the ballots cast prevails (the field asks for at least %d). %s",
			r.Deadline.UTC().Format("2006-01-02 15:04 UTC"), t.ForA, t.ForB, t.Quorum, max(1, p.VoteMinBallots), ballotSummary(c, d.Ballots))
		o.resolve(model.Vote, majority)
		o.extra["winner_id"] = majority
		o.tell(ballotVoters(d.Ballots), model.Notification{Event: model.EventVoteClosed,
			Summary: fmt.Sprintf("the vote on %s closed at its deadline: %s prevails", c.ID, majority)})
		req.Strategy = model.Vote
		act.Result = fmt.Sprintf("the vote closed at its deadline: %s (%s) prevails", c.Side(majority), majority)
	case r.Fallback == model.FallbackDismiss:
		o.rationale = lapse + "; the fallback dismisses it: both units stand."
		o.resolve(model.Dismiss, "")
		req.Strategy = model.Dismiss
		act.Result = "dismissed: both units stand"
	case rule != "":
		pick := model.RulePick(rule, d.A.Contender(), d.B.Contender())
		winner := pick.WinnerID
		switch {
		case pick.Tie:
			o.stuck(lapse, fmt.Sprintf("the fallback %s cannot decide: the units tie (%s)", rule, pick.Why), &req)
			act.Result = fmt.Sprintf("%s ties (%s): it stays escalated for any human operator, without a deadline", rule, pick.Why)
		case standing(o.d, winner) != nil:
			o.stuck(lapse, fmt.Sprintf("the fallback %s picks %s, which no longer stands", rule, winner), &req)
			act.Result = fmt.Sprintf("%s picks %s, which no longer stands: it stays escalated for any human operator", rule, winner)
		default:
			o.rationale = fmt.Sprintf("%s; the fallback %s picks %s (%s).", lapse, rule, winner, pick.Why)
			o.resolve(rule, winner)
			req.Strategy, req.Resolution.WinnerID = rule, &winner
			act.Result = fmt.Sprintf("%s: %s (%s) prevails", rule, c.Side(winner), winner)
		}
	case r.Fallback == model.FallbackRework && c.Status != model.StatusResolving:
		route, _, err := routeFor(tx, model.OpSweep, d, routeRework, model.FallbackAgent, model.Routing{}, at)
		if err != nil {
			return nil, err
		}
		o.rationale = lapse + "; the fallback sends it back to its authors: revise your units."
		if c.Status == model.StatusPendingVote {
			o.overridden = d.Ballots
		}
		o.sendBack(o.rationale, route)
		logOp = model.OpRework
		act.Result = "sent back to its authors for rework"
	case r.Fallback.EscalateTo() != "":
		to := r.Fallback.EscalateTo()
		ok, err := isPerson(tx, to)
		if err != nil {
			return nil, err
		}
		if !ok {
			o.stuck(lapse, fmt.Sprintf("the fallback routes it to %s, who is not a registered person", to), &req)
			act.Result = fmt.Sprintf("%s is not a registered person: it stays escalated for any human operator", to)
			break
		}
		deadline := at.Add(r.Length())
		route := &model.Route{Owner: to, Since: at, Deadline: &deadline}
		o.rationale = fmt.Sprintf("%s; the fallback routes it to %s, with a fresh deadline of %s.", lapse, to, model.ShortDuration(r.Length()))
		o.escalateRoute(o.rationale, route, "", c.Proposal)
		req.Strategy, req.Routing = model.HumanEscalation, &model.Routing{To: to}
		act.Result = fmt.Sprintf("routed to %s, due in %s", to, model.ShortDuration(r.Length()))
	default:
		o.stuck(lapse, fmt.Sprintf("the fallback %s cannot apply to a conflict %s", r.Fallback, c.Status), &req)
		act.Result = "it stays escalated for any human operator, without a deadline"
	}
	req.Resolution.Rationale = o.rationale

	// Everyone concerned hears that the deadline passed: the authors, the
	// owner and the voters, unless the decision told them already.
	concerned := append(o.authors(), r.Owner)
	if c.Status == model.StatusPendingVote {
		vs, err := voters(tx, d)
		if err != nil {
			return nil, err
		}
		concerned = append(concerned, vs...)
	}
	var rest []string
	for _, id := range concerned {
		if !contains(o.notified, id) {
			rest = append(rest, id)
		}
	}
	o.tell(rest, model.Notification{Event: model.EventConflictTimeout,
		Summary: fmt.Sprintf("%s: the deadline passed (fallback %s): %s", c.ID, fallbackName(r.Fallback), act.Result)})
	if logOp == model.OpRework {
		o.log(logOp, model.ReworkRequest{ConflictID: c.ID, Rationale: o.rationale})
	} else {
		o.log(logOp, req)
	}
	if o.err != nil {
		return nil, o.err
	}
	act.Status, act.NotifiedAgents, act.Epoch = o.conflict.Status, nonNil(o.notified), o.epoch
	if res := o.conflict.Resolution; res != nil {
		act.Strategy, act.WinnerID = res.Strategy, res.WinnerID
	}
	if o.conflict.Route != nil {
		act.Owner = o.conflict.Route.Owner
	}
	return act, nil
}

// stuck leaves the conflict escalated for any human operator, without a
// deadline, when its fallback cannot decide it.
func (o *outcome) stuck(lapse, why string, req *model.MergeRequest) {
	o.rationale = lapse + "; " + why + ". It stays escalated for any human operator, without a deadline."
	o.escalateRoute(o.rationale, &model.Route{Since: o.now}, "", o.d.Conflict.Proposal)
	req.Strategy = model.HumanEscalation
}

func fallbackName(f model.Fallback) string {
	if f == "" {
		return "none: the majority of the ballots"
	}
	return string(f)
}

func ballotVoters(ballots []model.Ballot) []string {
	out := make([]string, 0, len(ballots))
	for _, b := range ballots {
		out = append(out, b.VoterID)
	}
	return out
}
