package model

// LinkKind says what a field knows another field as: itself, the field it
// was forked from, or a fork taken from it.
type LinkKind string

const (
	LinkSelf   LinkKind = "self"
	LinkOrigin LinkKind = "origin"
	LinkFork   LinkKind = "fork"
)

// FieldLink is what a field records of itself (LinkSelf: its identity),
// of the field it was forked from (LinkOrigin) or of a fork taken from
// it (LinkFork), by that field's identity (docs/fork-join.md).
type FieldLink struct {
	UID  string   `json:"uid"`
	Kind LinkKind `json:"kind"`
	// Name is the other field as it was named when the link was made: a
	// path, or a server address without its password.
	Name string `json:"name"`
	// BaseEpoch is the clock of the field forked from at the fork: the
	// epoch both fields share. Not used for LinkSelf.
	BaseEpoch int64 `json:"base_epoch"`
	// JoinedEpoch is, on a LinkFork, the fork's clock when it was last
	// joined back (0: never); a later join takes only what is newer.
	JoinedEpoch int64 `json:"joined_epoch"`
}

// ProvenanceKind says what a Provenance is of.
type ProvenanceKind string

const (
	ProvenanceUnit     ProvenanceKind = "unit"
	ProvenanceConflict ProvenanceKind = "conflict"
)

// Provenance is where a unit or a conflict a join brought came from:
// the fork, and its id there.
type Provenance struct {
	Kind     ProvenanceKind `json:"kind"`
	ID       string         `json:"id"`
	ForkUID  string         `json:"fork_uid"`
	ForkName string         `json:"fork_name"`
	ForkID   string         `json:"fork_id"`
	// Epoch is the join's epoch in the field joined into.
	Epoch int64 `json:"epoch"`
}

// Operation names of forks and joins.
const (
	// OpFork is logged in both fields when one is forked from the other.
	OpFork = "FORK"
	// OpJoin is logged when a fork is joined back: once for the join,
	// and once on each conflict it opened, brought or decided.
	OpJoin = "JOIN"
)
