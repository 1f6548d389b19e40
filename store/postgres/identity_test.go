package postgres_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"arbiter/internal/pgtest"
	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/postgres"

	"github.com/jackc/pgx/v5"
)

// rolesSQL is the block of docs/postgres.md that creates the group roles,
// for the field's schema, under names of this test's own.
func rolesSQL(t *testing.T, schema string, groups map[string]string) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/postgres.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "<!-- roles.sql")
	block, _, ok2 := strings.Cut(block, "<!-- end of roles.sql -->")
	if !ok || !ok2 {
		t.Fatal("docs/postgres.md has no roles.sql block")
	}
	_, block, _ = strings.Cut(block, "```sql")
	block, _, _ = strings.Cut(block, "```")
	block = strings.NewReplacer("arbiter.", schema+".", "SCHEMA arbiter ", "SCHEMA "+schema+" ").Replace(block)
	for group, name := range groups {
		block = strings.ReplaceAll(block, group, name)
	}
	return block
}

// team is a field with the roles of docs/postgres.md and people and
// agents bound to logins: operator (a person, authority 10) to maya, a
// member of the operators; lead-1 to lee, a lead; standard (an agent of
// authority 4) to bot, an agent; senior-1 to sen, an agent. Other agents
// of the cast are bound to no role.
type team struct {
	f                   *rt.Field
	schema              string
	maya, lee, bot, sen string // connection strings that log in as each
	botRole, mayaRole   string
}

func newTeam(t *testing.T) team {
	t.Helper()
	ctx := context.Background()
	name := pgtest.Field(t)
	base := pgtest.URL(t)
	st, err := postgres.Create(ctx, name, rt.Policy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	tm := team{schema: st.Schema()}
	groups := map[string]string{}
	for _, g := range []string{"arbiter_reader", "arbiter_agent", "arbiter_lead", "arbiter_operator"} {
		groups[g] = pgtest.Name(g)
	}
	// Longest first, so arbiter_lead is not replaced inside another name.
	sql := rolesSQL(t, tm.schema, groups)
	pgtest.Exec(t, name, sql)
	t.Cleanup(func() {
		for _, g := range []string{"arbiter_operator", "arbiter_lead", "arbiter_agent", "arbiter_reader"} {
			pgtest.Exec(t, base, `DROP OWNED BY `+groups[g])
			pgtest.Exec(t, base, `DROP ROLE IF EXISTS `+groups[g])
		}
	})
	var mayaRole, leeRole, botRole, senRole string
	mayaRole, tm.maya = pgtest.Role(t, name, "maya", groups["arbiter_operator"])
	leeRole, tm.lee = pgtest.Role(t, name, "lee", groups["arbiter_lead"])
	botRole, tm.bot = pgtest.Role(t, name, "bot", groups["arbiter_agent"])
	senRole, tm.sen = pgtest.Role(t, name, "sen", groups["arbiter_agent"])
	tm.botRole, tm.mayaRole = botRole, mayaRole
	svc := review.New(st)
	for _, a := range rt.Agents {
		switch a.ID {
		case rt.Operator:
			a.DBRole = mayaRole
		case rt.Lead1:
			a.DBRole = leeRole
		case rt.Standard:
			a.DBRole = botRole
		case rt.Senior1:
			a.DBRole = senRole
		}
		if _, err := svc.Register(ctx, a); err != nil {
			t.Fatalf("register %s: %v", a.ID, err)
		}
	}
	tm.f = &rt.Field{Path: name, Store: st, Svc: svc}
	return tm
}

// as opens the field through the login conn.
func as(t *testing.T, conn string) *review.Service {
	t.Helper()
	st, err := postgres.Open(context.Background(), conn, store.Options{})
	if err != nil {
		t.Fatalf("open as %s: %v", conn, err)
	}
	t.Cleanup(func() { st.Close() })
	return review.New(st)
}

func finding(content string, rels ...model.Relation) model.RecordRequest {
	s := 0.5
	return model.RecordRequest{Type: model.TypeFinding, Content: content, Intent: model.Intent{Purpose: "measure"},
		Confidence: model.Confidence{Score: &s, Reasoning: "r"}, Relations: rels}
}

// raw runs statements in one transaction through the login conn, as a
// program of the role's own would, and returns the first error.
func raw(t *testing.T, conn string, stmts ...string) error {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

func wantRefused(t *testing.T, what string, err error, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: the field took it", what)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("%s: %v, want it to say %q", what, err, w)
		}
	}
}

// Each role does its own part of the work through arbiter: an agent
// records and escalates, an operator decides what is escalated, a lead
// votes, a person on a second login acts as themselves.
func TestRolesDoTheirPartThroughArbiter(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	bot, maya, lee := as(t, tm.bot), as(t, tm.maya), as(t, tm.lee)

	a, err := bot.Record(ctx, rt.Standard, finding("p99 is 40 ms"))
	if err != nil {
		t.Fatalf("an agent records as itself: %v", err)
	}
	sen := as(t, tm.sen)
	b, err := sen.Record(ctx, rt.Senior1, finding("p99 is 90 ms", model.Relation{Type: model.RelContradicts, TargetID: a.UnitID}))
	if err != nil || len(b.Conflicts) != 1 {
		t.Fatalf("an agent's contradiction opens a conflict: %+v, %v", b, err)
	}
	c := b.Conflicts[0].ID
	if _, err := bot.Merge(ctx, rt.Standard, model.MergeRequest{ConflictID: c, Strategy: model.HumanEscalation,
		Resolution: model.MergeResolution{Rationale: "people should look"}}); err != nil {
		t.Fatalf("an agent escalates: %v", err)
	}
	resp, err := maya.Merge(ctx, rt.Operator, model.MergeRequest{ConflictID: c, Strategy: model.Vote,
		Resolution: model.MergeResolution{Rationale: "the leads know"}})
	if err != nil || resp.Status != model.StatusPendingVote {
		t.Fatalf("the operator puts it to a vote: %+v, %v", resp, err)
	}
	if _, err := lee.Vote(ctx, rt.Lead1, model.VoteRequest{ConflictID: c, Choice: "A", Rationale: "the lab"}); err != nil {
		t.Fatalf("a lead votes: %v", err)
	}
	// A second login granted maya's role acts as the operator too.
	_, laptop := pgtest.Role(t, tm.f.Path, "maya_laptop", tm.mayaRole)
	if _, err := as(t, laptop).Vote(ctx, rt.Operator, model.VoteRequest{ConflictID: c, Choice: "A", Rationale: "from the laptop"}); err != nil {
		t.Fatalf("a login granted maya's role votes as the operator: %v", err)
	}
	d := tm.f.Detail(t, c)
	if d.Conflict.Status != model.StatusPendingVote || len(d.Ballots) != 2 || d.Ballots[0].VoterID != rt.Lead1 ||
		d.Ballots[1].VoterID != rt.Operator {
		t.Fatalf("after the roles' work: %s with ballots %+v", d.Conflict.Status, d.Ballots)
	}
}

// An agent's role cannot act as the operator, through arbiter or with SQL
// of its own, and cannot update conflicts directly.
func TestAnAgentsRoleCannotActAsTheOperator(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	p := tm.f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if _, err := tm.f.Svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.HumanEscalation,
		Resolution: model.MergeResolution{Rationale: "for people"}}); err != nil {
		t.Fatal(err)
	}
	before := rt.Snap(t, tm.f.Path)
	bot := as(t, tm.bot)

	// Through arbiter: --as the operator from the agent's login.
	_, err := bot.Merge(ctx, rt.Operator, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.Dismiss,
		Resolution: model.MergeResolution{Rationale: "I say so"}})
	pe := rt.WantError(t, err, model.CodeNotPermitted, model.OpMerge, false)
	if !strings.Contains(pe.Message, tm.botRole) || !strings.Contains(pe.Message, rt.Operator) {
		t.Fatalf("the refusal names neither the role nor the agent: %v", pe)
	}
	// As an agent bound to no role.
	_, err = bot.Record(ctx, rt.Scout, finding("not mine to write"))
	rt.WantError(t, err, model.CodeNotPermitted, model.OpRecord, false)

	update := `UPDATE conflicts SET status = 'resolved', strategy = 'dismiss', rationale = 'x', resolved_by = 'operator' WHERE id = '` + p.Conflict + `'`
	actAs := func(agent string) string { return `SELECT set_config('arbiter.agent', '` + agent + `', true)` }
	forged := `SELECT update_conflict('` + p.Conflict + `', 2, 'resolved', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
		'dismiss', NULL, NULL, 'mine now', '%s', 99, now(), NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`
	for _, tc := range []struct {
		what  string
		stmts []string
		words []string
	}{
		{"updating the conflict directly", []string{actAs(rt.Standard), update}, []string{"permission denied"}},
		{"naming the operator as the actor", []string{actAs(rt.Operator), `SELECT tick(0, 0)`},
			[]string{"may not act as agent " + rt.Operator}},
		{"naming no one", []string{`SELECT tick(0, 0)`}, []string{"names no agent"}},
		{"an event in the operator's name", []string{actAs(rt.Standard),
			`INSERT INTO events (epoch, operation, agent_id, at) VALUES (1, 'MERGE', 'operator', now())`},
			[]string{"in the name of operator"}},
		{"a unit in the operator's name", []string{actAs(rt.Standard),
			`INSERT INTO units (id, mode, type, content, intent_purpose, agent_id, agent_role, recorded_at, status, epoch)
			 VALUES ('forged', 'committed', 'human_directive', 'do it', 'p', 'operator', 'operator', now(), 'active', 1)`},
			[]string{"in the name of operator"}},
		{"deciding the escalated conflict through update_conflict, as itself",
			[]string{actAs(rt.Standard), strings.Replace(forged, "%s", rt.Standard, 1)}, []string{"is escalated"}},
		{"deciding it in the operator's name", []string{actAs(rt.Standard), strings.Replace(forged, "%s", rt.Operator, 1)},
			[]string{"in the name of another"}},
		{"casting a ballot", []string{actAs(rt.Standard),
			`INSERT INTO votes (conflict_id, voter_id, choice, rationale, epoch, cast_at) VALUES ('` + p.Conflict + `', 'standard', '` + p.A + `', 'r', 1, now())`},
			[]string{"permission denied"}},
		{"registering itself as a person", []string{actAs(rt.Standard),
			`INSERT INTO agents (id, role, kind, authority, registered_at, epoch) VALUES ('boss', 'operator', 'human', 10, now(), 1)`},
			[]string{"permission denied"}},
		{"changing the policy", []string{actAs(rt.Standard), `UPDATE policy SET level = 1`}, []string{"permission denied"}},
		{"rewriting the log", []string{actAs(rt.Standard), `DELETE FROM events`}, []string{"permission denied"}},
	} {
		wantRefused(t, tc.what, raw(t, tm.bot, tc.stmts...), tc.words...)
	}
	if d := before.Diff(rt.Snap(t, tm.f.Path)); d != "" {
		t.Fatalf("refused writes changed the field:\n%s", d)
	}
	// The operator's own login decides it.
	if _, err := as(t, tm.maya).Merge(ctx, rt.Operator, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.Dismiss,
		Resolution: model.MergeResolution{Rationale: "not a real conflict"}}); err != nil {
		t.Fatalf("the operator decides: %v", err)
	}
}

// A lead's login cannot vote in another lead's name, nor may a login with
// no role of the field read it.
func TestBallotsAndReadsNeedTheirRoles(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	p := tm.f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if _, err := tm.f.Svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.Vote,
		Resolution: model.MergeResolution{Rationale: "vote"}}); err != nil {
		t.Fatal(err)
	}
	_, err := as(t, tm.lee).Vote(ctx, rt.Lead2, model.VoteRequest{ConflictID: p.Conflict, Choice: "B", Rationale: "as lead-2"})
	rt.WantError(t, err, model.CodeNotPermitted, model.OpVote, false)
	wantRefused(t, "a ballot in another's name", raw(t, tm.lee, `SELECT set_config('arbiter.agent', 'lead-1', true)`,
		`INSERT INTO votes (conflict_id, voter_id, choice, rationale, epoch, cast_at) VALUES ('`+p.Conflict+`', 'lead-2', '`+p.A+`', 'r', 1, now())`),
		"in the name of lead-2")

	_, outsider := pgtest.Role(t, tm.f.Path, "outsider")
	_, err = postgres.Open(ctx, outsider, store.Options{})
	if err == nil || !strings.Contains(err.Error(), "may not be read") {
		t.Fatalf("a login with no role of the field opens it: %v", err)
	}
}

// What a deadline executes is signed by the field (fallback): the server
// takes it from an operator's session, and refuses it from an agent's,
// which leaves the conflict as it was.
func TestDeadlinesAreExecutedFromAnOperatorsSession(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	p := tm.f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if _, err := tm.f.Svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.HumanEscalation,
		Resolution: model.MergeResolution{Rationale: "for people"},
		Routing:    &model.Routing{Deadline: "1h", Fallback: model.FallbackDismiss}}); err != nil {
		t.Fatal(err)
	}
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }

	_, err := as(t, tm.bot).WithClock(later).WithSweeper(rt.Standard).Sweep(ctx)
	rt.WantError(t, err, model.CodeNotPermitted, model.OpSweep, false)
	var c model.Conflict
	tm.f.Read(t, func(tx store.Tx) (err error) { c, err = tx.Conflict(p.Conflict); return err })
	if c.Status != model.StatusEscalated || c.Route.Reminded != 0 {
		t.Fatalf("an agent's sweep changed %s: %s, reminded %d", p.Conflict, c.Status, c.Route.Reminded)
	}

	rep, err := as(t, tm.maya).WithClock(later).WithSweeper(rt.Operator).Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Actions) != 1 || rep.Actions[0].Kind != model.SweepFallback {
		t.Fatalf("the operator's sweep did %+v", rep.Actions)
	}
	tm.f.Read(t, func(tx store.Tx) (err error) { c, err = tx.Conflict(p.Conflict); return err })
	if r := c.Resolution; r == nil || r.ResolvedBy != model.FallbackAgent || r.Strategy != model.Dismiss {
		t.Fatalf("after the operator's sweep: %+v", c.Resolution)
	}
}

// At the screen each person keeps their own read mark and drafts through
// arbiter; nobody writes or removes another's, with SQL of their own.
func TestEachPersonKeepsOnlyTheirOwnReadMarkAndDrafts(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	p := tm.f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if _, err := tm.f.Svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.Vote,
		Resolution: model.MergeResolution{Rationale: "vote"}}); err != nil {
		t.Fatal(err)
	}
	lee := as(t, tm.lee)
	page, err := lee.InboxPage(ctx, rt.Lead1, 0, 10)
	if err != nil || len(page.Notices) == 0 || page.Unread == 0 {
		t.Fatalf("lead-1's inbox from lee's login: %+v (%v)", page, err)
	}
	if err := lee.InboxRead(ctx, rt.Lead1, page.Notices[0].ID); err != nil {
		t.Fatalf("lee marks lead-1's notices read: %v", err)
	}
	if err := lee.DraftSave(ctx, model.Draft{AgentID: rt.Lead1, ConflictID: p.Conflict, Form: model.DraftVote,
		Choice: p.A, Rationale: "half a thought"}); err != nil {
		t.Fatalf("lee keeps lead-1's draft: %v", err)
	}
	rt.WantError(t, lee.DraftSave(ctx, model.Draft{AgentID: rt.Lead2, ConflictID: p.Conflict, Form: model.DraftVote,
		Rationale: "in lead-2's name"}), model.CodeNotPermitted, model.OpAttune, false)
	actAs := `SELECT set_config('arbiter.agent', 'lead-1', true)`
	wantRefused(t, "a draft in another's name", raw(t, tm.lee, actAs,
		`INSERT INTO drafts (agent_id, conflict_id, form, rationale, saved_at) VALUES ('lead-2', '`+p.Conflict+`', 'vote', 'r', now())`),
		"in the name of lead-2")
	wantRefused(t, "another's read mark", raw(t, tm.lee, actAs,
		`INSERT INTO inbox_read (agent_id, notification_id, read_at) VALUES ('operator', 1, now())`), "in the name of operator")
	if err := as(t, tm.maya).DraftSave(ctx, model.Draft{AgentID: rt.Operator, ConflictID: p.Conflict, Form: model.DraftDecide,
		Rationale: "maya's"}); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, "removing another's draft", raw(t, tm.lee, actAs,
		`DELETE FROM drafts WHERE agent_id = 'operator'`), "in the name of operator")
	if ds, err := tm.f.Svc.Drafts(ctx, rt.Operator, p.Conflict); err != nil || len(ds) != 1 {
		t.Fatalf("maya's draft after lee tried to remove it: %+v (%v)", ds, err)
	}
}
