// Package storetest is the conformance suite of store's engines: what
// every engine must do the same way, run by each engine's own tests
// (store/sqlite, store/postgres) against real fields of that engine.
// Engine-specific matters — files and their permissions, the server's
// roles, the SQL of each schema — stay in each engine's tests.
package storetest

import (
	"context"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// Engine is what the suite needs of an engine.
type Engine struct {
	// Create makes a new field with policy p, closed when t ends, and
	// returns it with its name.
	Create func(t testing.TB, p model.Policy) (store.Field, string)
	// Open opens the field name again: another connection, as another
	// process would have.
	Open func(t testing.TB, name string, opt store.Options) store.Field
	// Exec runs sql on the field name as another program would, with
	// SQL both engines accept, and returns its error.
	Exec func(t testing.TB, name string, sql string) error
	// Role is a database role that exists, to bind agents to.
	Role string
}

// Run runs the whole suite as subtests of t.
func Run(t *testing.T, e Engine) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Engine)
	}{
		{"ClockTicksAndWitnesses", testClock},
		{"IDsAreSequentialAndImportedOnesKept", testIDs},
		{"UpdateConflictStaleWritesNothing", testStale},
		{"RacingUpdatesOfOneConflictLetOneWin", testRacingUpdates},
		{"ConcurrentWritersGetUniqueIDsAndOneOutboxOrder", testConcurrentIDs},
		{"AFailedWriteWritesNothing", testRollback},
		{"ReadOnlyRefusesWrites", testReadOnly},
		{"UnitsRoundTrip", testUnitsRoundTrip},
		{"SupportersAreLiveUnitsOnly", testSupporters},
		{"RelationsBothWays", testRelations},
		{"CountUnitsByStatus", testCountUnits},
		{"AgentsKeepTheirRole", testAgents},
		{"PolicyRoundTrips", testPolicy},
		{"ConflictsRoundTripEveryColumn", testConflictRoundTrip},
		{"PutBallotReplacesTheVotersBallot", testBallots},
		{"VotedOnListsOpenVotes", testVotedOn},
		{"InboxPages", testInbox},
		{"InboxNewestFirstAndTheReadMark", testInboxRecentAndReadMark},
		{"InboxNewestFirstUnderConcurrentWriters", testInboxRecentUnderConcurrentWriters},
		{"DraftsPerPersonConflictAndForm", testDrafts},
		{"EventsAndDecisions", testEvents},
		{"TheLogIsAppendOnly", testAppendOnly},
		{"SchemaRefusesInconsistentRows", testSchemaChecks},
		{"ListSortsFiltersAndPages", testList},
		{"SearchMatchesWordsAndText", testSearch},
		{"QueueRowFollowsBallots", testQueueRowFollowsBallots},
		{"CountsFollowTheConflicts", testCounts},
		{"WordIndexFollowsTheConflicts", testWordIndex},
		{"ImportHelpers", testImportHelpers},
		{"BulkWritesRowsAsGiven", testBulk},
		{"EachReadsTheWholeField", testEach},
		{"ChangedSeesOtherConnections", testChanged},
		{"DueConflictsFollowTheRoutesClock", testDue},
		{"HooksAndTheirDeliveries", testHooks},
		{"DeliveriesAreClaimedTriedAndRetried", testDeliveryLifecycle},
		{"RacingWorkersNeverClaimOneDeliveryTwice", testDeliveryClaimsRace},
		{"AClaimIsHeldByItsToken", testDeliveryClaimTokens},
		{"AHookGetsOneConflictsNoticesInOrder", testDeliveryOrderPerConflict},
		{"ADisabledHookIsSentNothing", testHookDisabled},
		{"KeysAndTokens", testKeysAndTokens},
		{"UnitSearchFindsWordsOfTheText", testUnitSearch},
		{"StatsAggregateEveryFigure", testStats},
		{"StatsCountVotesMissedNotRecusedOrOpen", testStatsMissedVotes},
		{"FieldLinksKeepIdentityAndForks", testFieldLinks},
		{"ProvenanceFindsBothWays", testProvenance},
		{"ForkLinksDeleteAndProvenanceEach", testForksDeleteAndEach},
		{"UnitEachSinceReadsTheNewerUnits", testUnitEachSince},
		{"HeldDecisionsWaitUntilDueAndAreDoneOnce", testHeld},
		{"RacingSweepersCarryOutAHeldDecisionOnce", testHeldRace},
		{"CheckOfAFieldInPlace", testCheck},
		{"DetectCandidatesFromTheWordIndex", testDetectCandidates},
		{"DetectDismissedPairsAndTheScansPlace", testDetectDismissedAndScan},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, e) })
	}
}

// field is a new field with agents a1 (role r, authority 6) and a2 (role
// r2, authority 6, a person).
func field(t *testing.T, e Engine) (store.Field, string) {
	t.Helper()
	st, name := e.Create(t, model.DefaultPolicy())
	write(t, st, func(tx store.Tx) error {
		if err := tx.AgentInsert(model.Agent{ID: "a1", Role: "r", Kind: model.KindAgent, Authority: 6,
			Status: model.AgentIdle, RegisteredAt: now()}, 1); err != nil {
			return err
		}
		return tx.AgentInsert(model.Agent{ID: "a2", Role: "r2", Kind: model.KindHuman, Authority: 6,
			Status: model.AgentIdle, RegisteredAt: now()}, 1)
	})
	return st, name
}

// now is the wall clock to the microsecond, the precision every engine
// keeps.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

func write(t testing.TB, st store.Field, fn func(store.Tx) error) {
	t.Helper()
	if err := st.Write(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, st store.Field, fn func(store.Tx) error) {
	t.Helper()
	if err := st.Read(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// readTail is read for a transaction that reads a tail (an outbox) after
// other statements (store.Field.ReadTail).
func readTail(t testing.TB, st store.Field, fn func(store.Tx) error) {
	t.Helper()
	if err := st.ReadTail(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func exec(t testing.TB, e Engine, name, sql string) {
	t.Helper()
	if err := e.Exec(t, name, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// unit is a committed finding by a1.
func unit(id string, epoch int64, rels ...model.Relation) model.Unit {
	score := 0.5
	return model.Unit{ID: id, Mode: model.ModeCommitted, Type: model.TypeFinding, Content: "c",
		Intent: model.Intent{Purpose: "p"}, Confidence: model.Confidence{Score: &score, Reasoning: "r"},
		Source: model.Source{AgentID: "a1", AgentRole: "r", Timestamp: now()}, Relations: rels,
		Status: model.UnitActive, Epoch: epoch}
}

// pair stores units u1 (by a1) and u2 (by a2) and conflict c1 between
// them in status s.
func pair(t *testing.T, st store.Field, s model.ConflictStatus) {
	t.Helper()
	write(t, st, func(tx store.Tx) error {
		u1, u2 := unit("u1", 1), unit("u2", 2)
		u2.Source.AgentID, u2.Source.AgentRole = "a2", "r2"
		for _, u := range []model.Unit{u1, u2} {
			if _, err := tx.UnitInsert(u); err != nil {
				return err
			}
		}
		_, err := tx.ConflictInsert(model.Conflict{ID: "c1", Type: model.ConflictFactual, Status: s,
			UnitA: "u1", UnitB: "u2", DetectedBy: model.DetectedExplicit, DetectedAt: now(), Epoch: 3})
		return err
	})
}
