package model

// Operation names, as they stand in envelopes, in the event log and in
// errors: the protocol's, and arbiter's VOTE (one ballot).
const (
	OpRegister = "REGISTER"
	OpRecord   = "RECORD"
	OpDetect   = "DETECT"
	OpMerge    = "MERGE"
	OpVote     = "VOTE"
	OpAttune   = "ATTUNE"
	// OpReopen is arbiter's: a person takes a decision back.
	OpReopen = "REOPEN"
	// OpRework is arbiter's: a conflict is sent back to its authors.
	OpRework = "REWORK"
	// OpRemind is arbiter's: a sweep reminds the people a conflict waits
	// for that its deadline nears or has passed.
	OpRemind = "REMIND"
	// OpSweep is arbiter's: a sweep of the field's deadlines (errors only;
	// what it does is logged as MERGE, VOTE, REWORK or REMIND).
	OpSweep = "SWEEP"
	// OpPolicy is arbiter's: a human operator changes the field's policy.
	OpPolicy = "POLICY"
	// OpHook is arbiter's: a human operator adds or removes a hook, or
	// queues dead deliveries again (errors only).
	OpHook = "HOOK"
	// OpHold is arbiter's: a decision made on the review screen is held
	// in the field for its undo window, or taken back (errors only; what
	// it writes is logged as MERGE, VOTE or REWORK).
	OpHold = "HOLD"
)

// The agent ids a sweep writes under: FallbackAgent for what executes at a
// deadline (it is the resolution's resolved_by), SweepAgent for
// reminders. Neither is a registered agent, and neither may be
// registered.
const (
	FallbackAgent = "fallback"
	SweepAgent    = "sweep"
)
