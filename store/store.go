// Package store is what the rules keep a field in, whichever engine holds
// it: the Field and Tx interfaces review works through, and what the
// engines share (options, errors). The engines are store/sqlite (a file,
// the default) and store/postgres (a server a team shares); arbiter/field
// opens either from a name. Every query of the field lives in an engine:
// nothing above this package writes SQL.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"arbiter/model"
)

// Field is an open field.
type Field interface {
	// Read runs fn in a read transaction: a consistent snapshot.
	Read(ctx context.Context, fn func(Tx) error) error
	// ReadTail is Read for a transaction that reads a tail — an outbox
	// after a notice (Inbox, InboxRecent, InboxCount) — after other
	// statements: what committed before it began is all there, on a busy
	// server too. A file's reads are always so; on PostgreSQL the tail's
	// horizon is reckoned before the snapshot is taken, one round trip
	// more (in a plain Read only a tail read as the transaction's first
	// statement is).
	ReadTail(ctx context.Context, fn func(Tx) error) error
	// Write runs fn in a write transaction that holds what fn reads
	// until it commits; fn's error rolls everything back. On a field
	// open read-only it writes nothing and returns READ_ONLY.
	Write(ctx context.Context, fn func(Tx) error) error
	// ReadOnly reports whether writes are refused; ReadOnlyReason says
	// why when the engine decided it (a file that cannot be written),
	// "" when the caller asked for it.
	ReadOnly() bool
	ReadOnlyReason() string
	// Changed returns a number that differs whenever someone — another
	// process or another connection — has committed to the field since
	// the last call that returned it; cheap enough to poll.
	Changed(ctx context.Context) (int64, error)
	// Name is the field as people know it: a path, or a server address
	// without its password.
	Name() string
	// Check reads the field where it was opened and says whether it
	// takes writes there: nil, or the refusal a write would meet (a file
	// deleted or replaced under it, FIELD_GONE; a disk turned read-only
	// or full; a server that does not answer or takes no writes). A
	// field opened read-only on purpose is only read. For health checks.
	Check(ctx context.Context) error
	Close() error
}

// Created is a field its engine has just made. Remove takes it back
// whole, for a command that fails while filling it (init --demo, gen,
// copy into a new field): it closes the field and removes all that
// creating it made — the file and the engine's companion files of it, or
// the schema with everything in it (in a schema that was there, empty,
// before, what was put in it) — so no half-made field stays behind. It
// runs even when ctx has ended, so that an interrupted command still
// cleans up. Close keeps the field.
type Created interface {
	Field
	Remove(ctx context.Context) error
}

// Notifier is a Field that can wait for a change without polling
// (PostgreSQL, through LISTEN/NOTIFY).
type Notifier interface {
	// WaitChange returns Changed's number once it differs from since,
	// at once if it already does; or ctx's error.
	WaitChange(ctx context.Context, since int64) (int64, error)
}

// Polled is a Notifier that cannot be told of changes where it is open
// (a server behind a connection pooler, without a listen_db) and asks
// instead, every little while. Polling says so in a sentence a person
// reads, "" when changes are pushed.
type Polled interface {
	Polling() string
}

// Tx is one transaction on a field. Every read and write of a decision
// goes through the same Tx, so a decision is all or nothing. Lookups of
// one row that is not there return ErrNotFound.
//
// Tx is its topics together. A package that reads or writes only some of
// the field asks for those topics (a helper that takes a HookTx, or an
// interface of a few), so that what it touches shows in its signature:
// the rules (review) use all of them.
type Tx interface {
	ClockTx
	PolicyTx
	AgentTx
	UnitTx
	ConflictTx
	BallotTx
	NoticeTx
	HookTx
	EventTx
	ImportTx
	AccessTx
	HeldTx
	ForkTx
	EachTx
	DetectTx
	// Personal is what the field keeps for each person at the screen
	// (personal.go).
	Personal
}

// ClockTx is the field's Lamport clock: Epoch reads it, EpochTick
// advances it by one for a write, EpochWitness applies the receive rule
// max(local, received) + 1.
type ClockTx interface {
	Epoch() (int64, error)
	EpochTick() (int64, error)
	EpochWitness(received int64) (int64, error)
}

// PolicyTx is the field's governance.
type PolicyTx interface {
	Policy() (model.Policy, error)
	PolicySet(p model.Policy) error
}

// AgentTx is the registered agents, and who a write acts for.
type AgentTx interface {
	Agent(id string) (model.Agent, error)
	Agents() ([]model.Agent, error)
	AgentInsert(a model.Agent, epoch int64) error
	// AgentActAs names the registered agent the transaction acts for, before
	// it writes. The SQLite engine notes nothing (anyone who can write
	// the file may act as anyone); on PostgreSQL the field itself checks,
	// on every write, that the session's database role may act as that
	// agent (docs/postgres.md).
	AgentActAs(agentID string) error
}

// UnitTx is the memory units and their relations.
type UnitTx interface {
	Unit(id string) (model.Unit, error)
	UnitExists(id string) (bool, error)
	// UnitInsert stores u and its relations; an empty u.ID gets the next
	// "mem-NNN" id, which is returned.
	UnitInsert(u model.Unit) (string, error)
	UnitSetStatus(id string, s model.UnitStatus) error
	Relations(id string) ([]model.Relation, error)
	RelationsTo(id string) ([]model.Link, error)
	// Supporters lists the live units that support id, oldest first.
	Supporters(id string) ([]string, error)
	// Supersedes lists the units id supersedes that the field holds.
	Supersedes(id string) ([]string, error)
	UnitCount(statuses ...model.UnitStatus) (int64, error)
	// UnitSearch lists the units whose text has every word of words
	// (each a prefix of a word, from two letters on; the queue filter's
	// word index and folding), after the unit at sequence number after,
	// in the field's order, at most limit. Relations are not read.
	UnitSearch(words []string, after int64, limit int) ([]model.UnitHit, error)
}

// ConflictTx is the conflicts, their lists and figures.
type ConflictTx interface {
	Conflict(id string) (model.Conflict, error)
	// ConflictInsert stores c at version 1; an empty c.ID gets the next
	// "conflict-NNN" id, which is returned.
	ConflictInsert(c model.Conflict) (string, error)
	// ConflictUpdate writes c's status, steps, route, proposal and
	// resolution if the stored conflict is still at version expect,
	// whose version then grows by one; ErrStale otherwise, writing
	// nothing.
	ConflictUpdate(c model.Conflict, expect int64) error
	ConflictsOfUnit(id string) ([]model.Conflict, error)
	// ConflictsDue lists the conflicts whose route asks for something at
	// now (model.Route.DueAt): a reminder not yet sent, or a deadline
	// passed with a fallback to execute, a vote to close, or an overdue
	// notice not yet sent; oldest deadline first. Cheap when nothing is
	// due.
	ConflictsDue(now time.Time) ([]model.Conflict, error)
	// ConflictSetReminded records that id's route has had reminders reminders, if
	// it had from; ErrStale otherwise, writing nothing. The conflict's
	// version does not change.
	ConflictSetReminded(id string, from, reminders int) error
	ConflictList(q model.ListQuery) ([]model.ConflictSummary, error)
	// ConflictEach calls fn with each summary ConflictList would return,
	// in order, as it is read; fn's error stops it.
	ConflictEach(q model.ListQuery, fn func(model.ConflictSummary) error) error
	ConflictCount() (map[model.ConflictStatus]int, error)
	// Stats aggregates the field's figures (model.Stats): the open
	// conflicts at q.Now, and what happened from q.Since on.
	Stats(q model.StatsQuery) (model.Stats, error)
}

// BallotTx is the ballots of the votes.
type BallotTx interface {
	Ballots(conflictID string) ([]model.Ballot, error)
	BallotPut(b model.Ballot) error
	BallotClear(conflictID string) error
	// BallotsOfVoter lists the conflicts put to a vote voter has a ballot on.
	BallotsOfVoter(voter string) (map[string]bool, error)
}

// NoticeTx is the agents' notifications (their outboxes).
type NoticeTx interface {
	NotificationInsert(n model.Notification) (int64, error)
	// Inbox lists agentID's notifications after id since, at most limit
	// (0: all).
	Inbox(agentID string, since int64, limit int) ([]model.Notification, error)
	NotificationsOfConflict(conflictID string) ([]model.Notification, error)
	// NotificationCount is how many notifications the field holds.
	NotificationCount() (int64, error)
}

// HookTx is the hooks and their deliveries (docs/notifications.md).
type HookTx interface {
	// HookInsert stores h, whose id is set. Hooks lists the hooks for
	// agentID ("" for all), oldest first. HookDelete removes hook id and
	// its deliveries; ErrNotFound if there is none.
	HookInsert(h model.Hook) error
	Hooks(agentID string) ([]model.Hook, error)
	HookDelete(id string) error
	// HookDisable disables hook id at at, for why, and gives up its
	// pending deliveries (dead, why as their last error); it returns how
	// many. ErrNotFound if there is no such hook, ErrStale if it is
	// disabled already (nothing is written then).
	HookDisable(id, why string, at time.Time) (int, error)
	// HookEnable enables hook id again; ErrNotFound if there is none.
	HookEnable(id string) error
	// DeliveryInsert queues d (id, hook, notice, next_at and created_at
	// set, and d.Notice's conflict, which orders it) as pending.
	DeliveryInsert(d model.Delivery) error
	// Deliveries lists deliveries, newest first, with their hook and
	// notice.
	Deliveries(q model.DeliveryQuery) ([]model.Delivery, error)
	// DeliveryClaim claims for c.Token, until c.Now+c.Lease, up to c.Limit
	// deliveries claimable at c.Now (see Claimable) whose hook is not in
	// c.Skip, oldest due first, and returns them with their hook, notice
	// and claim token. Several workers claiming at once never get the
	// same one.
	DeliveryClaim(c Claim) ([]model.Delivery, error)
	// DeliveryRenew extends the claims held (delivery id → the token of
	// the claim holding it) to until (an until in the past releases them)
	// and returns the deliveries they still held: one whose claim ran out
	// and was taken by another, or that was given up meanwhile, is left
	// alone and not returned. One statement, whatever the count.
	DeliveryRenew(held map[string]string, until time.Time) ([]string, error)
	// DeliveryRecord records what a try of each of ds came to (State,
	// Attempts, NextAt, LastError, DeliveredAt) and releases its claim,
	// if the claim it was sent under (d.Claim) still holds it; it returns
	// the ids of those whose claim no longer does, for which it wrote
	// nothing. One statement, whatever the count.
	DeliveryRecord(ds ...model.Delivery) (stale []string, err error)
	// DeliveryRetry queues dead delivery id (every dead one for "")
	// again, due at now with its tries counted from zero, and returns
	// how many; ErrNotFound for an id that is not a dead delivery.
	DeliveryRetry(id string, now time.Time) (int, error)
	// DeliveryNext is when the earliest delivery whose hook is not in
	// skip may be claimed: when it is due, or when the claim that holds
	// it runs out, if later; nil for none. Like DeliveryClaim it leaves
	// out the deliveries of disabled hooks and those that wait for an
	// earlier one (Claimable).
	DeliveryNext(skip []string) (*time.Time, error)
}

// EventTx is the append-only event log.
type EventTx interface {
	EventAppend(e model.Event) (int64, error)
	EventsOfConflict(conflictID string) ([]model.Event, error)
	// DecisionEach calls fn with each MERGE and VOTE event, oldest first.
	DecisionEach(fn func(model.Event) error) error
	// MessageApplied reports whether the offline message messageID was
	// applied to conflictID already.
	MessageApplied(conflictID, messageID string) (bool, error)
}

// ImportTx is what an import of SDK logs, a generator or a copy needs
// beyond the rules: rows written as given.
type ImportTx interface {
	ConflictByPair(a, b string) (model.Conflict, error)
	UnitCommit(id string) error
	Standings(ids []string) (map[string]Standing, error)
	UnitSeqAlign(id string) error
	UnitSeqNext() (int64, error)
	// Bulk prepares many writes of rows exactly as given (ids, sequence
	// numbers, statuses): for generators and imports, which keep them
	// consistent themselves. Close it before the transaction ends.
	Bulk() (Bulk, error)
}

// AccessTx is people's SSH keys and agents' bearer tokens, for `arbiter
// serve`.
type AccessTx interface {
	// KeyInsert refuses a fingerprint already stored (ErrExists).
	KeyInsert(k model.Key) error
	// KeyByFingerprint looks up a key; ErrNotFound if there is none.
	KeyByFingerprint(fingerprint string) (model.Key, error)
	// KeyList lists the keys by agent, then fingerprint.
	KeyList() ([]model.Key, error)
	// KeyDelete removes agentID's key fingerprint and reports whether
	// there was one.
	KeyDelete(agentID, fingerprint string) (bool, error)
	// TokenInsert stores a token's record; a hash already stored is
	// refused (ErrExists).
	TokenInsert(t model.Token) error
	// TokenByHash looks up a token by the hash of it; ErrNotFound if
	// there is none.
	TokenByHash(hash string) (model.Token, error)
	// TokenList lists the tokens by agent, then issue time.
	TokenList() ([]model.Token, error)
	// TokenDelete removes the tokens of agent id, or the token whose
	// prefix is id, and returns how many it removed.
	TokenDelete(id string) (int, error)
}

// HeldTx is the decisions held in their undo window
// (model.HeldDecision). HeldInsert stores h, waiting. Held looks one up
// (ErrNotFound). HeldDue lists the waiting ones due at now, oldest due
// first, at most limit; HeldOf lists agentID's, waiting or done, by the
// time they were held. HeldDone marks one done at at with outcome (""
// when it was written) if it still waits; HeldDelete removes one, only if
// it still waits when onlyWaiting; each reports whether it did, so that
// of two racing, one does.
type HeldTx interface {
	HeldInsert(h model.HeldDecision) error
	Held(id string) (model.HeldDecision, error)
	HeldDue(now time.Time, limit int) ([]model.HeldDecision, error)
	HeldOf(agentID string) ([]model.HeldDecision, error)
	HeldDone(id string, at time.Time, outcome string) (bool, error)
	HeldDelete(id string, onlyWaiting bool) (bool, error)
}

// ForkTx is forks and joins (docs/fork-join.md).
type ForkTx interface {
	// FieldLinks lists what the field knows of itself and of the fields
	// it was forked from or to, by kind, then uid; FieldLinkPut stores l,
	// replacing the link of the same uid.
	FieldLinks() ([]model.FieldLink, error)
	FieldLinkPut(l model.FieldLink) error
	// FieldLinkDelete removes the link of uid, if there is one (a fork
	// forgets the links the copy of its field brought).
	FieldLinkDelete(uid string) error
	// Provenance is where the unit or conflict id of kind came from;
	// ProvenanceByFork finds what a join made of the fork's forkID.
	// Both return ErrNotFound when there is none. ProvenancePut stores p.
	Provenance(kind model.ProvenanceKind, id string) (model.Provenance, error)
	ProvenanceByFork(forkUID string, kind model.ProvenanceKind, forkID string) (model.Provenance, error)
	ProvenancePut(p model.Provenance) error
	// ProvenanceEach yields every provenance by kind, then id.
	ProvenanceEach(fn func(model.Provenance) error) error
	// UnitEachSince is UnitEach for the units recorded after epoch only
	// (what a fork added since it was forked), read through an index.
	UnitEachSince(epoch int64, fn func(seq int64, u model.Unit) error) error
}

// DetectTx is what finding the contradictions nobody declared reads and
// keeps (docs/detection.md): the units a new one is compared with, found
// through the engine's word index; the pairs people said are not
// contradictions; where the field's scan stands.
type DetectTx interface {
	// UnitCandidates asks the word index, for each of terms, for the
	// sequence numbers of the newest units before seq before that hold
	// it, at most perTerm, newest first (hits); and how many units hold
	// it (df): exactly when fewer than perTerm do, else at least perTerm,
	// an engine's count or estimate. An engine that cannot list the
	// newest units of a word without reading all that hold it
	// (PostgreSQL's GIN) gives a word held by CandidateCap units or more
	// no hits, and a df of at least CandidateCap: so common a word tells
	// units apart too little to be worth it.
	UnitCandidates(terms []Term, before int64, perTerm int) (hits [][]int64, df []int, err error)
	// UnitsByPurpose lists the sequence numbers of the newest units before
	// seq before whose intent.purpose begins as purpose does (its first
	// 200 characters, all the index keeps), at most limit, newest first.
	UnitsByPurpose(purpose string, before int64, limit int) ([]int64, error)
	// UnitsBySeq reads the units at seqs, in seqs' order, leaving out the
	// numbers the field does not hold. Relations are not read.
	UnitsBySeq(seqs []int64) ([]model.UnitHit, error)
	// UnitsAfter reads at most limit units after seq after that were
	// recorded after epoch since, by sequence number: a scan's next
	// batch. Relations are not read.
	UnitsAfter(after, since int64, limit int) ([]model.UnitHit, error)
	// DetectDismiss keeps d's pair (model.Pair's order) as not a
	// contradiction, replacing what was kept of it; DetectDismissed
	// reports whether units a and b, in either order, are kept so;
	// DetectUndismiss forgets the pair. DetectDismissedEach yields every
	// pair, by pair.
	DetectDismiss(d model.Dismissed) error
	DetectDismissed(a, b string) (bool, error)
	DetectUndismiss(a, b string) error
	DetectDismissedEach(fn func(model.Dismissed) error) error
	// DetectScan is where the field's scan stands (its Total is not
	// kept); ErrNotFound before the first. DetectScanSave replaces it.
	DetectScan() (model.ScanState, error)
	DetectScanSave(s model.ScanState) error
}

// Term is a word UnitCandidates looks units up by: the beginning of a
// folded word, which its other forms share (Prefix), and the word as the
// unit writes it (Whole), for an index whose prefix search reads every
// unit that holds the prefix.
type Term struct{ Prefix, Whole string }

// CandidateCap is how many of the units that hold a word an engine whose
// index hands them over in no order reads at most (UnitCandidates): a
// word held by more is too common to tell units apart.
const CandidateCap = 128

// EachTx is the whole-field reads, each in the order the field keeps its
// rows: for copying a field to another engine and proving the copy equal
// (Digest).
type EachTx interface {
	AgentEach(fn func(a model.Agent, epoch int64) error) error
	// UnitEach yields units by sequence number, with their relations.
	UnitEach(fn func(seq int64, u model.Unit) error) error
	// ConflictEachStored yields conflicts by sequence number, as stored.
	ConflictEachStored(fn func(seq int64, c model.Conflict) error) error
	// BallotEach yields ballots by conflict id, then voter id.
	BallotEach(fn func(model.Ballot) error) error
	// NotificationEach and EventEach yield rows by id.
	NotificationEach(fn func(model.Notification) error) error
	EventEach(fn func(model.Event) error) error
}

// Bulk writes many rows in one transaction. An engine may hold rows back
// and write them together (PostgreSQL copies them in): Close writes what
// is left, and its error, like any method's, is the bulk write's.
type Bulk interface {
	// Unit stores u, whose id is set, at sequence number seq.
	Unit(seq int64, u model.Unit) error
	// Conflict stores c, whose id is set, at seq, at the version c
	// carries.
	Conflict(seq int64, c model.Conflict) error
	// Decision writes c's decided state and version over the stored
	// conflict's; ErrNotFound if there is none.
	Decision(c model.Conflict) error
	Ballot(v model.Ballot) error
	// Notification and Event keep n.ID and e.ID when they are set (a
	// copy of a field), and take the next id otherwise.
	Notification(n model.Notification) error
	Event(e model.Event) error
	Close() error
}

// Standing is what an import needs to know of a unit already in the
// field.
type Standing struct {
	Mode    model.Mode
	Status  model.UnitStatus
	AgentID string
}

// Options tune how a field is opened.
type Options struct {
	// ReadOnly opens the field without writing to it.
	ReadOnly bool
	// ReadOnlyWhy and ReadOnlyHint, when set, are what a refused write
	// says of why the field is read-only and what to do, instead of
	// naming --read-only.
	ReadOnlyWhy, ReadOnlyHint string
	// BusyTimeout is how long a write waits for another writer.
	BusyTimeout time.Duration
	// ListenDB, for a field on a server behind a connection pooler, is a
	// direct connection to the same server used only to be told of
	// changes (LISTEN); without it such a field is polled (Polled).
	ListenDB string
}

// DefaultBusyTimeout is used when Options.BusyTimeout is zero.
const DefaultBusyTimeout = 5 * time.Second

// ErrNotFound is returned by lookups of a single row that is not there.
var ErrNotFound = errors.New("not found")

// ErrExists is returned by an insert of a key or token already stored.
var ErrExists = errors.New("already stored")

// ErrStale is returned by ConflictUpdate when the conflict is no longer at
// the version the caller read.
var ErrStale = errors.New("the conflict changed since it was read")

// IsStale reports whether err is ConflictUpdate's stale-version refusal.
func IsStale(err error) bool { return errors.Is(err, ErrStale) }

// OpenError is a field that cannot be opened: one clear sentence.
type OpenError struct {
	Name   string
	Reason string
	Err    error
}

func (e *OpenError) Error() string { return fmt.Sprintf("%s: %s", e.Name, e.Reason) }
func (e *OpenError) Unwrap() error { return e.Err }

// ReadOnlyError is what a write to a field open read-only returns: why it
// is read-only (the engine's reason, the caller's, or --read-only), and
// what to do.
func ReadOnlyError(opt Options, engineReason string) error {
	hint, why := "open the field without --read-only", "it was opened with --read-only"
	if opt.ReadOnlyWhy != "" {
		hint, why = opt.ReadOnlyHint, opt.ReadOnlyWhy
	}
	if engineReason != "" {
		hint, why = "copy the field to writable storage, or fix its permissions", engineReason
	}
	return model.Errorf("WRITE", model.CodeReadOnly, hint, "the field is read-only (%s); nothing was written", why)
}
