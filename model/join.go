package model

// JoinReport is what a join did, or would do (DryRun): counts of each
// kind of change, the conflicts it opened or put before a person again,
// and how far the two fields had diverged.
type JoinReport struct {
	Fork      string `json:"fork"`
	ForkUID   string `json:"fork_uid"`
	BaseEpoch int64  `json:"base_epoch"`
	// Since is the fork's clock the previous join took everything up to
	// (the base epoch when there was none); ForkEpoch the fork's clock
	// now.
	Since     int64 `json:"since"`
	ForkEpoch int64 `json:"fork_epoch"`
	DryRun    bool  `json:"dry_run"`
	// Nothing is set when the fork holds nothing newer than the last
	// join: the join wrote nothing.
	Nothing bool `json:"nothing_new"`

	UnitsAdded int `json:"units_added"`
	// UnitsRenamed counts the units added under a new id, theirs being
	// taken here.
	UnitsRenamed int `json:"units_renamed"`
	// RevisedAlike counts fork units that revise a unit from before the
	// fork exactly as this field did: added, no conflict.
	RevisedAlike int `json:"revised_alike"`
	// RevisionConflicts are the conflicts opened between two revisions
	// of one unit from before the fork, escalated to a person.
	RevisionConflicts []string `json:"revision_conflicts"`
	ConflictsBrought  int      `json:"conflicts_brought"`
	BallotsBrought    int      `json:"ballots_brought"`
	EventsBrought     int      `json:"events_brought"`
	// BallotsCast are ballots the fork's voters cast on votes open on
	// both sides, cast here by the vote's rules; BallotsLeft those the
	// rules refused here, or whose voter has a ballot here already.
	BallotsCast int `json:"ballots_cast"`
	BallotsLeft int `json:"ballots_left"`
	// DecisionsTaken are conflicts decided in the fork only, now decided
	// here as the fork did.
	DecisionsTaken []string `json:"decisions_taken"`
	DecisionsSame  int      `json:"decisions_same"`
	// DecisionsDiffer are conflicts decided differently on the two sides,
	// put before a person again; DecisionsKept those of them whose
	// decision here could not be taken back (a later decision depends on
	// it): left as decided here.
	DecisionsDiffer []string `json:"decisions_differ"`
	DecisionsKept   []string `json:"decisions_kept"`
	// AgentsRegistered were registered in the fork only; AgentsDiffer
	// are registered on both sides differently, left as they are here.
	AgentsRegistered []string `json:"agents_registered"`
	AgentsDiffer     []string `json:"agents_differ"`

	Divergence Divergence `json:"divergence"`
}

// Divergence is how far two fields went apart since their fork.
type Divergence struct {
	Fork  SideWork `json:"fork"`
	Field SideWork `json:"field"`
}

// SideWork is what one side did after the fork (since the last join, on
// the fork's side): units added, units added that supersede another
// (revised), conflicts decided.
type SideWork struct {
	Added   int `json:"added"`
	Revised int `json:"revised"`
	Decided int `json:"decided"`
}

// JoinOf returns the JOIN event's payload among a conflict's events: what
// a join did to it (the latest, if several joins did); ok is false when no
// join touched it.
func JoinOf(events []Event) (log JoinLog, ok bool) {
	for _, e := range events {
		if e.Operation != OpJoin || e.ConflictID == nil {
			continue
		}
		if p, err := DecodePayload[JoinLog](e); err == nil && p.Kind != "" {
			log, ok = p, true
		}
	}
	return log, ok
}

// JoinLine says in a line that a conflict came from a join, and how:
// "came from joining fork-b.db: both sides revised one unit from before
// the fork". It holds field text (the fork's name, ids): make it safe
// before a terminal shows it.
func JoinLine(p JoinLog) string { return "came from joining " + p.Fork + ": " + joinWhat(p) }

// joinWhat says what a join did to a conflict.
func joinWhat(p JoinLog) string {
	switch p.Kind {
	case JoinRevision:
		return "both sides revised one unit from before the fork, differently"
	case JoinBrought:
		return "opened in the fork, as " + p.ForkID
	case JoinDecided:
		return "decided in the fork only, by " + decider(p.Decision)
	case JoinDiffered:
		return "decided differently in the fork, by " + decider(p.Decision) + "; before a person again"
	}
	return p.Kind
}

func decider(r *Resolution) string {
	if r == nil {
		return "someone"
	}
	return r.ResolvedBy + " (" + string(r.Strategy) + ")"
}

// joinSentence is EventSentence's for a JOIN event.
func joinSentence(who string, p JoinLog) string {
	if p.Kind == "" {
		return who + " joined the fork " + p.Fork
	}
	s := who + " joined " + p.Fork + ": " + joinWhat(p)
	if p.Decision != nil && p.Decision.Rationale != "" {
		s += ": " + oneLineOf(p.Decision.Rationale)
	}
	return s
}
