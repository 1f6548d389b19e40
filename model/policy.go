package model

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// TieRule says what happens when a vote reaches quorum without a majority.
type TieRule string

const (
	// TieStay keeps the vote open: more votes, or changed ones, decide.
	TieStay TieRule = "stay"
	// TieEscalate sends the conflict to a human operator.
	TieEscalate TieRule = "escalate"
)

// Valid reports whether r is a known tie rule.
func (r TieRule) Valid() bool { return r == TieStay || r == TieEscalate }

// Policy is the field's own governance, stored in the field.
type Policy struct {
	// Level is the conformance level (1..3); it bounds the strategies.
	Level int `json:"level"`
	// Quorum is how many votes close a vote.
	Quorum int `json:"quorum"`
	// Tie is what a tie at quorum does.
	Tie TieRule `json:"tie"`
	// VoterMinAuthority is the least authority an eligible voter has.
	VoterMinAuthority int `json:"voter_min_authority"`
	// VoterRoles, when not empty, limits voting to these roles.
	VoterRoles []string `json:"voter_roles"`
	// AuthorityRoles names the role that has the final say on each
	// conflict type under the authority strategy.
	AuthorityRoles map[ConflictType]string `json:"authority_roles"`
	// Recusal keeps the author of either unit of a conflict from
	// deciding it or voting on it (escalating it stays open to them).
	Recusal bool `json:"recusal"`
	// OperatorOverride lets a human operator close a vote that has not
	// reached its quorum with a decision of their own.
	OperatorOverride bool `json:"operator_override"`
	// Owners routes escalations of each conflict type to a person; a
	// type without one goes to any human operator.
	Owners map[ConflictType]string `json:"owners"`
	// OwnersDecide lets the person an escalation is routed to decide it,
	// whatever their authority.
	OwnersDecide bool `json:"owners_decide"`
	// EscalationTimeout is how long an escalation waits before its
	// fallback executes; 0 for no deadline.
	EscalationTimeout time.Duration `json:"escalation_timeout"`
	// EscalationFallback is what executes then, unless the escalation
	// names its own.
	EscalationFallback Fallback `json:"escalation_fallback,omitempty"`
	// VoteMinBallots is how many ballots a vote at its deadline needs for
	// its majority to prevail; with fewer, its fallback executes.
	VoteMinBallots int `json:"vote_min_ballots"`
	// Refused lists strategies this field cannot carry out, each with
	// why; an arbiter field refuses none, another program's memory file
	// (through an adapter) may refuse several.
	Refused map[Strategy]string `json:"refused,omitempty"`
	// DetectionSensitivity is how readily RECORD finds the contradictions
	// nobody declared (docs/detection.md): off in a field made before
	// detection existed, medium in a new one.
	DetectionSensitivity Sensitivity `json:"detection_sensitivity"`
}

// DefaultPolicy is what `arbiter init` writes unless told otherwise.
func DefaultPolicy() Policy {
	return Policy{
		Level:             3,
		Quorum:            3,
		Tie:               TieEscalate,
		VoterMinAuthority: AuthoritySenior,
		AuthorityRoles:    map[ConflictType]string{},
		Recusal:           true,
		Owners:            map[ConflictType]string{},
		VoteMinBallots:    1,
		// A new field looks for the contradictions its agents do not
		// declare; one made before keeps off (the migration's default).
		DetectionSensitivity: SensitivityMedium,
	}
}

// Allows reports whether the field's level offers strategy s.
func (p Policy) Allows(s Strategy) bool { return p.Level >= s.Level() }

// Recused reports whether the policy keeps a from deciding or voting on
// the conflict of d because a wrote one of its units.
func (p Policy) Recused(a Agent, d ConflictDetail) bool {
	return p.RecusedFrom(a, d.A.Unit.Source.AgentID, d.B.Unit.Source.AgentID)
}

// RecusedFrom is Recused for a conflict whose units authorA and authorB
// wrote.
func (p Policy) RecusedFrom(a Agent, authorA, authorB string) bool {
	return p.Recusal && (a.ID == authorA || a.ID == authorB)
}

// MayVote reports whether a may cast a vote in this field.
func (p Policy) MayVote(a Agent) bool {
	if a.Authority < p.VoterMinAuthority {
		return false
	}
	return len(p.VoterRoles) == 0 || slices.Contains(p.VoterRoles, a.Role)
}

// CheckEscalation refuses escalation settings that cannot work: an owner
// for an unknown conflict type or with an empty id, a negative timeout,
// an unknown fallback, a fallback without a timeout to run out, and a
// vote that needs fewer than one ballot.
func (p Policy) CheckEscalation() error {
	for t, id := range p.Owners {
		switch {
		case !t.Valid():
			return fmt.Errorf("owner of %q: not a conflict type (factual, interpretive, strategic, priority)", t)
		case strings.TrimSpace(id) == "":
			return fmt.Errorf("owner of %s conflicts: give a person's id", t)
		}
	}
	if p.EscalationTimeout < 0 {
		return fmt.Errorf("escalation timeout %s: use a positive duration, or 0 for none", p.EscalationTimeout)
	}
	if _, err := ParseFallback(string(p.EscalationFallback)); err != nil {
		return err
	}
	if p.EscalationFallback != "" && p.EscalationTimeout == 0 {
		return fmt.Errorf("escalation fallback %s needs an escalation timeout to run out", p.EscalationFallback)
	}
	if p.VoteMinBallots < 1 {
		return fmt.Errorf("vote min ballots %d: a vote's deadline needs at least one ballot to decide", p.VoteMinBallots)
	}
	return nil
}
