package model

import "slices"

// Strategy is a way of settling a conflict (spec §6.6), plus arbiter's
// own "dismiss".
type Strategy string

const (
	LastWriteWins      Strategy = "last_write_wins"
	ConfidenceWeighted Strategy = "confidence_weighted"
	HumanEscalation    Strategy = "human_escalation"
	Authority          Strategy = "authority"
	EvidenceCount      Strategy = "evidence_count"
	Synthesis          Strategy = "synthesis"
	Vote               Strategy = "vote"
	// Dismiss is an arbiter extension: the two units do not really
	// contradict each other; both stay active.
	Dismiss Strategy = "dismiss"
	// Rework is how a conflict sent back to its authors resolves: an
	// author revised their unit (an arbiter extension; not a MERGE
	// strategy anyone asks for).
	Rework Strategy = "rework"
)

// Strategies lists every strategy in the order a person is offered them.
var Strategies = []Strategy{
	LastWriteWins, ConfidenceWeighted, EvidenceCount, Authority, Synthesis,
	Vote, HumanEscalation, Dismiss,
}

// About says in a few words what deciding with s does.
func (s Strategy) About() string {
	switch s {
	case LastWriteWins:
		return "the later unit prevails"
	case ConfidenceWeighted:
		return "the higher confidence prevails"
	case EvidenceCount:
		return "the unit with more support prevails"
	case Authority:
		return "the field's role for this type decides"
	case Synthesis:
		return "a new unit replaces both"
	case Vote:
		return "put it to a vote of the eligible agents"
	case HumanEscalation:
		return "send it to a human operator"
	case Dismiss:
		return "not a real conflict: both units stand (arbiter's own)"
	case Rework:
		return "send it back to its authors to revise (arbiter's own; `arbiter rework`)"
	}
	return ""
}

// Valid reports whether s is a known strategy.
func (s Strategy) Valid() bool { return slices.Contains(Strategies, s) }

// Level is the lowest conformance level that offers s. Dismiss and
// Rework are offered wherever MERGE is.
func (s Strategy) Level() int {
	switch s {
	case LastWriteWins, ConfidenceWeighted, HumanEscalation, Dismiss, Rework:
		return 2
	default:
		return 3
	}
}

// NeedsWinner reports whether a decision with s must name a winning unit.
// last_write_wins accepts one too (checked against the rule) but does not
// need it.
func (s Strategy) NeedsWinner() bool {
	return s == ConfidenceWeighted || s == Authority || s == EvidenceCount
}

// Deterministic reports whether a rule, not a person, picks the winner.
func (s Strategy) Deterministic() bool {
	return s == LastWriteWins || s == ConfidenceWeighted || s == EvidenceCount
}

// Resolves reports whether a successful MERGE with s resolves the conflict
// at once (rather than escalating it or opening a vote). Rework counts as
// settling: sending a conflict back takes what deciding it takes.
func (s Strategy) Resolves() bool { return s != HumanEscalation && s != Vote }

// Extension reports whether s is arbiter's own, not the protocol's.
func (s Strategy) Extension() bool { return s == Dismiss || s == Rework }
