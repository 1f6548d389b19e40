package review_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
)

// detecting is a field whose policy detects at level.
func detecting(t *testing.T, level model.Sensitivity) *rt.Field {
	t.Helper()
	p := rt.Policy()
	p.DetectionSensitivity = level
	return rt.New(t, p)
}

// say records content as by, committed, and returns RECORD's result.
func say(t *testing.T, f *rt.Field, by, content, purpose string, rels ...model.Relation) model.RecordResult {
	t.Helper()
	score := 0.7
	res, err := f.Svc.Record(context.Background(), by, model.RecordRequest{Type: model.TypeFinding, Content: content,
		Intent: model.Intent{Purpose: purpose}, Confidence: model.Confidence{Score: &score, Reasoning: "measured"},
		Relations: rels})
	if err != nil {
		t.Fatalf("%s recording %q: %v", by, content, err)
	}
	return res
}

const (
	p99at40 = "**Load test, staging** (k6, 10 min):\n- checkout p99: 40 ms at 2k req/s\n- error rate 0.1%\n\nNo saturation seen."
	p99at90 = "Re-ran the checkout load test at 2k req/s; p99 came out at **90 ms** and CPU hit 85%."
)

// A unit that states another value of the same quantity opens a conflict
// nobody declared: an ordinary conflict, detected_by logical, its type
// guessed, with why — the signal, the two phrases, a score — and both
// authors told.
func TestRecordDetectsAContradictionNobodyDeclared(t *testing.T) {
	f := detecting(t, model.SensitivityMedium)
	a := say(t, f, senior2, p99at40, "Measure checkout latency")
	if len(a.Conflicts) != 0 {
		t.Fatalf("the first unit opened %v", a.Conflicts)
	}
	b := say(t, f, standard, p99at90, "Verify the checkout latency baseline")
	if len(b.Conflicts) != 1 {
		t.Fatalf("RECORD opened %d conflicts, want the one detected: %+v", len(b.Conflicts), b.Conflicts)
	}
	c := b.Conflicts[0]
	if c.UnitA != a.UnitID || c.UnitB != b.UnitID || c.DetectedBy != model.DetectedLogical || c.Type != model.ConflictFactual ||
		c.Status != model.StatusDetected || c.Epoch != b.Epoch {
		t.Fatalf("detected conflict %+v", c)
	}
	d := c.Detection
	if d == nil || d.Signal != model.SignalQuantity || d.Sensitivity != model.SensitivityMedium || d.Score < 0.6 || d.Score > 1 ||
		len(d.Values) != 2 || d.Values[0] != "40 ms" || d.Values[1] != "90 ms" {
		t.Fatalf("its detection %+v", d)
	}
	if got := p99at40[d.PhraseA.Start:d.PhraseA.End]; got != d.PhraseA.Text || got == "" {
		t.Errorf("phrase A %+v is not the text at its offsets (%q)", d.PhraseA, got)
	}
	if got := p99at90[d.PhraseB.Start:d.PhraseB.End]; got != d.PhraseB.Text || got == "" {
		t.Errorf("phrase B %+v is not the text at its offsets (%q)", d.PhraseB, got)
	}
	wantUnitStatus(t, f, a.UnitID, model.UnitContested)
	wantUnitStatus(t, f, b.UnitID, model.UnitContested)
	detail := f.Detail(t, c.ID)
	if detail.Conflict.Detection == nil || detail.Conflict.Detection.PhraseB != d.PhraseB {
		t.Errorf("the conflict read back lost its detection: %+v", detail.Conflict.Detection)
	}
	var told []string
	for _, n := range detail.Notifications {
		if n.Event == model.EventConflictDetected {
			told = append(told, n.AgentID)
		}
	}
	wantStrings(t, "told of the detected conflict", sorted(told...), sorted(senior2, standard))
	if len(detail.Events) != 1 || detail.Events[0].Operation != model.OpDetect || detail.Events[0].AgentID != standard {
		t.Errorf("events %+v, want one DETECT by the recorder", detail.Events)
	}
}

// Each signal opens its conflict; agreeing units, units of another
// quantity and a consistent change open none.
func TestRecordDetectsEachSignalAndNotAgreements(t *testing.T) {
	for _, tc := range []struct {
		name, a, b, purpose string
		signal              model.DetectSignal // "" for none
		by                  model.DetectedBy
	}{
		{"negation", "GDPR export requests are processed within 30 days.",
			"GDPR export requests are not processed within 30 days; the backlog is at 45 days.", "Privacy compliance",
			"", ""},
		{"opposites", "The survey says developers find our API docs hard to use.",
			"The survey says developers find our API docs easy to use; the complaints are about the SDK.", "Developer experience survey",
			model.SignalOpposites, model.DetectedSemantic},
		{"temporal", "The p99 latency of the search API is 250 ms.",
			"The p99 latency of the search API was 250 ms, now 120 ms after the cache change.", "Search latency",
			model.SignalTemporal, model.DetectedSemantic},
		{"same value in other words", "Checkout p99 latency is 40 ms.", "Checkout p99 latency measured at 0.04 s.", "Checkout latency", "", ""},
		{"another quantity", "The EU market grows at 23% CAGR.", "The US market grows at 9% CAGR.", "Market sizing", "", ""},
		{"a change both agree on", "We use GitHub Actions for CI on the backend repos.",
			"We switched from Jenkins to GitHub Actions for the backend repos last sprint.", "CI inventory", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := detecting(t, model.SensitivityMedium)
			say(t, f, senior2, tc.a, tc.purpose)
			b := say(t, f, standard, tc.b, tc.purpose)
			switch {
			case tc.signal == "" && tc.name != "negation" && len(b.Conflicts) != 0:
				t.Fatalf("agreeing units opened %+v", b.Conflicts[0].Detection)
			case tc.signal != "" && (len(b.Conflicts) != 1 || b.Conflicts[0].Detection.Signal != tc.signal || b.Conflicts[0].DetectedBy != tc.by):
				t.Fatalf("want one conflict by %s (%s), got %+v", tc.signal, tc.by, b.Conflicts)
			case tc.name == "negation" && (len(b.Conflicts) != 1 || b.Conflicts[0].DetectedBy != model.DetectedSemantic):
				t.Fatalf("a negation: want one semantic conflict, got %+v", b.Conflicts)
			}
		})
	}
}

// At off, nothing is detected; a declared contradiction is not also
// detected; a revision is not detected against what it supersedes; a
// draft is not compared.
func TestRecordDetectsOnlyWhatNobodySaid(t *testing.T) {
	off := detecting(t, model.SensitivityOff)
	say(t, off, senior2, p99at40, "Measure checkout latency")
	if b := say(t, off, standard, p99at90, "Measure checkout latency"); len(b.Conflicts) != 0 {
		t.Fatalf("detection off opened %+v", b.Conflicts)
	}

	f := detecting(t, model.SensitivityHigh)
	a := say(t, f, senior2, p99at40, "Measure checkout latency")
	b := say(t, f, standard, p99at90, "Measure checkout latency",
		model.Relation{Type: model.RelContradicts, TargetID: a.UnitID, Description: "p99 differs"})
	if len(b.Conflicts) != 1 || b.Conflicts[0].DetectedBy != model.DetectedExplicit || b.Conflicts[0].Detection != nil {
		t.Fatalf("a declared contradiction: %+v, want it alone, explicit", b.Conflicts)
	}
	rev := say(t, f, senior2, "Re-measured: checkout p99 is 90 ms at 2k req/s, not 40 ms.", "Measure checkout latency",
		model.Relation{Type: model.RelSupersedes, TargetID: a.UnitID})
	for _, c := range rev.Conflicts {
		if c.UnitA == a.UnitID {
			t.Fatalf("a revision was detected against the unit it supersedes: %+v", c)
		}
	}
	score := 0.5
	draft, err := f.Svc.Record(context.Background(), standard, model.RecordRequest{Mode: model.ModeDraft, Type: model.TypeFinding,
		Content: "Checkout p99 came out at 300 ms at 2k req/s.", Intent: model.Intent{Purpose: "Measure checkout latency"},
		Confidence: model.Confidence{Score: &score}})
	if err != nil || len(draft.Conflicts) != 0 {
		t.Fatalf("a draft: %+v (%v), want no conflict", draft.Conflicts, err)
	}
}

// Dismissing a detected conflict says its units do not contradict each
// other: the pair is kept, a scan opens nothing on it, and reopening the
// conflict forgets it again.
func TestDismissedPairIsNeverDetectedAgain(t *testing.T) {
	f := detecting(t, model.SensitivityMedium)
	a := say(t, f, senior2, p99at40, "Measure checkout latency")
	b := say(t, f, standard, p99at90, "Measure checkout latency")
	if len(b.Conflicts) != 1 {
		t.Fatalf("want one detected conflict, got %d", len(b.Conflicts))
	}
	id := b.Conflicts[0].ID
	merge(t, f, senior1, req(id, model.Dismiss, "", "different load profiles: not a contradiction"))
	dismissed := func() bool {
		t.Helper()
		var ok bool
		f.Read(t, func(tx store.Tx) (err error) { ok, err = tx.DetectDismissed(b.UnitID, a.UnitID); return err })
		return ok
	}
	if !dismissed() {
		t.Fatal("dismissing the detected conflict did not keep the pair")
	}
	res, err := f.Svc.DetectScan(context.Background(), operator, model.DetectRequest{Mode: model.DetectScan}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Scan == nil || res.Scan.Found != 0 || len(res.Conflicts) != 0 || res.Scan.Done != 2 {
		t.Fatalf("a scan after the dismissal: %+v, %d conflicts; want 2 units looked at, none opened", res.Scan, len(res.Conflicts))
	}
	if _, err := f.Svc.Reopen(context.Background(), operator, model.ReopenRequest{ConflictID: id, Rationale: "it is one after all"}); err != nil {
		t.Fatal(err)
	}
	if dismissed() {
		t.Fatal("reopening the dismissed conflict kept the pair as not a contradiction")
	}
}

// A scan finds what RECORD did not look for (a field whose detection was
// off), opens it, and a second scan opens nothing new; its place is kept.
func TestScanOpensWhatRecordDidNotAndIsIdempotent(t *testing.T) {
	f := detecting(t, model.SensitivityOff)
	a := say(t, f, senior2, p99at40, "Measure checkout latency")
	say(t, f, rt.Scout, "The staging database is encrypted at rest.", "Security review")
	b := say(t, f, standard, p99at90, "Verify the checkout latency baseline")
	say(t, f, senior1, "The staging database is not encrypted at rest; the volume was created before the policy.", "Security review")
	if _, err := f.Svc.DetectScan(context.Background(), operator, model.DetectRequest{Mode: model.DetectScan}, nil); err == nil {
		t.Fatal("a scan at off was not refused")
	} else {
		rt.WantError(t, err, model.CodeUnsupportedOperation, model.OpDetect, false)
	}
	setSensitivity(t, f, model.SensitivityMedium)
	var seen []model.ScanState
	res, err := f.Svc.DetectScan(context.Background(), operator, model.DetectRequest{Mode: model.DetectScan},
		func(s model.ScanState) { seen = append(seen, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conflicts) != 2 || res.Scan.Found != 2 || res.Scan.Done != 4 || !res.Scan.Finished() || len(seen) == 0 {
		t.Fatalf("the scan opened %d conflicts; state %+v after %d reports", len(res.Conflicts), res.Scan, len(seen))
	}
	if c := res.Conflicts[0]; c.UnitA != a.UnitID || c.UnitB != b.UnitID || c.Detection == nil || c.DetectedBy != model.DetectedLogical {
		t.Errorf("first conflict %+v", c)
	}
	again, err := f.Svc.DetectScan(context.Background(), operator, model.DetectRequest{Mode: model.DetectScan}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Conflicts) != 0 || again.Scan.Found != 0 || again.Scan.Done != 4 {
		t.Fatalf("a second scan opened %d conflicts (%+v)", len(again.Conflicts), again.Scan)
	}
	if n := len(f.Detail(t, res.Conflicts[0].ID).Events); n != 1 {
		t.Errorf("the conflict has %d events after two scans, want its one DETECT", n)
	}
}

// A scan stopped part of the way — by its limit, or by its context —
// goes on from its place: in all, each contradiction is opened once.
func TestScanStoppedGoesOnFromItsPlace(t *testing.T) {
	f := detecting(t, model.SensitivityOff)
	const pairs = 300 // 100 units, then a batch of 500, then none
	var want [][2]string
	for i := range pairs {
		subject := word(i) + " " + word(i+pairs) + " " + word(i+2*pairs)
		a := say(t, f, senior2, fmt.Sprintf("The %s drains in %d minutes at peak.", subject, 10+i), "drain time of "+word(i))
		b := say(t, f, standard, fmt.Sprintf("The %s drains in %d minutes at peak.", subject, 4*(10+i)), "drain time of "+word(i))
		want = append(want, [2]string{a.UnitID, b.UnitID})
	}
	setSensitivity(t, f, model.SensitivityMedium)
	ctx := context.Background()
	part, err := f.Svc.DetectScan(ctx, operator, model.DetectRequest{Mode: model.DetectScan, Limit: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if part.Scan.Done != 100 || part.Scan.Finished() || part.Scan.Found == 0 {
		t.Fatalf("a scan of 100 units: %+v, want 100 done, some found, not finished", part.Scan)
	}
	cancelled, cancel := context.WithCancel(ctx)
	_, err = f.Svc.DetectScan(cancelled, operator, model.DetectRequest{Mode: model.DetectScan}, func(s model.ScanState) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a scan whose context ended: %v, want context.Canceled", err)
	}
	var st model.ScanState
	f.Read(t, func(tx store.Tx) (err error) { st, err = tx.DetectScan(); return err })
	if st.Done != 600 || st.Finished() {
		t.Fatalf("after the cancelled scan: %+v, want a batch more done (600), not yet finished", st)
	}
	// Another process goes on: it reads the field again up to where the
	// scan stands, so that it compares each unit with the earlier ones a
	// scan from the start would.
	rest, err := review.New(f.Store).DetectScan(ctx, operator, model.DetectRequest{Mode: model.DetectScan}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rest.Scan.Done != 2*pairs || !rest.Scan.Finished() {
		t.Fatalf("the scan went on to %+v, want %d done, finished", rest.Scan, 2*pairs)
	}
	var conflicts int64
	f.Read(t, func(tx store.Tx) error {
		for _, p := range want {
			cs, err := tx.ConflictsOfUnit(p[1])
			if err != nil {
				return err
			}
			n := 0
			for _, c := range cs {
				if c.UnitA == p[0] {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s and %s have %d conflicts, want 1", p[0], p[1], n)
			}
		}
		counts, err := tx.ConflictCount()
		for _, n := range counts {
			conflicts += int64(n)
		}
		return err
	})
	if rest.Scan.Found != conflicts {
		t.Errorf("the scan says it found %d, the field holds %d conflicts", rest.Scan.Found, conflicts)
	}
	again, err := f.Svc.DetectScan(ctx, operator, model.DetectRequest{Mode: model.DetectScan}, nil)
	if err != nil || again.Scan.Found != 0 {
		t.Fatalf("a scan after the finished one found %+v (%v), want nothing new", again.Scan, err)
	}
}

// word is a made-up word of its own for each n, so that units about
// different things share no word but the sentence's.
func word(n int) string {
	const letters = "bcdfghjklmnpqrstvwxz"
	out := []byte{'q'}
	for range 4 {
		out = append(out, letters[n%len(letters)], "aeiou"[n%5])
		n /= len(letters)
	}
	return string(out)
}

// A scan needs authority 8; list and check answer anyone registered; an
// unknown unit is refused.
func TestDetectListCheckAndWhoMayScan(t *testing.T) {
	f := detecting(t, model.SensitivityMedium)
	a := say(t, f, senior2, p99at40, "Measure checkout latency")
	b := say(t, f, standard, p99at90, "Measure checkout latency")
	p := f.Contradict(t, model.ConflictPriority, rt.Side{}, rt.Side{})
	ctx := context.Background()
	_, err := f.Svc.Detect(ctx, senior1, model.DetectRequest{Mode: model.DetectScan})
	rt.WantError(t, err, model.CodeNotPermitted, model.OpDetect, false)
	list, err := f.Svc.Detect(ctx, observer, model.DetectRequest{Mode: model.DetectList})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Conflicts) != 2 || list.Conflicts[0].Detection == nil || list.Conflicts[1].ID != p.Conflict || list.Conflicts[1].Detection != nil {
		t.Fatalf("list: %+v", list.Conflicts)
	}
	merge(t, f, senior1, req(b.Conflicts[0].ID, model.LastWriteWins, "", "re-measured"))
	check, err := f.Svc.Detect(ctx, observer, model.DetectRequest{Mode: model.DetectCheck, Units: []string{a.UnitID, p.B}})
	if err != nil {
		t.Fatal(err)
	}
	if len(check.Units) != 2 || len(check.Units[0].Conflicts) != 1 || check.Units[0].Conflicts[0].Status != model.StatusResolved ||
		check.Units[1].UnitID != p.B || len(check.Units[1].Conflicts) != 1 {
		t.Fatalf("check: %+v", check.Units)
	}
	_, err = f.Svc.Detect(ctx, observer, model.DetectRequest{Mode: model.DetectCheck, Units: []string{"mem-999"}})
	rt.WantError(t, err, model.CodeUnitNotFound, model.OpDetect, true)
}

func setSensitivity(t *testing.T, f *rt.Field, level model.Sensitivity) {
	t.Helper()
	if _, err := f.Svc.UpdatePolicy(context.Background(), operator, func(p *model.Policy) error {
		p.DetectionSensitivity = level
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
