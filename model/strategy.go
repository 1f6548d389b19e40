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

// StrategyRow is what a strategy is and does, in one row of the table
// (strategyRows) that everything about strategies reads: MERGE's checks
// (CheckMergeRequest, MergeWinner, Permit), the preview of a decision
// (Foresee), its write (review), its sentence in the history
// (EventSentence), the rules' picks (RulePicks) and the lists people are
// offered.
type StrategyRow struct {
	Strategy Strategy
	// Short names it in a word or two, where the rules' picks are shown
	// side by side ("last write").
	Short string
	// About says in a few words what deciding with it does.
	About string
	// Level is the lowest conformance level that offers it.
	Level int
	// Winner is whether a decision names the unit it keeps.
	Winner Winner
	// Pick is a deterministic strategy's rule: it, not a person, picks
	// the unit that prevails. nil where a person decides.
	Pick func(a, b Contender) Pick
	// Effect is what deciding with it does to the conflict and its
	// units, and how the history tells it.
	Effect Effect
	// Extension is arbiter's own, not the protocol's.
	Extension bool
}

// Winner is whether a decision with a strategy names the unit it keeps.
type Winner int

const (
	// WinnerNone: it keeps no one unit, and takes none.
	WinnerNone Winner = iota
	// WinnerNeeded: the decision names the unit it keeps.
	WinnerNeeded
	// WinnerOptional: its rule picks the unit; a decision may name it
	// too, and the rule must agree.
	WinnerOptional
)

// Effect is what deciding with a strategy does.
type Effect int

const (
	// KeepWinner resolves the conflict for one unit; the other is
	// superseded.
	KeepWinner Effect = iota
	// NewUnit resolves it with a new unit, the synthesis, that
	// supersedes both.
	NewUnit
	// KeepBoth resolves it with both units standing: not a real
	// conflict.
	KeepBoth
	// ToPeople escalates it to a person (its owner, or any human
	// operator).
	ToPeople
	// ToVote puts it to a vote of the eligible agents.
	ToVote
	// Revised resolves it when an author revised their unit (REWORK, not
	// MERGE).
	Revised
)

// strategyRows are the strategies, in the order a person is offered
// them; Rework, which MERGE does not offer, last.
var strategyRows = []StrategyRow{
	{Strategy: LastWriteWins, Short: "last write", About: "the later unit prevails", Level: 2,
		Winner: WinnerOptional, Pick: lastWrite, Effect: KeepWinner},
	{Strategy: ConfidenceWeighted, Short: "confidence", About: "the higher confidence prevails", Level: 2,
		Winner: WinnerNeeded, Pick: higherConfidence, Effect: KeepWinner},
	{Strategy: EvidenceCount, Short: "evidence", About: "the unit with more support prevails", Level: 3,
		Winner: WinnerNeeded, Pick: moreSupport, Effect: KeepWinner},
	{Strategy: Authority, Short: "authority", About: "the field's role for this type decides", Level: 3,
		Winner: WinnerNeeded, Effect: KeepWinner},
	{Strategy: Synthesis, Short: "synthesis", About: "a new unit replaces both", Level: 3, Effect: NewUnit},
	{Strategy: Vote, Short: "vote", About: "put it to a vote of the eligible agents", Level: 3, Effect: ToVote},
	{Strategy: HumanEscalation, Short: "escalation", About: "send it to a human operator", Level: 2, Effect: ToPeople},
	{Strategy: Dismiss, Short: "dismiss", About: "not a real conflict: both units stand (arbiter's own)", Level: 2,
		Effect: KeepBoth, Extension: true},
	{Strategy: Rework, Short: "rework", About: "send it back to its authors to revise (arbiter's own; `arbiter rework`)", Level: 2,
		Effect: Revised, Extension: true},
}

// Strategies lists every strategy MERGE offers, in the order a person is
// offered them.
var Strategies = func() []Strategy {
	var out []Strategy
	for _, r := range strategyRows {
		if r.Effect != Revised {
			out = append(out, r.Strategy)
		}
	}
	return out
}()

// DeterministicStrategies lists the strategies a rule decides (Pick), in
// the table's order: what RulePicks shows, and what a deadline's fallback
// may apply.
func DeterministicStrategies() []Strategy {
	var out []Strategy
	for _, r := range strategyRows {
		if r.Pick != nil {
			out = append(out, r.Strategy)
		}
	}
	return out
}

// Row is s's row of the table; the zero StrategyRow for an unknown
// strategy.
func (s Strategy) Row() StrategyRow {
	for _, r := range strategyRows {
		if r.Strategy == s {
			return r
		}
	}
	return StrategyRow{Level: 3}
}

// About says in a few words what deciding with s does.
func (s Strategy) About() string { return s.Row().About }

// Valid reports whether s is a strategy MERGE offers.
func (s Strategy) Valid() bool { return slices.Contains(Strategies, s) }

// Level is the lowest conformance level that offers s.
func (s Strategy) Level() int { return s.Row().Level }

// NeedsWinner reports whether a decision with s must name a winning unit.
// last_write_wins accepts one too (checked against the rule) but does not
// need it (TakesWinner).
func (s Strategy) NeedsWinner() bool { return s.Row().Winner == WinnerNeeded }

// TakesWinner reports whether a decision with s may name a winning unit.
func (s Strategy) TakesWinner() bool { return s.Row().Winner != WinnerNone }

// Deterministic reports whether a rule, not a person, picks the winner.
func (s Strategy) Deterministic() bool { return s.Row().Pick != nil }

// Resolves reports whether a successful MERGE with s resolves the conflict
// at once (rather than escalating it or opening a vote). Rework counts as
// settling: sending a conflict back takes what deciding it takes.
func (s Strategy) Resolves() bool { e := s.Row().Effect; return e != ToPeople && e != ToVote }

// Routed reports whether a decision with s sends the conflict to people
// (an escalation or a vote), who can be given an owner, a deadline and a
// fallback.
func (s Strategy) Routed() bool { e := s.Row().Effect; return e == ToPeople || e == ToVote }

// Extension reports whether s is arbiter's own, not the protocol's.
func (s Strategy) Extension() bool { return s.Row().Extension }
