package mcpserver_test

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The two agents of these tests: ana records first and may decide (6);
// bob contradicts her and may only escalate (4).
const (
	ana = reviewtest.Senior2
	bob = reviewtest.Standard
)

// finding is a committed RECORD payload, contradicting target when given.
func finding(content string, score float64, contradicts string) map[string]any {
	p := map[string]any{
		"type": "finding", "content": content,
		"intent":     map[string]any{"purpose": "measure the checkout latency"},
		"confidence": map[string]any{"score": score, "reasoning": "measured"},
	}
	if contradicts != "" {
		p["relations"] = []any{map[string]any{"type": "contradicts", "target_id": contradicts, "description": "lab against production"}}
	}
	return p
}

// operator is the human operator deciding from another process: a store
// and rules of its own on the same file.
func operator(t *testing.T, path string) *review.Service {
	t.Helper()
	st, err := field.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return review.New(st)
}

type inbox struct {
	Notifications []model.Notification `json:"notifications"`
	NextSinceID   int64                `json:"next_since_id"`
}

// events lists the events of notifications about conflict id.
func events(ns []model.Notification, id string) []string {
	var out []string
	for _, n := range ns {
		if n.ConflictID != nil && *n.ConflictID == id {
			out = append(out, n.Event)
		}
	}
	return out
}

func TestTwoAgentsRecordAConflictEscalateItAndHearTheOperatorsDecision(t *testing.T) {
	for _, version := range []string{mcptest.Legacy, ""} {
		name := "protocol " + version
		if version == "" {
			name = "latest protocol"
		}
		t.Run(name, func(t *testing.T) {
			f := reviewtest.New(t, reviewtest.Policy())
			opts := mcptest.Options{ProtocolVersion: version}
			a, b := mcptest.Serve(t, f.Path, ana, opts), mcptest.Serve(t, f.Path, bob, opts)
			a.Subscribe(mcpserver.InboxURI)
			b.Subscribe(mcpserver.InboxURI)

			ra := mcptest.Result[model.RecordResult](a, "record", finding("p99 is 40 ms in the lab.", 0.9, ""))
			if ra.UnitID == "" || len(ra.Conflicts) != 0 {
				t.Fatalf("ana's record = %+v, want a unit and no conflict", ra)
			}
			rb := mcptest.Result[model.RecordResult](b, "record", finding("p99 is 90 ms in production.", 0.6, ra.UnitID))
			if len(rb.Conflicts) != 1 {
				t.Fatalf("bob's record opened %d conflicts, want 1", len(rb.Conflicts))
			}
			c := rb.Conflicts[0]
			if c.UnitA != ra.UnitID || c.UnitB != rb.UnitID || c.Status != model.StatusDetected {
				t.Fatalf("conflict = %+v, want %s against %s, detected", c, rb.UnitID, ra.UnitID)
			}
			// Both authors hear of it: ana from bob's server's write.
			a.WaitUpdated(mcpserver.InboxURI)
			b.WaitUpdated(mcpserver.InboxURI)
			var box inbox
			a.Read(mcpserver.InboxURI, &box)
			if got := events(box.Notifications, c.ID); !slices.Equal(got, []string{model.EventConflictDetected}) {
				t.Fatalf("ana's inbox about %s: %v, want conflict.detected", c.ID, got)
			}
			since := box.NextSinceID

			list := mcptest.Result[struct {
				Yours     int                     `json:"yours"`
				Conflicts []model.ConflictSummary `json:"conflicts"`
			}](a, "conflicts", map[string]any{})
			if list.Yours != 1 || len(list.Conflicts) != 1 || list.Conflicts[0].ID != c.ID {
				t.Fatalf("ana's conflicts = %+v, want hers: %s", list, c.ID)
			}

			d := mcptest.Result[model.ConflictDetail](b, "conflict", map[string]any{"conflict_id": c.ID})
			if d.A.Unit.Content != "p99 is 40 ms in the lab." || d.Conflict.Version != 1 || len(d.Picks) != 3 {
				t.Fatalf("bob's view of %s: %+v", c.ID, d)
			}
			b.Subscribe(mcpserver.ConflictURI(c.ID))

			esc := mcptest.Result[model.MergeResponse](b, "merge", map[string]any{"conflict_id": c.ID, "strategy": "human_escalation",
				"resolution": map[string]any{"rationale": "lab and production disagree"}, "expected_version": d.Conflict.Version})
			if esc.Status != model.StatusEscalated || esc.Conflict.Escalation == nil || esc.Conflict.Escalation.By != bob ||
				!slices.Contains(esc.SideEffects.NotifiedAgents, reviewtest.Operator) {
				t.Fatalf("escalation = %+v, want escalated by bob, the operator notified", esc)
			}
			a.WaitUpdated(mcpserver.InboxURI)
			b.WaitUpdated(mcpserver.InboxURI)
			b.WaitUpdated(mcpserver.ConflictURI(c.ID))

			// The operator decides in another process: confidence, A wins.
			winner := c.UnitA
			decided, err := operator(t, f.Path).Merge(context.Background(), reviewtest.Operator, model.MergeRequest{
				ConflictID: c.ID, Strategy: model.ConfidenceWeighted, ExpectedVersion: esc.Conflict.Version,
				Resolution: model.MergeResolution{WinnerID: &winner, Rationale: "the lab run controls for warm caches"}})
			if err != nil {
				t.Fatal(err)
			}
			a.WaitUpdated(mcpserver.InboxURI)
			b.WaitUpdated(mcpserver.InboxURI)
			b.WaitUpdated(mcpserver.ConflictURI(c.ID))

			got := mcptest.Result[inbox](a, "inbox", map[string]any{"since_id": since})
			if ev := events(got.Notifications, c.ID); !slices.Equal(ev, []string{model.EventConflictEscalated, model.EventConflictResolved}) {
				t.Fatalf("ana's inbox after #%d about %s: %v, want the escalation then the resolution", since, c.ID, ev)
			}
			var now model.ConflictDetail
			b.Read(mcpserver.ConflictURI(c.ID), &now)
			if r := now.Conflict.Resolution; now.Conflict.Status != model.StatusResolved || r == nil || r.WinnerID == nil ||
				*r.WinnerID != c.UnitA || r.ResolvedBy != reviewtest.Operator || now.Conflict.Version != decided.Conflict.Version {
				t.Fatalf("bob reads %s as %+v, want resolved by the operator for %s", c.ID, now.Conflict, c.UnitA)
			}
			if now.B.Unit.Status != model.UnitSuperseded {
				t.Errorf("bob's unit is %s, want superseded", now.B.Unit.Status)
			}
		})
	}
}

func TestOnlyWhatChangedIsAnnounced(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	p := f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: ana}, reviewtest.Side{By: bob})
	ctx := context.Background()
	if _, err := f.Svc.Merge(ctx, reviewtest.Senior1, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.Vote,
		Resolution: model.MergeResolution{Rationale: "let the leads decide"}}); err != nil {
		t.Fatal(err)
	}
	a := mcptest.Serve(t, f.Path, ana, mcptest.Options{})
	a.Subscribe(mcpserver.InboxURI)
	a.Subscribe(mcpserver.ConflictURI(p.Conflict))
	before := f.Detail(t, p.Conflict).Conflict.Version

	// A unit nobody contradicts changes neither ana's inbox nor the
	// conflict; a ballot changes the conflict (not its version) and
	// notifies nobody.
	score := 0.5
	if _, err := f.Svc.Record(ctx, reviewtest.Scout, model.RecordRequest{Type: model.TypeObservation, Content: "unrelated",
		Intent: model.Intent{Purpose: "note"}, Confidence: model.Confidence{Score: &score, Reasoning: "seen"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Svc.Vote(ctx, reviewtest.Lead1, model.VoteRequest{ConflictID: p.Conflict, Choice: "A", Rationale: "the lab"}); err != nil {
		t.Fatal(err)
	}
	a.WaitUpdated(mcpserver.ConflictURI(p.Conflict))
	if n := a.Unwaited(mcpserver.InboxURI); n != 0 {
		t.Errorf("%d inbox updates for writes that sent ana nothing", n)
	}
	if v := f.Detail(t, p.Conflict).Conflict.Version; v != before {
		t.Fatalf("a ballot moved the version from %d to %d; this test wants one that does not", before, v)
	}
	var d model.ConflictDetail
	a.Read(mcpserver.ConflictURI(p.Conflict), &d)
	if d.Tally.ForA != 1 {
		t.Errorf("after the update the resource tallies %+v, want one ballot for A", d.Tally)
	}
}

func TestConflictsListTheCallersFirstThenTheQueue(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	ctx := context.Background()
	// Others' conflicts: one escalated (in the queue), one only detected.
	queued := f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: reviewtest.Lead1}, reviewtest.Side{By: reviewtest.Lead2})
	f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: reviewtest.Lead1}, reviewtest.Side{By: reviewtest.Lead3})
	if _, err := f.Svc.Merge(ctx, reviewtest.Lead2, model.MergeRequest{ConflictID: queued.Conflict, Strategy: model.HumanEscalation,
		Resolution: model.MergeResolution{Rationale: "for a person"}}); err != nil {
		t.Fatal(err)
	}
	// Ana's, opened later, detected and resolved.
	mine := f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: ana}, reviewtest.Side{By: bob})
	done := f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: bob, Score: 0.2}, reviewtest.Side{By: ana, Score: 0.9})
	if _, err := f.Svc.Merge(ctx, reviewtest.Senior1, model.MergeRequest{ConflictID: done.Conflict, Strategy: model.LastWriteWins,
		Resolution: model.MergeResolution{Rationale: "later"}}); err != nil {
		t.Fatal(err)
	}
	a := mcptest.Serve(t, f.Path, ana, mcptest.Options{})

	type list struct {
		Yours     int                     `json:"yours"`
		Conflicts []model.ConflictSummary `json:"conflicts"`
		More      bool                    `json:"more"`
	}
	ids := func(l list) []string {
		var out []string
		for _, c := range l.Conflicts {
			out = append(out, c.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		args  map[string]any
		yours int
		want  []string
		more  bool
	}{
		{"by default her open conflicts, then the review queue", map[string]any{}, 1, []string{mine.Conflict, queued.Conflict}, false},
		{"resolved ones", map[string]any{"status": []string{"resolved"}}, 1, []string{done.Conflict}, false},
		{"all, hers first", map[string]any{"status": []string{"all"}}, 2,
			[]string{mine.Conflict, done.Conflict, queued.Conflict, "conflict-002"}, false},
		{"cut by the limit", map[string]any{"status": []string{"all"}, "limit": 3}, 2,
			[]string{mine.Conflict, done.Conflict, queued.Conflict}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mcptest.Result[list](a, "conflicts", tc.args)
			if got.Yours != tc.yours || !slices.Equal(ids(got), tc.want) || got.More != tc.more {
				t.Errorf("conflicts(%v) = yours %d, %v, more %v; want %d, %v, %v", tc.args, got.Yours, ids(got), got.More,
					tc.yours, tc.want, tc.more)
			}
		})
	}
	e := mcptest.Refusal(a, "conflicts", map[string]any{"limit": -1})
	if e.Code != model.CodeInvalidRequest {
		t.Errorf("a negative limit: %+v, want INVALID_REQUEST", e)
	}
}

func TestInboxPagesBySinceIDAndSinceEpoch(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	var pairs []reviewtest.Pair
	for range 3 {
		pairs = append(pairs, f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: ana}, reviewtest.Side{By: bob}))
	}
	a := mcptest.Serve(t, f.Path, ana, mcptest.Options{})
	all := mcptest.Result[inbox](a, "inbox", map[string]any{})
	if len(all.Notifications) != 3 {
		t.Fatalf("ana has %d notifications, want 3 (one per conflict)", len(all.Notifications))
	}
	first := mcptest.Result[struct {
		inbox
		More bool `json:"more"`
	}](a, "inbox", map[string]any{"limit": 2})
	if len(first.Notifications) != 2 || !first.More || first.NextSinceID != all.Notifications[1].ID {
		t.Fatalf("the first page of 2: %+v", first)
	}
	rest := mcptest.Result[inbox](a, "inbox", map[string]any{"since_id": first.NextSinceID})
	if len(rest.Notifications) != 1 || *rest.Notifications[0].ConflictID != pairs[2].Conflict {
		t.Fatalf("after #%d: %+v, want the third conflict's", first.NextSinceID, rest.Notifications)
	}
	byEpoch := mcptest.Result[inbox](a, "inbox", map[string]any{"since_epoch": all.Notifications[0].Epoch})
	if len(byEpoch.Notifications) != 2 || byEpoch.Notifications[0].ID != all.Notifications[1].ID {
		t.Fatalf("after epoch %d: %+v, want the last two", all.Notifications[0].Epoch, byEpoch.Notifications)
	}
}

func TestUnitShowsOneUnitWithItsConflicts(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	p := f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: ana, Supporters: 2}, reviewtest.Side{By: bob})
	a := mcptest.Serve(t, f.Path, bob, mcptest.Options{})
	d := mcptest.Result[model.UnitDetail](a, "unit", map[string]any{"unit_id": p.A})
	if d.Unit.ID != p.A || d.Agent == nil || d.Agent.ID != ana || len(d.Incoming) != 3 || len(d.Conflicts) != 1 {
		t.Fatalf("unit %s = %+v, want ana's with 2 supporters and 1 contradiction in, 1 conflict", p.A, d)
	}
	e := mcptest.Refusal(a, "unit", map[string]any{"unit_id": "mem-999"})
	if e.Code != model.CodeUnitNotFound || !e.Recoverable {
		t.Errorf("an unknown unit: %+v, want UNIT_NOT_FOUND, recoverable", e)
	}
}

func TestVoteCastsAndClosesWithTheFieldsQuorum(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	p := f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: ana}, reviewtest.Side{By: bob})
	leads := []*mcptest.Client{
		mcptest.Serve(t, f.Path, reviewtest.Lead1, mcptest.Options{}),
		mcptest.Serve(t, f.Path, reviewtest.Lead2, mcptest.Options{}),
		mcptest.Serve(t, f.Path, reviewtest.Lead3, mcptest.Options{}),
	}
	open := mcptest.Result[model.MergeResponse](leads[0], "merge", map[string]any{"conflict_id": p.Conflict, "strategy": "vote",
		"resolution": map[string]any{"rationale": "the leads decide"}})
	if open.Status != model.StatusPendingVote {
		t.Fatalf("opening the vote: %+v", open)
	}
	for i, choice := range []string{"A", p.B, "A"} {
		v := mcptest.Result[model.VoteResponse](leads[i], "vote", map[string]any{"conflict_id": p.Conflict, "choice": choice, "rationale": "as I see it"})
		if closes := i == 2; v.Closed != closes || v.Tally.Total() != i+1 {
			t.Fatalf("ballot %d: %+v", i+1, v)
		}
		if i == 2 && (v.Status != model.StatusResolved || *v.Conflict.Resolution.WinnerID != p.A || !slices.Equal(v.SideEffects.SupersededUnits, []string{p.B})) {
			t.Fatalf("the closing ballot: %+v, want %s to prevail and %s superseded", v, p.A, p.B)
		}
	}
	e := mcptest.Refusal(leads[0], "vote", map[string]any{"conflict_id": p.Conflict, "choice": "B", "rationale": "late"})
	if e.Code != model.CodeInvalidTransition || e.Operation != model.OpVote {
		t.Errorf("a ballot after the close: %+v, want INVALID_TRANSITION of VOTE", e)
	}
}

func TestNewRefusesAnAgentTheFieldDoesNotKnow(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	_, err := mcpserver.New(context.Background(), f.Svc, "nobody", mcpserver.Options{})
	reviewtest.WantError(t, err, model.CodeAgentNotRegistered, model.OpAttune, true)
}

func TestASessionLeavesNothingRunningOnceTheClientHangsUp(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	p := f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: ana}, reviewtest.Side{By: bob})
	baseline := runtime.NumGoroutine()
	for _, version := range []string{mcptest.Legacy, ""} {
		t.Run("protocol "+version, func(t *testing.T) {
			c := mcptest.Serve(t, f.Path, ana, mcptest.Options{ProtocolVersion: version})
			c.Subscribe(mcpserver.InboxURI)
			c.Subscribe(mcpserver.ConflictURI(p.Conflict))
			mcptest.Result[model.ConflictDetail](c, mcpserver.ToolConflict, map[string]any{"conflict_id": p.Conflict})
		}) // its cleanup closes the client and waits for Run to return
	}
	if !testwait.Until(mcptest.Wait, func() bool { return runtime.NumGoroutine() <= baseline }) {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines left running after the sessions ended (%d before):\n%s",
			runtime.NumGoroutine(), baseline, buf[:runtime.Stack(buf, true)])
	}
}

func TestRunReturnsWhenItsContextEnds(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	srv, err := mcpserver.New(context.Background(), f.Svc, ana, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	serverT, clientT := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Run(ctx, serverT) }()
	c := mcptest.Connect(t, clientT, mcptest.Options{})
	c.Subscribe(mcpserver.InboxURI)
	cancel() // as an interrupt does
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Run = %v, want nil after its context ended", err)
		}
	case <-time.After(mcptest.Wait):
		t.Fatal("Run did not return after its context ended")
	}
}
