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
)
