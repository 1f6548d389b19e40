package review

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// UpdatePolicy changes the field's governance by change, for callerID, a
// human operator, in one transaction: the policy change makes must pass
// model.Policy.CheckEscalation (and keep level, quorum and voters sane);
// a POLICY event logs the policy before and after, and every human
// operator is told what changed (policy.changed). It returns the new
// policy.
func (s *Service) UpdatePolicy(ctx context.Context, callerID string, change func(*model.Policy) error) (model.Policy, error) {
	const op = model.OpPolicy
	var after model.Policy
	err := s.write(ctx, op, func(tx store.Tx) error {
		a, err := caller(tx, op, callerID)
		if err != nil {
			return err
		}
		if !a.IsHumanOperator() {
			return model.Errorf(op, model.CodeNotPermitted, "ask a human operator",
				"only a human operator (authority 10) changes the field's policy; %s has %d", a.ID, a.Authority)
		}
		before, err := tx.Policy()
		if err != nil {
			return err
		}
		after = clonePolicy(before)
		if err := change(&after); err != nil {
			if _, ok := model.AsError(err); ok {
				return err
			}
			return model.Errorf(op, model.CodeInvalidRequest, "", "%v", err)
		}
		if err := checkPolicy(after); err != nil {
			return model.Errorf(op, model.CodeInvalidRequest, "", "%v", err)
		}
		diff := PolicyChanges(before, after)
		if len(diff) == 0 {
			return nil
		}
		epoch, err := tx.EpochTick()
		if err != nil {
			return err
		}
		now := s.now()
		if err := tx.PolicySet(after); err != nil {
			return err
		}
		ops, err := humanOperators(tx)
		if err != nil {
			return err
		}
		notified, err := notify(tx, ops, model.Notification{Event: model.EventPolicyChanged, Epoch: epoch, CreatedAt: now,
			Summary: fmt.Sprintf("%s changed the field's policy: %s", a.ID, strings.Join(diff, "; "))})
		if err != nil {
			return err
		}
		_, err = tx.EventAppend(model.Event{Epoch: epoch, Operation: op, AgentID: a.ID, At: now,
			Payload: mustJSON(model.PolicyLog{Before: before, After: after, Changes: diff, NotifiedAgents: notified})})
		return err
	})
	return after, err
}

// checkPolicy refuses a policy the rules cannot work under.
func checkPolicy(p model.Policy) error {
	switch {
	case p.Level < 1 || p.Level > 3:
		return fmt.Errorf("level %d: use 1, 2 or 3", p.Level)
	case p.Quorum < 1:
		return fmt.Errorf("quorum %d: a vote needs at least one ballot", p.Quorum)
	case !p.Tie.Valid():
		return fmt.Errorf("tie %q: use stay or escalate", p.Tie)
	case p.VoterMinAuthority < 0 || p.VoterMinAuthority > 10:
		return fmt.Errorf("voter min authority %d: use 0 to 10", p.VoterMinAuthority)
	}
	if _, err := model.ParseSensitivity(string(p.DetectionSensitivity.Or())); err != nil {
		return err
	}
	return p.CheckEscalation()
}

func clonePolicy(p model.Policy) model.Policy {
	p.VoterRoles = slices.Clone(p.VoterRoles)
	p.AuthorityRoles = maps.Clone(p.AuthorityRoles)
	p.Owners = maps.Clone(p.Owners)
	p.Refused = maps.Clone(p.Refused)
	if p.Owners == nil {
		p.Owners = map[model.ConflictType]string{}
	}
	if p.AuthorityRoles == nil {
		p.AuthorityRoles = map[model.ConflictType]string{}
	}
	return p
}

// PolicyChanges says what differs from before to after, one short phrase
// per setting: "owner of factual conflicts: lead-priya (was none)".
func PolicyChanges(before, after model.Policy) []string {
	var out []string
	add := func(what string, was, now any) {
		if !reflect.DeepEqual(was, now) {
			out = append(out, fmt.Sprintf("%s: %v (was %v)", what, orNone(now), orNone(was)))
		}
	}
	add("level", before.Level, after.Level)
	add("quorum", before.Quorum, after.Quorum)
	add("tie", before.Tie, after.Tie)
	add("voter min authority", before.VoterMinAuthority, after.VoterMinAuthority)
	add("voter roles", strings.Join(before.VoterRoles, ", "), strings.Join(after.VoterRoles, ", "))
	add("recusal", before.Recusal, after.Recusal)
	add("operator override", before.OperatorOverride, after.OperatorOverride)
	for _, t := range model.ConflictTypes {
		add("authority over "+string(t)+" conflicts", before.AuthorityRoles[t], after.AuthorityRoles[t])
		add("owner of "+string(t)+" conflicts", before.Owners[t], after.Owners[t])
	}
	add("owners decide", before.OwnersDecide, after.OwnersDecide)
	add("escalation timeout", durationOrNone(before.EscalationTimeout), durationOrNone(after.EscalationTimeout))
	add("escalation fallback", string(before.EscalationFallback), string(after.EscalationFallback))
	add("vote min ballots", before.VoteMinBallots, after.VoteMinBallots)
	add("detection sensitivity", string(before.DetectionSensitivity.Or()), string(after.DetectionSensitivity.Or()))
	return out
}

func orNone(v any) any {
	if s, ok := v.(string); ok && s == "" {
		return "none"
	}
	if s, ok := v.(model.TieRule); ok && s == "" {
		return "none"
	}
	return v
}

func durationOrNone(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return model.FormatDeadline(d)
}
