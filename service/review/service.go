// Package review holds the field's rules — REGISTER, RECORD, MERGE with
// its strategies, votes and quorum, authority, notifications — on top of
// the store. It returns model values and protocol errors and knows
// nothing of terminals.
package review

import (
	"context"
	"errors"
	"sync"
	"time"

	"arbiter/internal/detect"
	"arbiter/internal/suggest"
	"arbiter/model"
	"arbiter/store"
)

// Service applies the rules to one open field.
type Service struct {
	st  store.Field
	now func() time.Time
	// decisionsOut is the decisions file of a read-only field ("" for none).
	decisionsOut string
	// sweeper is the agent a sweep acts for ("" for the session itself).
	sweeper string
	// cache keeps the units detection has read (nil: read each time).
	cache *detect.Cache
	// scanMu lets one scan run at a time; run is the scan kept for the
	// next call (detectscan.go), under runMu.
	scanMu, runMu sync.Mutex
	run           *scanRun
}

// New returns the rules over st.
func New(st store.Field) *Service { return &Service{st: st, now: time.Now} }

// WithClock makes the service stamp times from now instead of the wall
// clock (demos and tests that need repeatable output). Epochs are not
// affected: they come from the field's Lamport clock.
func (s *Service) WithClock(now func() time.Time) *Service {
	s.now = now
	return s
}

// Clock is the clock the service stamps times with (WithClock's, or
// the wall clock).
func (s *Service) Clock() func() time.Time { return s.now }

// WithDetectCache makes detection keep the units it reads, up to budget
// bytes, for a process that lives long (arbiter serve, arbiter mcp): a
// unit compared again is only compared.
func (s *Service) WithDetectCache(budget int64) *Service {
	s.cache = detect.NewCache(budget)
	return s
}

// WithSweeper makes sweeps act for agent id, as the field checks who acts
// where it does (PostgreSQL: what a deadline executes is taken from a
// human operator's session, or the field's administrator).
func (s *Service) WithSweeper(id string) *Service {
	s.sweeper = id
	return s
}

// write runs fn in one write transaction. The store's own refusals
// (read-only, busy, disk full, damage) come back as errors of op, the
// protocol operation the caller asked for, not of the store's "WRITE".
func (s *Service) write(ctx context.Context, op string, fn func(store.Tx) error) error {
	err := s.st.Write(ctx, fn)
	if pe, ok := model.AsError(err); ok {
		switch pe.Operation {
		case "WRITE", "BEGIN", "COMMIT":
			relabelled := *pe
			relabelled.Operation = op
			return &relabelled
		}
	}
	return err
}

// Writable reports whether the field itself takes writes: it was not
// opened read-only (whatever a decisions file takes instead).
func (s *Service) Writable() bool { return !s.st.ReadOnly() }

// ReadOnly reports whether decisions are refused, and why: the field is
// open read-only and no decisions file takes them instead (see
// WithDecisionsOut and Offline).
func (s *Service) ReadOnly() (bool, string) {
	if !s.st.ReadOnly() || s.offline() {
		return false, ""
	}
	if s.st.ReadOnlyReason() != "" {
		return true, s.st.ReadOnlyReason()
	}
	return true, "opened with --read-only"
}

// Changed returns a number that differs whenever someone has written to
// the field since the last call that returned it; cheap enough to poll.
func (s *Service) Changed(ctx context.Context) (int64, error) { return s.st.Changed(ctx) }

// Check reads the field and says whether it takes writes where it was
// opened (store.Field's Check): for health checks.
func (s *Service) Check(ctx context.Context) error { return s.st.Check(ctx) }

// Policy returns the field's governance.
func (s *Service) Policy(ctx context.Context) (model.Policy, error) {
	var p model.Policy
	err := s.st.Read(ctx, func(tx store.Tx) (err error) { p, err = tx.Policy(); return err })
	return p, err
}

// Agent returns a registered agent, or AGENT_NOT_REGISTERED.
func (s *Service) Agent(ctx context.Context, id string) (model.Agent, error) {
	var a model.Agent
	err := s.st.Read(ctx, func(tx store.Tx) (err error) { a, err = caller(tx, model.OpAttune, id); return err })
	return a, err
}

// Agents lists the registered agents.
func (s *Service) Agents(ctx context.Context) ([]model.Agent, error) {
	var out []model.Agent
	err := s.st.Read(ctx, func(tx store.Tx) (err error) { out, err = tx.Agents(); return err })
	return out, err
}

// List returns one page of conflict summaries; votes carry the quorum.
func (s *Service) List(ctx context.Context, q model.ListQuery) ([]model.ConflictSummary, error) {
	var out []model.ConflictSummary
	err := s.st.Read(ctx, func(tx store.Tx) error {
		p, err := tx.Policy()
		if err != nil {
			return err
		}
		if out, err = tx.ConflictList(q); err != nil {
			return err
		}
		for i := range out {
			if out[i].Tally != nil {
				out[i].Tally.Quorum = p.Quorum
			}
		}
		return nil
	})
	return out, err
}

// Counts returns how many conflicts stand in each status.
func (s *Service) Counts(ctx context.Context) (map[model.ConflictStatus]int, error) {
	var out map[model.ConflictStatus]int
	err := s.st.Read(ctx, func(tx store.Tx) (err error) { out, err = tx.ConflictCount(); return err })
	return out, err
}

// Inbox returns an agent's notifications after id since (0: all), at most
// limit (0: no limit).
func (s *Service) Inbox(ctx context.Context, agentID string, since int64, limit int) ([]model.Notification, error) {
	var out []model.Notification
	err := s.st.ReadTail(ctx, func(tx store.Tx) error {
		if _, err := caller(tx, model.OpAttune, agentID); err != nil {
			return err
		}
		var err error
		out, err = tx.Inbox(agentID, since, limit)
		return err
	})
	return out, err
}

// Detail returns everything known of one conflict.
func (s *Service) Detail(ctx context.Context, id string) (model.ConflictDetail, error) {
	var d model.ConflictDetail
	err := s.st.Read(ctx, func(tx store.Tx) error {
		var err error
		if d, err = detail(tx, model.OpDetect, id); err != nil {
			return err
		}
		if d.Events, err = tx.EventsOfConflict(id); err != nil {
			return err
		}
		if d.Ancestor, err = ancestry(tx, d.Conflict); err != nil {
			return err
		}
		d.Notifications, err = tx.NotificationsOfConflict(id)
		return err
	})
	return d, err
}

// detail loads a conflict, both sides, its ballots and the rules' picks.
func detail(tx store.Tx, op, id string) (model.ConflictDetail, error) {
	var d model.ConflictDetail
	c, err := tx.Conflict(id)
	if errors.Is(err, store.ErrNotFound) {
		return d, model.Errorf(op, model.CodeConflictNotFound, "", "there is no conflict %q", id)
	}
	if err != nil {
		return d, err
	}
	d.Conflict = c
	if d.Policy, err = tx.Policy(); err != nil {
		return d, err
	}
	if d.A, err = side(tx, c.UnitA); err != nil {
		return d, err
	}
	if d.B, err = side(tx, c.UnitB); err != nil {
		return d, err
	}
	if d.Ballots, err = tx.Ballots(id); err != nil {
		return d, err
	}
	d.Tally = model.Count(c, d.Ballots, d.Policy.Quorum)
	d.Picks = model.RulePicks(d.A.Contender(), d.B.Contender())
	return d, nil
}

func side(tx store.Tx, unitID string) (model.Side, error) {
	var sd model.Side
	u, err := tx.Unit(unitID)
	if err != nil {
		return sd, err
	}
	sd.Unit = u
	if a, err := tx.Agent(u.Source.AgentID); err == nil {
		sd.Agent = &a
	}
	sd.Supporters, err = tx.Supporters(unitID)
	return sd, err
}

// caller returns the registered agent id, or AGENT_NOT_REGISTERED.
func caller(tx store.Tx, op, id string) (model.Agent, error) {
	if id == "" {
		return model.Agent{}, model.Errorf(op, model.CodeAgentNotRegistered,
			"say who you are with --as ID (or ARBITER_AS)", "no caller given")
	}
	// What the transaction writes, it writes as the caller: on a shared
	// server the field checks that the session may act as them.
	if err := tx.AgentActAs(id); err != nil {
		return model.Agent{}, err
	}
	a, err := tx.Agent(id)
	if errors.Is(err, store.ErrNotFound) {
		return a, notRegistered(tx, op, id)
	}
	return a, err
}

// notRegistered is AGENT_NOT_REGISTERED for id, naming the registered
// agents id is probably a slip for.
func notRegistered(tx store.Tx, op, id string) error {
	action := "`arbiter agents` lists who is registered; `arbiter register` adds someone"
	if all, err := tx.Agents(); err == nil {
		ids := make([]string, len(all))
		for i, a := range all {
			ids[i] = a.ID
		}
		if close := suggest.Closest(id, ids); len(close) > 0 {
			action = suggest.Phrase(close) + " (`arbiter agents` lists who is registered)"
		}
	}
	return model.Errorf(op, model.CodeAgentNotRegistered, action, "%q is not a registered agent", id)
}

// VotedOn lists the conflicts put to a vote that agentID has cast a
// ballot on: with model.TurnOf, what is still theirs to do.
func (s *Service) VotedOn(ctx context.Context, agentID string) (map[string]bool, error) {
	var out map[string]bool
	err := s.st.Read(ctx, func(tx store.Tx) (err error) { out, err = tx.BallotsOfVoter(agentID); return err })
	return out, err
}
