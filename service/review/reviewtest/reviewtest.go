// Package reviewtest builds real fields for tests: a SQLite file in a
// temporary directory — or, with ARBITER_TEST_ENGINE=postgres, a schema of
// its own on the PostgreSQL test server (internal/pgtest) — with a known
// cast of agents and, on demand, pairs of contradicting units. It uses the
// store and the rules as they are — no mocks — so what a test sees is
// what arbiter writes. Main runs a package's tests on both engines.
package reviewtest

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"arbiter/internal/pgtest"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/jackc/pgx/v5"
)

// EngineEnv names the engine New makes fields on: "postgres", or
// "sqlite" (the default when it is not set).
const EngineEnv = "ARBITER_TEST_ENGINE"

// OnPostgres reports whether New makes fields on PostgreSQL.
func OnPostgres() bool { return os.Getenv(EngineEnv) == "postgres" }

// Main runs a test package's tests on SQLite, then again on PostgreSQL:
// the test binary started once more with ARBITER_TEST_ENGINE=postgres,
// sharing this process's test server. With ARBITER_TEST_ENGINE set it
// runs them once, on that engine. Without PostgreSQL on the machine the
// second run is skipped, and says so. Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(reviewtest.Main(m)) }
func Main(m *testing.M) int {
	if os.Getenv(EngineEnv) != "" {
		return m.Run()
	}
	code := m.Run()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		return code // benchmarks measure one engine at a time
	}
	url, err := pgtest.Server()
	if errors.Is(err, pgtest.ErrNoPostgres) {
		fmt.Printf("reviewtest: the tests ran on SQLite only: %v\n", err)
		return code
	}
	if err != nil {
		fmt.Printf("reviewtest: PostgreSQL for the second run: %v\n", err)
		return 1
	}
	cmd := exec.Command(os.Args[0], os.Args[1:]...)
	cmd.Env = append(os.Environ(), EngineEnv+"=postgres", pgtest.Env+"="+url)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil && code == 0 {
		code = 1
	}
	return code
}

// The agents every field of New is registered with.
const (
	Operator = "operator" // a person, authority 10: decides anything, escalated conflicts too
	Senior1  = "senior-1" // authority 6, role "senior": may decide conflicts
	Senior2  = "senior-2" // authority 6, role "senior"
	Standard = "standard" // authority 4, role "analyst": records, escalates, does not decide at level 3
	Scout    = "scout"    // authority 4, role "analyst": records the supporting units
	Observer = "observer" // authority 2: only reads
	Lead1    = "lead-1"   // authority 6, role "lead": the authority role for factual conflicts
	Lead2    = "lead-2"
	Lead3    = "lead-3"
)

// Voters are the agents Policy lets vote (authority 6 and up), sorted.
var Voters = []string{Lead1, Lead2, Lead3, Operator, Senior1, Senior2}

// Agents is the cast New registers, in registration order.
var Agents = []model.Agent{
	{ID: Operator, Role: "operator", Kind: model.KindHuman, Authority: model.AuthorityHumanOperator},
	{ID: Senior1, Role: "senior", Authority: model.AuthoritySenior},
	{ID: Senior2, Role: "senior", Authority: model.AuthoritySenior},
	{ID: Standard, Role: "analyst", Authority: model.AuthorityStandard},
	{ID: Scout, Role: "analyst", Authority: model.AuthorityStandard},
	{ID: Observer, Role: "observer", Authority: model.AuthorityObserver},
	{ID: Lead1, Role: "lead", Authority: model.AuthoritySenior},
	{ID: Lead2, Role: "lead", Authority: model.AuthoritySenior},
	{ID: Lead3, Role: "lead", Authority: model.AuthoritySenior},
}

// Policy is the governance tests start from: level 3, quorum 3, a tie
// escalates, senior agents and up vote, and role "lead" has authority
// over factual conflicts. Recusal is off (the cast's seniors write the
// units they then decide) and so is the operator override; tests of
// either turn them on. Detection is off: the conflicts a test opens are
// the ones it declares, unless it tests detection.
func Policy() model.Policy {
	p := model.DefaultPolicy()
	p.Level, p.Quorum, p.Tie = 3, 3, model.TieEscalate
	p.Recusal, p.OperatorOverride = false, false
	p.DetectionSensitivity = model.SensitivityOff
	p.VoterMinAuthority = model.AuthoritySenior
	p.AuthorityRoles = map[model.ConflictType]string{model.ConflictFactual: "lead"}
	return p
}

// Field is an open field in a temporary directory, or in a schema of its
// own on PostgreSQL.
type Field struct {
	// Path is the field's name: its file, or its PostgreSQL connection
	// string.
	Path  string
	Store store.Field
	Svc   *review.Service
}

// NewName returns the name of a field no one has made yet, on the
// engine of New: a file in t.TempDir(), or a schema on the PostgreSQL
// test server (dropped when the test ends).
func NewName(t testing.TB) string {
	t.Helper()
	if OnPostgres() {
		return pgtest.Field(t)
	}
	return filepath.Join(t.TempDir(), "field.db")
}

// New creates a field with policy p (NewName) and registers Agents. The
// store is closed when the test ends.
func New(t testing.TB, p model.Policy) *Field {
	t.Helper()
	ctx := context.Background()
	path := NewName(t)
	st, err := field.Create(ctx, path, p)
	if err != nil {
		t.Fatalf("create field: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	f := &Field{Path: path, Store: st, Svc: review.New(st)}
	for _, a := range Agents {
		if _, err := f.Svc.Register(ctx, a); err != nil {
			t.Fatalf("register %s: %v", a.ID, err)
		}
	}
	return f
}

// Side describes one unit of a contradiction.
type Side struct {
	// By records the unit (default: Senior2 for A, Standard for B).
	By string
	// Score is its confidence score (default 0.5).
	Score float64
	// Supporters is how many units Scout records with a supports relation
	// to it.
	Supporters int
	// Epoch, when set, is the epoch the unit is recorded at: the clock is
	// moved forward just before. It must be later than the clock.
	Epoch int64
	// Content is its text (default: a short sentence naming the side).
	Content string
}

// Pair is a recorded contradiction.
type Pair struct {
	Conflict string
	A, B     string
	// SupportersA and SupportersB are the supporting units' ids.
	SupportersA, SupportersB []string
}

// Contradict records unit A, its supporters, unit B contradicting A (which
// opens a conflict of type ct, detected explicitly), and B's supporters,
// all through RECORD.
func (f *Field) Contradict(t testing.TB, ct model.ConflictType, a, b Side) Pair {
	t.Helper()
	if a.By == "" {
		a.By = Senior2
	}
	if b.By == "" {
		b.By = Standard
	}
	var p Pair
	p.A = f.record(t, a, "A", nil, "")
	p.SupportersA = f.supporters(t, p.A, a.Supporters)
	p.B = f.record(t, b, "B", []model.Relation{{Type: model.RelContradicts, TargetID: p.A}}, ct)
	p.SupportersB = f.supporters(t, p.B, b.Supporters)
	cs := f.conflictsBetween(t, p.A, p.B)
	if len(cs) != 1 {
		t.Fatalf("recording %s against %s opened %d conflicts, want 1", p.B, p.A, len(cs))
	}
	p.Conflict = cs[0]
	return p
}

// ContradictUnit records a unit (side s) contradicting target, a unit
// already in the field, and returns the conflict it opens.
func (f *Field) ContradictUnit(t testing.TB, target string, s Side) string {
	t.Helper()
	if s.By == "" {
		s.By = Standard
	}
	u := f.record(t, s, "C", []model.Relation{{Type: model.RelContradicts, TargetID: target}}, model.ConflictFactual)
	cs := f.conflictsBetween(t, target, u)
	if len(cs) != 1 {
		t.Fatalf("recording %s against %s opened %d conflicts, want 1", u, target, len(cs))
	}
	return cs[0]
}

func (f *Field) record(t testing.TB, s Side, name string, rels []model.Relation, ct model.ConflictType) string {
	t.Helper()
	if s.Score == 0 {
		s.Score = 0.5
	}
	if s.Content == "" {
		s.Content = "Claim " + name + " of a contradiction."
	}
	if s.Epoch > 0 {
		f.MoveClockTo(t, s.Epoch-1)
	}
	res, err := f.Svc.Record(context.Background(), s.By, model.RecordRequest{
		Type: model.TypeFinding, Content: s.Content,
		Intent:       model.Intent{Purpose: "state claim " + name},
		Confidence:   model.Confidence{Score: &s.Score, Reasoning: "as the test needs"},
		Relations:    rels,
		ConflictType: ct,
	})
	if err != nil {
		t.Fatalf("record %s: %v", name, err)
	}
	if s.Epoch > 0 && res.Epoch != s.Epoch {
		t.Fatalf("unit %s landed at epoch %d, want %d", name, res.Epoch, s.Epoch)
	}
	return res.UnitID
}

func (f *Field) supporters(t testing.TB, target string, n int) []string {
	t.Helper()
	out := []string{}
	for i := range n {
		score := 0.6
		res, err := f.Svc.Record(context.Background(), Scout, model.RecordRequest{
			Type: model.TypeObservation, Content: fmt.Sprintf("Evidence %d for %s.", i+1, target),
			Intent:     model.Intent{Purpose: "support " + target},
			Confidence: model.Confidence{Score: &score, Reasoning: "an observation"},
			Relations:  []model.Relation{{Type: model.RelSupports, TargetID: target}},
		})
		if err != nil {
			t.Fatalf("record a supporter of %s: %v", target, err)
		}
		out = append(out, res.UnitID)
	}
	return out
}

func (f *Field) conflictsBetween(t testing.TB, a, b string) []string {
	t.Helper()
	var out []string
	f.Read(t, func(tx store.Tx) error {
		cs, err := tx.ConflictsOfUnit(b)
		for _, c := range cs {
			if c.UnitA == a && c.UnitB == b {
				out = append(out, c.ID)
			}
		}
		return err
	})
	return out
}

// MoveClockTo advances the field's clock to exactly e (the Lamport receive
// rule, as for a message from a later epoch). It fails if the clock is
// already past e.
func (f *Field) MoveClockTo(t testing.TB, e int64) {
	t.Helper()
	err := f.Store.Write(context.Background(), func(tx store.Tx) error {
		now, err := tx.Epoch()
		switch {
		case err != nil:
			return err
		case now > e:
			return fmt.Errorf("the clock is at %d, past %d", now, e)
		case now == e:
			return nil
		}
		_, err = tx.EpochWitness(e - 1)
		return err
	})
	if err != nil {
		t.Fatalf("move the clock to %d: %v", e, err)
	}
}

// Read runs fn in a read transaction and fails the test on its error.
func (f *Field) Read(t testing.TB, fn func(store.Tx) error) {
	t.Helper()
	if err := f.Store.Read(context.Background(), fn); err != nil {
		t.Fatalf("read the field: %v", err)
	}
}

// Unit reads a unit as stored.
func (f *Field) Unit(t testing.TB, id string) model.Unit {
	t.Helper()
	var u model.Unit
	f.Read(t, func(tx store.Tx) (err error) { u, err = tx.Unit(id); return err })
	return u
}

// Status reads a unit's status.
func (f *Field) Status(t testing.TB, id string) model.UnitStatus { return f.Unit(t, id).Status }

// Clock reads the field's epoch.
func (f *Field) Clock(t testing.TB) int64 {
	t.Helper()
	var e int64
	f.Read(t, func(tx store.Tx) (err error) { e, err = tx.Epoch(); return err })
	return e
}

// Detail reads a conflict through the rules, as a reviewer sees it.
func (f *Field) Detail(t testing.TB, id string) model.ConflictDetail {
	t.Helper()
	d, err := f.Svc.Detail(context.Background(), id)
	if err != nil {
		t.Fatalf("detail %s: %v", id, err)
	}
	return d
}

// Snapshot is every row of every table of a field, as text: two equal
// snapshots mean nothing was written in between.
type Snapshot map[string][]string

// Snap reads every table of the field name (a file or a PostgreSQL
// connection string) through a separate connection.
func Snap(t testing.TB, name string) Snapshot {
	t.Helper()
	if field.IsServer(name) {
		return snapPostgres(t, name)
	}
	db, err := sql.Open("sqlite", "file:"+name+"?mode=ro")
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	s := Snapshot{}
	for _, table := range tables {
		s[table] = dump(t, db, table)
	}
	return s
}

func dump(t testing.TB, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT * FROM "` + table + `"`)
	if err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	out := []string{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		out = append(out, row(cols, vals))
	}
	sort.Strings(out)
	return out
}

// snapPostgres reads every table of the field's schema.
func snapPostgres(t testing.TB, name string) Snapshot {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, name)
	if err != nil {
		t.Fatalf("connect to %s: %v", field.Redact(name), err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	s := Snapshot{}
	for _, table := range tables {
		rows, err := c.Query(ctx, `SELECT * FROM `+pgx.Identifier{table}.Sanitize())
		if err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		var cols []string
		for _, fd := range rows.FieldDescriptions() {
			cols = append(cols, fd.Name)
		}
		out := []string{}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatalf("read %s: %v", table, err)
			}
			out = append(out, row(cols, vals))
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		sort.Strings(out)
		s[table] = out
	}
	return s
}

func row(cols []string, vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		parts[i] = fmt.Sprintf("%s=%v", cols[i], v)
	}
	return strings.Join(parts, " ")
}

// FailInserts makes every insert into table fail with "injected
// failure", through a trigger written with a separate connection: the
// next write that reaches that table aborts half way.
func FailInserts(t testing.TB, f *Field, table string) {
	t.Helper()
	ctx := context.Background()
	if field.IsServer(f.Path) {
		c, err := pgx.Connect(ctx, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `CREATE FUNCTION test_fail() RETURNS trigger LANGUAGE plpgsql AS
			$$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`); err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("install the failing trigger: %v", err)
		}
		if _, err := c.Exec(ctx, `CREATE TRIGGER test_fail_`+table+` BEFORE INSERT ON `+table+
			` FOR EACH ROW EXECUTE FUNCTION test_fail()`); err != nil {
			t.Fatalf("install the failing trigger: %v", err)
		}
		return
	}
	db, err := sql.Open("sqlite", "file:"+f.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER test_fail_` + table + ` BEFORE INSERT ON ` + table +
		` BEGIN SELECT RAISE(ABORT, 'injected failure'); END`); err != nil {
		t.Fatalf("install the failing trigger: %v", err)
	}
}

// Count is how many rows table holds in the snapshot.
func (s Snapshot) Count(table string) int { return len(s[table]) }

// Diff describes how two snapshots differ ("" if they do not).
func (s Snapshot) Diff(other Snapshot) string {
	var b strings.Builder
	names := map[string]bool{}
	for n := range s {
		names[n] = true
	}
	for n := range other {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		before, after := strings.Join(s[n], "\n"), strings.Join(other[n], "\n")
		if before != after {
			fmt.Fprintf(&b, "table %s: %d rows before, %d after\n", n, len(s[n]), len(other[n]))
		}
	}
	return b.String()
}

// WantError fails the test unless err is a protocol error with code,
// operation op and the recoverable flag; it returns the error.
func WantError(t testing.TB, err error, code model.Code, op string, recoverable bool) *model.Error {
	t.Helper()
	pe, ok := model.AsError(err)
	if !ok {
		t.Fatalf("got %v, want a protocol error %s", err, code)
	}
	if pe.Code != code || pe.Operation != op || pe.Recoverable != recoverable {
		t.Fatalf("got {code %s, operation %s, recoverable %v} (%v), want {%s, %s, %v}",
			pe.Code, pe.Operation, pe.Recoverable, pe, code, op, recoverable)
	}
	if pe.Message == "" {
		t.Fatalf("%s has no message", code)
	}
	return pe
}
