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
