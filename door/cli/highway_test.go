package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"
)

// highwayField is fieldWithConflict with escalations of factual conflicts
// routed to priya (a person of authority 6) who decides them, and a
// policy deadline of 4h then dismiss.
func highwayField(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "field.db")
	out := ok(t, "init", "--db", db, "--quorum", "2", "--recusal=false", "--owner", "factual=priya",
		"--escalation-timeout", "4h", "--escalation-fallback", "dismiss", "--owners-decide")
	for _, want := range []string{"owners factual=priya (who decide)", "deadline 4h then dismiss"} {
		if !strings.Contains(out, want) {
			t.Errorf("init output lacks %q:\n%s", want, out)
		}
	}
	ok(t, "--db", db, "register", "--id", "ana", "--role", "analyst", "--authority", "6")
	ok(t, "--db", db, "register", "--id", "bob", "--role", "analyst")
	ok(t, "--db", db, "register", "--id", "priya", "--role", "lead", "--kind", "human", "--authority", "6")
	ok(t, "--db", db, "register", "--id", "op", "--role", "operator", "--kind", "human", "--authority", "10")
	record(t, db, "ana", recordPayload("p99 is 40 ms", 0.9, ""))
	record(t, db, "bob", recordPayload("p99 is 90 ms", 0.6, "mem-001"))
	return db
}

func TestAnEscalationWithAProposalIsRoutedShownAndApproved(t *testing.T) {
	db := highwayField(t)
	out := ok(t, "--db", db, "--as", "bob", "merge", "conflict-001", "--strategy", "human_escalation",
		"--rationale", "lab and prod disagree", "--propose", "A")
	for _, want := range []string{"escalated conflict-001 to priya", "then dismiss", "proposal    keep A (mem-001)"} {
		if !strings.Contains(out, want) {
			t.Errorf("merge output lacks %q:\n%s", want, out)
		}
	}
	show := ok(t, "--db", db, "show", "conflict-001")
	for _, want := range []string{"routed     to priya, ", "proposal   bob proposes: keep A (mem-001)", "arbiter approve conflict-001"} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	list := ok(t, "--db", db, "list")
	if !strings.Contains(list, "OWNER") || !strings.Contains(list, "priya") || !strings.Contains(list, "3h 59m") {
		t.Errorf("the queue does not show the owner and the time left:\n%s", list)
	}
	agents := ok(t, "--db", db, "agents")
	if !strings.Contains(agents, "owner of factual escalations (decides them)") {
		t.Errorf("agents does not say priya owns factual escalations:\n%s", agents)
	}

	// bob may not answer it; the refusal names who may.
	r := arbiter(t, "--db", db, "--as", "ana", "approve", "conflict-001", "--rationale", "fine", "--json")
	wantExit(t, r, 3)
	if e := protocolError(t, r.stdout); e.Code != model.CodeNotPermitted || !strings.Contains(e.Message, "priya") {
		t.Errorf("refusal %+v", e)
	}
	var resp model.MergeResponse
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "--as", "priya", "approve", "conflict-001",
		"--rationale", "the lab run is controlled", "--json")), &resp); err != nil {
		t.Fatal(err)
	}
	res := resp.Conflict.Resolution
	if resp.Status != model.StatusResolved || res.Strategy != model.ConfidenceWeighted || *res.WinnerID != "mem-001" ||
		res.ResolvedBy != "priya" || !strings.Contains(res.Rationale, "Approves bob's proposal") {
		t.Fatalf("approved: %+v", res)
	}
}

func TestApproveModifiesAProposalAndGoesOfflineLikeAnyDecision(t *testing.T) {
	db := highwayField(t)
	ok(t, "--db", db, "--as", "bob", "merge", "conflict-001", "--strategy", "human_escalation",
		"--rationale", "lab and prod disagree", "--propose-synthesis", "Both: lab 40 ms, prod 90 ms.")
	decisions := filepath.Join(t.TempDir(), "decisions.jsonl")
	out := ok(t, "--db", db, "--as", "op", "--decisions-out", decisions, "approve", "conflict-001",
		"--rationale", "say which is which", "--synthesis", "Lab 40 ms; production 90 ms under load.")
	if !strings.Contains(out, "recorded in "+decisions) {
		t.Fatalf("approve offline:\n%s", out)
	}
	if d := showJSON(t, db, "conflict-001"); d.Conflict.Status != model.StatusEscalated {
		t.Fatalf("an offline approval changed the field: %s", d.Conflict.Status)
	}
	ok(t, "--db", db, "apply", decisions)
	d := showJSON(t, db, "conflict-001")
	if r := d.Conflict.Resolution; r == nil || r.Strategy != model.Synthesis || !strings.Contains(r.Rationale, "Modifies bob's proposal") {
		t.Fatalf("applied: %+v", r)
	}
}

func TestRoutingFlagsAreCheckedBeforeTheFieldIsOpened(t *testing.T) {
	db := highwayField(t)
	for _, args := range [][]string{
		{"--strategy", "last_write_wins", "--deadline", "1h"},
		{"--strategy", "vote", "--to", "priya"},
		{"--strategy", "human_escalation", "--deadline", "soon"},
		{"--strategy", "human_escalation", "--fallback", "coin"},
		{"--strategy", "dismiss", "--propose", "A"},
		{"--strategy", "rework"},
	} {
		r := arbiter(t, append([]string{"--db", db, "--as", "op", "merge", "conflict-001", "--rationale", "x"}, args...)...)
		wantExit(t, r, 2)
		if args[1] == "rework" && !strings.Contains(r.stderr, "arbiter rework") {
			t.Errorf("merge --strategy rework does not point to arbiter rework: %s", r.stderr)
		}
	}
	r := arbiter(t, "--db", db, "--as", "bob", "merge", "conflict-001", "--strategy", "human_escalation",
		"--rationale", "x", "--to", "nobody", "--json")
	wantExit(t, r, 3)
	if e := protocolError(t, r.stdout); e.Code != model.CodeAgentNotRegistered {
		t.Errorf("--to nobody: %+v", e)
	}
	for _, args := range [][]string{
		{"--owner", "legal=priya"},
		{"--owner", "factual"},
		{"--escalation-fallback", "dismiss"},
		{"--escalation-timeout", "-1h"},
	} {
		wantExit(t, arbiter(t, append([]string{"init", "--db", filepath.Join(t.TempDir(), "x.db")}, args...)...), 2)
	}
}

func TestReworkSendsBackAndARevisionSettlesIt(t *testing.T) {
	db := highwayField(t)
	ok(t, "--db", db, "--as", "bob", "merge", "conflict-001", "--strategy", "human_escalation", "--rationale", "look")

	// Not on a read-only field, nor to a decisions file.
	r := arbiter(t, "--db", db, "--as", "op", "--read-only", "rework", "conflict-001", "--rationale", "redo", "--json")
	wantExit(t, r, 3)
	if e := protocolError(t, r.stdout); e.Code != model.CodeReadOnly {
		t.Errorf("read-only: %+v", e)
	}
	r = arbiter(t, "--db", db, "--as", "op", "--decisions-out", filepath.Join(t.TempDir(), "d.jsonl"),
		"rework", "conflict-001", "--rationale", "redo", "--json")
	wantExit(t, r, 3)
	if e := protocolError(t, r.stdout); e.Code != model.CodeUnsupportedOperation || !strings.Contains(e.Message, "decisions file") {
		t.Errorf("offline: %+v", e)
	}
	wantExit(t, arbiter(t, "--db", db, "--as", "op", "rework", "conflict-001", "--rationale", "redo", "--fallback", "rework"), 2)

	out := ok(t, "--db", db, "--as", "op", "rework", "conflict-001", "--rationale", "Measure both under the same load.",
		"--deadline", "2d", "--fallback", "last_write_wins")
	if !strings.Contains(out, "sent conflict-001 back for rework (now resolving") || !strings.Contains(out, "then last_write_wins") {
		t.Fatalf("rework:\n%s", out)
	}
	inbox := ok(t, "--db", db, "--as", "bob", "inbox")
	if !strings.Contains(inbox, "Measure both under the same load.") {
		t.Errorf("bob's inbox lacks the directive:\n%s", inbox)
	}
	revision := `{"type": "finding", "content": "p99 is 60 ms under the lab's load.",
		"intent": {"purpose": "revise after rework"},
		"confidence": {"score": 0.8, "reasoning": "same load as the lab"},
		"relations": [{"type": "supersedes", "target_id": "mem-002"}]}`
	record(t, db, "bob", revision)
	d := showJSON(t, db, "conflict-001")
	if r := d.Conflict.Resolution; d.Conflict.Status != model.StatusResolved || r.Strategy != model.Rework || r.ResolvedBy != "bob" {
		t.Fatalf("after the revision: %s %+v", d.Conflict.Status, r)
	}
}

// escalateAgo escalates conflict as bob did ago ago, routed as r: on a
// clock set back that far, so that its deadline may have passed now.
func escalateAgo(t *testing.T, db string, ago time.Duration, conflict string, r model.Routing) {
	t.Helper()
	ctx := context.Background()
	st, err := field.Open(ctx, db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := review.New(st).WithClock(func() time.Time { return time.Now().Add(-ago) })
	if _, err := svc.Merge(ctx, "bob", model.MergeRequest{ConflictID: conflict, Strategy: model.HumanEscalation,
		Resolution: model.MergeResolution{Rationale: "a person must look"}, Routing: &r}); err != nil {
		t.Fatal(err)
	}
}

func TestSweepDoesWhatIsDueOnceAndWritingCommandsSweepFirst(t *testing.T) {
	db := highwayField(t)
	record(t, db, "ana", recordPayload("p50 is 12 ms", 0.9, ""))
	record(t, db, "bob", recordPayload("p50 is 30 ms", 0.6, "mem-003"))
	record(t, db, "ana", recordPayload("p90 is 20 ms", 0.9, ""))
	record(t, db, "bob", recordPayload("p90 is 50 ms", 0.6, "mem-005"))
	escalateAgo(t, db, 5*time.Hour, "conflict-001", model.Routing{Deadline: "4h", Fallback: "dismiss"})
	escalateAgo(t, db, 5*time.Hour, "conflict-002", model.Routing{To: "op", Deadline: "4h", Fallback: "escalate:priya"})

	wantExit(t, arbiter(t, "--db", db, "--read-only", "sweep"), 3)
	var rep model.SweepReport
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "sweep", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Actions) != 2 || rep.Actions[0].Kind != model.SweepFallback || rep.Actions[1].Kind != model.SweepFallback {
		t.Fatalf("sweep: %+v", rep)
	}
	if a := rep.Actions[0]; a.ConflictID != "conflict-001" || a.Status != model.StatusResolved || a.Strategy != model.Dismiss {
		t.Errorf("first action %+v", a)
	}
	if a := rep.Actions[1]; a.ConflictID != "conflict-002" || a.Status != model.StatusEscalated || a.Owner != "priya" {
		t.Errorf("second action %+v", a)
	}
	if out := ok(t, "--db", db, "sweep"); !strings.HasPrefix(out, "nothing due") {
		t.Errorf("a second sweep: %s", out)
	}

	// A writing command sweeps first: the fallback that is due is not
	// decided over.
	escalateAgo(t, db, 5*time.Hour, "conflict-003", model.Routing{Deadline: "4h", Fallback: "last_write_wins"})
	r := arbiter(t, "--db", db, "--as", "op", "merge", "conflict-003", "--strategy", "confidence_weighted",
		"--winner", "A", "--rationale", "too late")
	wantExit(t, r, 3)
	if !strings.Contains(r.stderr, "resolved by fallback with last_write_wins") && !strings.Contains(r.stderr, "already resolved") {
		t.Errorf("stderr: %s", r.stderr)
	}
	if d := showJSON(t, db, "conflict-003"); d.Conflict.Resolution == nil || d.Conflict.Resolution.ResolvedBy != model.FallbackAgent {
		t.Fatalf("conflict-003: %+v", d.Conflict.Resolution)
	}
}

func TestPolicyShowsAndChangesTheGovernance(t *testing.T) {
	db := highwayField(t)
	out := ok(t, "--db", db, "policy")
	for _, want := range []string{"owners       factual=priya", "owners decide", "wait 4h, then dismiss"} {
		if !strings.Contains(out, want) {
			t.Errorf("policy lacks %q:\n%s", want, out)
		}
	}
	r := arbiter(t, "--db", db, "--as", "priya", "policy", "set", "--owner", "strategic=priya")
	wantExit(t, r, 3)
	out = ok(t, "--db", db, "--as", "op", "policy", "set", "--owner", "factual=", "--owner", "strategic=kenji",
		"--escalation-timeout", "2d", "--escalation-fallback", "rework", "--owners-decide=false", "--vote-min-ballots", "2")
	if !strings.Contains(out, "owner of strategic conflicts: kenji (was none)") || !strings.Contains(out, "escalation timeout: 2d (was 4h)") {
		t.Errorf("policy set:\n%s", out)
	}
	var p policyJSON
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "policy", "--json")), &p); err != nil {
		t.Fatal(err)
	}
	if p.Owners[model.ConflictFactual] != "" || p.Owners[model.ConflictStrategic] != "kenji" || p.EscalationTimeout != "2d" ||
		p.EscalationFallback != model.FallbackRework || p.OwnersDecide || p.VoteMinBallots != 2 {
		t.Errorf("policy --json: %+v", p)
	}
	if inbox := ok(t, "--db", db, "--as", "op", "inbox"); !strings.Contains(inbox, "policy.changed") {
		t.Errorf("the operator was not told:\n%s", inbox)
	}
	wantExit(t, arbiter(t, "--db", db, "--as", "op", "policy", "set", "--escalation-timeout", "0"), 2)
}
