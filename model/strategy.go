package model

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
)

// Strategies lists every strategy in the order a person is offered them.
var Strategies = []Strategy{
	LastWriteWins, ConfidenceWeighted, EvidenceCount, Authority, Synthesis,
	Vote, HumanEscalation, Dismiss,
}

// Valid reports whether s is a known strategy.
func (s Strategy) Valid() bool { return contains(Strategies, s) }

// Level is the lowest conformance level that offers s.
func (s Strategy) Level() int {
	switch s {
	case LastWriteWins, ConfidenceWeighted, HumanEscalation:
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
// at once (rather than escalating it or opening a vote).
func (s Strategy) Resolves() bool { return s != HumanEscalation && s != Vote }

// Extension reports whether s is arbiter's own, not the protocol's.
func (s Strategy) Extension() bool { return s == Dismiss }
