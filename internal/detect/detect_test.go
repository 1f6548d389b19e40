package detect

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"arbiter/model"
)

func analyse(s string) *Text { return Analyse(Input{Content: s}) }

func TestQuantitiesAreReadWithTheirUnits(t *testing.T) {
	cases := []struct {
		text  string
		fam   string
		val   float64
		lo    float64
		hi    float64
		per   float64
		label bool
	}{
		{"checkout p99 is 40 ms", "time", 0.04, 0.04, 0.04, 0, false},
		{"the log cluster grows 1.5 TB per day", "bytes", 1.5e12, 1.5e12, 1.5e12, 86400, false},
		{"the bill is $48k a month", "money:usd", 48000, 48000, 48000, 2629800, false},
		{"the quote is €210k per year", "money:eur", 210000, 210000, 210000, 31557600, false},
		{"orders holds 300M rows", "count:row", 3e8, 3e8, 3e8, 0, false},
		{"it scales between 3 and 10 nodes", "count:node", 3, 3, 10, 0, false},
		{"replica lag stays under 5 s", "time", 5, math.Inf(-1), 5, 0, false},
		{"the GPU cluster has at least 32 A100s", "count:a100s", 32, 32, math.Inf(1), 0, false},
		{"the market grows at 23% CAGR", "%", 23, 23, 23, 0, false},
		{"one in 40 transactions is flagged", "%", 2.5, 2.5, 2.5, 0, false},
		{"half of all traffic sees it", "%", 50, 50, 50, 0, false},
		{"the queue drains 2,500 messages/s", "count:message", 2500, 2500, 2500, 1, false},
		{"onboarding takes 5 business days", "time", 5 * 86400, 5 * 86400, 5 * 86400, 0, false},
		{"a 400-hour job", "time", 400 * 3600, 400 * 3600, 400 * 3600, 0, false},
		{"the service runs on Go 1.21", "ver:go", 1.21, 1.21, 1.21, 0, true},
		{"SEC-412 is P1", "priority", 1, 0, 0, 0, true},
		{"the cutover is on March 15", "date", 3*32 + 15, 0, 0, 0, true},
		{"cutover date: 2025-03-15", "date", 3*32 + 15, 0, 0, 0, true},
		{"the ETL runs at 02:00 UTC", "clock", 120, 0, 0, 0, true},
	}
	for _, c := range cases {
		x := analyse(c.text)
		var q *quantity
		for i := range x.quants {
			if x.quants[i].fam == c.fam {
				q = &x.quants[i]
			}
		}
		if q == nil {
			var fams []string
			for _, o := range x.quants {
				fams = append(fams, o.fam)
			}
			t.Errorf("%q: no %s quantity; read %v", c.text, c.fam, fams)
			continue
		}
		if q.label != c.label || math.Abs(q.val-c.val) > 1e-9*math.Abs(c.val) {
			t.Errorf("%q: %s %g (label %v), want %g (label %v)", c.text, q.fam, q.val, q.label, c.val, c.label)
		}
		if !c.label && (q.lo != c.lo || q.hi != c.hi || q.per != c.per) {
			t.Errorf("%q: [%g, %g] per %g, want [%g, %g] per %g", c.text, q.lo, q.hi, q.per, c.lo, c.hi, c.per)
		}
	}
}

// pairCase is two units, the later one second, and whether they
// contradict each other.
type pairCase struct {
	a, b     string
	conflict bool
}

// expectConflicts compares each case's units with d.
func expectConflicts(t *testing.T, d Detector, cases []pairCase) {
	t.Helper()
	for _, c := range cases {
		f, ok := d.Compare(analyse(c.a), analyse(c.b))
		if ok != c.conflict {
			t.Errorf("%q against %q: conflict %v (%s, %.2f), want %v", c.a, c.b, ok, f.Signal, f.Score, c.conflict)
		}
	}
}

func TestValuesAgreeWithinTheirRounding(t *testing.T) {
	cases := []pairCase{
		{"Checkout p99 is 40 ms.", "Checkout p99 is 90 ms.", true},
		{"Checkout p99 is 40 ms.", "Checkout p99 is 41 ms.", false},
		{"Checkout p99 is 40 ms.", "Checkout p99 is 0.04 s.", false},
		{"Churn is roughly 4% per year.", "Churn is 4.3% per year.", false},
		{"Replica lag stays under 5 s.", "Replica lag peaked at 3.2 s.", false},
		{"Replica lag stays under 5 s.", "Replica lag peaked at 45 s.", true},
		{"Checkout p50 is 40 ms.", "Checkout p99 is 90 ms.", false},
		{"Q3 revenue for SMB was $4.2M.", "Q4 revenue for SMB was $5.0M.", false},
	}
	expectConflicts(t, New(Medium), cases)
}

func TestNegationAndOppositeTerms(t *testing.T) {
	d := New(Medium)
	cases := []struct {
		a, b   string
		signal Signal // "" for no conflict
	}{
		{"The staging database is encrypted at rest.", "The staging database is not encrypted at rest.", SignalNegation},
		{"Autoscaling is enabled on the worker pool.", "Autoscaling is disabled on the worker pool.", SignalOpposites},
		{"Autoscaling is not enabled on the worker pool.", "Autoscaling is disabled on the worker pool.", ""},
		{"Integration tests fail on the release branch.", "The release branch does not pass its integration tests.", ""},
		{"The staging cluster autoscales between 3 and 10 nodes.", "The staging cluster no longer autoscales.", SignalTemporal},
		{"Do not raise Pro prices in Q3.", "Pro pricing stays as it is through Q3.", ""},
		{"Session tokens are encrypted.", "Is the session token encrypted?", ""},
	}
	for _, c := range cases {
		f, ok := d.Compare(analyse(c.a), analyse(c.b))
		if ok != (c.signal != "") || (ok && f.Signal != c.signal) {
			t.Errorf("%q against %q: %v %s (%.2f), want %q", c.a, c.b, ok, f.Signal, f.Score, c.signal)
		}
	}
}

// TestOppositeTermsOnTwoObjects: one subject acting on two things with a
// pair of opposite terms says two things, not one and its opposite; the
// same terms on one object still contradict.
func TestOppositeTermsOnTwoObjects(t *testing.T) {
	cases := []pairCase{
		{"The webhook dispatcher rejects out-of-order events.", "The webhook dispatcher accepts hot partitions.", false},
		{"The webhook dispatcher rejects out-of-order events when the acquirer answers after the timeout.",
			"The webhook dispatcher accepts hot partitions when the acquirer answers after the timeout.", false},
		{"The proxy allows uploads from partners.", "The proxy blocks downloads from partners.", false},
		{"We raised the rate limit for partners.", "We lowered the retry budget for partners.", false},
		{"The feature flag is enabled in staging.", "The feature flag is disabled in production.", false},
		{"The webhook dispatcher rejects out-of-order events.", "The webhook dispatcher accepts out-of-order events.", true},
		{"The team approved the budget increase.", "The team rejected the increase.", true},
		{"We raised the rate limit for partners.", "We lowered the rate limit for partners.", true},
		{"Security patching of the VPN appliance is high priority.", "VPN appliance patching has low urgency; it is behind the zero-trust proxy.", true},
	}
	expectConflicts(t, New(Medium), cases)
}

func TestTemporalSupersession(t *testing.T) {
	d := New(Medium)
	later := analyse("We switched from Jenkins to GitHub Actions for the backend repos last sprint.")
	if f, ok := d.Compare(analyse("We use Jenkins for CI on all backend repos."), later); !ok || f.Signal != SignalTemporal {
		t.Errorf("the old tool: %v %s, want a temporal conflict", ok, f.Signal)
	}
	if _, ok := d.Compare(analyse("We use GitHub Actions for CI on the backend repos."), later); ok {
		t.Error("the new tool: a conflict; it agrees with the change")
	}
	// The change may be the earlier unit: the later one still names the
	// old tool. Phrase A is always the earlier unit's.
	f, ok := d.Compare(later, analyse("We use Jenkins for CI on all backend repos."))
	if !ok || !strings.Contains(f.A.Text, "switched from Jenkins") || !strings.Contains(f.B.Text, "use Jenkins") {
		t.Errorf("change first: %v, A %q, B %q; want the change as A", ok, f.A.Text, f.B.Text)
	}
	was := analyse("Search API p99 was 250 ms, now 120 ms after the index rewrite.")
	if f, ok := d.Compare(analyse("p99 of the search API is 250 ms."), was); !ok || f.Signal != SignalTemporal {
		t.Errorf("the old value: %v %s, want a temporal conflict", ok, f.Signal)
	}
	if _, ok := d.Compare(analyse("Search API p99 is 120 ms."), was); ok {
		t.Error("the new value: a conflict; it agrees with the change")
	}
}

func TestFindingSaysWhyWithThePhrasesOfEachUnit(t *testing.T) {
	a := "**Load test, staging**\n- checkout p99: 40 ms at 2k req/s\n- error rate 0.1%"
	b := "Re-ran the checkout load test at 2k req/s; p99 came out at **90 ms** and CPU hit 85%."
	f, ok := New(Medium).Compare(analyse(a), analyse(b))
	if !ok {
		t.Fatal("no conflict between 40 ms and 90 ms of one p99")
	}
	if f.Signal != SignalQuantity || f.DetectedBy != model.DetectedLogical || f.Type != model.ConflictFactual {
		t.Errorf("signal %s, detected_by %s, type %s; want quantity, logical, factual", f.Signal, f.DetectedBy, f.Type)
	}
	if f.A.Text != a[f.A.Start:f.A.End] || f.B.Text != b[f.B.Start:f.B.End] {
		t.Errorf("phrases %q, %q are not the content at their offsets", f.A.Text, f.B.Text)
	}
	if f.Values != [2]string{"40 ms", "90 ms"} {
		t.Errorf("values %q, want 40 ms and 90 ms", f.Values)
	}
	if want := "two values of one quantity: “40 ms” against “90 ms”"; f.Description() != want {
		t.Errorf("description %q, want %q", f.Description(), want)
	}
	if f.Score <= 0 || f.Score > 1 {
		t.Errorf("score %v outside (0, 1]", f.Score)
	}
}

func TestOffDetectsNothing(t *testing.T) {
	a, b := analyse("Autoscaling is enabled."), analyse("Autoscaling is disabled.")
	if _, ok := New(Off).Compare(a, b); ok {
		t.Error("off found a conflict")
	}
	if _, ok := New(Medium).Compare(a, b); !ok {
		t.Error("medium found none")
	}
	for _, s := range []string{"off", "low", "medium", "high"} {
		if v, err := model.ParseSensitivity(s); err != nil || string(v) != s {
			t.Errorf("ParseSensitivity(%q) = %q, %v", s, v, err)
		}
	}
	if _, err := model.ParseSensitivity("loud"); err == nil {
		t.Error("ParseSensitivity(loud) took it")
	}
}

// A pair a level finds, every more sensitive level finds too.
func TestLevelsAreNested(t *testing.T) {
	ps := analysePairs(append(loadPairs(t, "testdata/pairs.jsonl"), loadPairs(t, "testdata/fresh.jsonl")...))
	levels := []Sensitivity{Low, Medium, High}
	for _, p := range ps {
		for k := 1; k < len(levels); k++ {
			_, less := New(levels[k-1]).Compare(p.a, p.b)
			_, more := New(levels[k]).Compare(p.a, p.b)
			if less && !more {
				t.Errorf("%s: found at %s, not at %s", p.ID, levels[k-1], levels[k])
			}
		}
	}
}

func TestHostileTextIsReadWithinBounds(t *testing.T) {
	texts := []string{
		"", " ", "\x00\x01\x1b[31m", "\xff\xfe\xfd not utf-8 \xc3", strings.Repeat("9", 5000),
		strings.Repeat("not ", 20000), strings.Repeat("$1.2.3.4k/s ", 3000), "```\nunclosed fence",
		strings.Repeat("- 40 ms: ", 10000), "[link](http://x", strings.Repeat("é€£µ", 4000),
	}
	d := New(High)
	for _, s := range texts {
		x := analyse(s)
		if len(x.Content()) > maxScan {
			t.Errorf("kept %d bytes of %d; at most %d", len(x.Content()), len(s), maxScan)
		}
		for _, y := range texts {
			f, _ := d.Compare(x, analyse(y))
			if f.A.End > len(x.Content()) || f.A.Start > f.A.End {
				t.Errorf("phrase %d..%d outside %d bytes", f.A.Start, f.A.End, len(x.Content()))
			}
		}
	}
}

func TestTermsAndRankFindTheUnitsAboutTheSameThing(t *testing.T) {
	x := Analyse(Input{Content: "Replica lag on db-eu-2 peaks at 4 s during the nightly batch.", Purpose: "Database capacity"})
	terms := x.Terms(8)
	var words []string
	for _, term := range terms {
		words = append(words, term.Word)
	}
	if len(terms) == 0 || terms[0].Word != "db" && terms[0].Word != "eu" {
		t.Errorf("terms %q: the identifier should come first", words)
	}
	for _, w := range []string{"replica", "nightly", "database", "capacity"} {
		found := false
		for _, got := range words {
			found = found || strings.HasPrefix(w, got) && len(got) >= 4
		}
		if !found {
			t.Errorf("terms %q lack %q", words, w)
		}
	}
	for _, w := range words {
		if w == "4" || w == "the" || w == "on" {
			t.Errorf("terms %q hold %q", words, w)
		}
	}
	cands := []*Text{
		analyse("The nightly batch is scheduled at 02:00."),
		analyse("Peak replica lag on db-eu-2 during the nightly batch is 45 s."),
		analyse("Lunch is at noon."),
	}
	df := make([]int, len(terms))
	for i, term := range terms {
		df[i] = 10
		if term.Word == "nightly" {
			df[i] = 5000 // a common word in this field
		}
	}
	got := Rank(x, terms, df, 10000, cands, 5)
	if len(got) != 2 || got[0] != 1 || got[1] != 0 {
		t.Errorf("ranked %v, want [1 0] (the lag, then the batch; lunch shares nothing)", got)
	}
}

func TestRankHitsOrdersUnitsByTheRareTermsTheyShare(t *testing.T) {
	terms := Analyse(Input{Content: "Replica lag on db-eu-2 peaks during the nightly batch."}).Terms(4)
	if len(terms) < 3 {
		t.Fatalf("terms %v", terms)
	}
	// unit 7 holds the two rare terms, unit 9 one rare term, units 1-5
	// only the common third one
	hits := [][]int64{{7, 9}, {7}, {1, 2, 3, 4, 5, 7}}
	df := []int{2, 1, 40000}
	got := RankHits(terms[:3], hits, df, 100000, 3)
	if len(got) != 3 || got[0] != 7 || got[1] != 9 {
		t.Errorf("ranked %v, want 7, 9, then a unit of the common term", got)
	}
}

func TestCacheReadsAUnitOnceAndKeepsItsBudget(t *testing.T) {
	one := analyse("p99 is 40 ms").size()
	c := NewCache(2*one + one/2)
	a := c.Text("mem-1", Input{Content: "p99 is 40 ms"})
	if again := c.Text("mem-1", Input{Content: "ignored: mem-1 is read already"}); again != a {
		t.Error("mem-1 read twice")
	}
	c.Text("mem-2", Input{Content: "p99 is 41 ms"})
	c.Text("mem-3", Input{Content: "p99 is 42 ms"})
	if c.Len() != 2 || c.Bytes() > 2*one+one/2 {
		t.Errorf("%d units kept in %d bytes, want 2 in at most %d", c.Len(), c.Bytes(), 2*one+one/2)
	}
	if again := c.Text("mem-1", Input{Content: "read again"}); again == a || again.Content() != "read again" {
		t.Error("mem-1, the least recently used, was not dropped")
	}
}

// A read unit and a cache are shared by the goroutines of a server: the
// findings are the same as one goroutine's (go test -race checks the rest).
func TestComparisonsShareTextsAcrossGoroutines(t *testing.T) {
	ps := loadPairs(t, "testdata/fresh.jsonl")
	c := NewCache(1 << 20)
	d := New(Medium)
	want := make([]Finding, len(ps))
	for i, p := range ps {
		want[i], _ = d.Compare(analyse(p.TextA), analyse(p.TextB))
	}
	errs := make(chan string, 4*len(ps))
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i, p := range ps {
				a := c.Text(p.ID+"a", Input{Content: p.TextA})
				b := c.Text(p.ID+"b", Input{Content: p.TextB})
				if got, _ := d.Compare(a, b); got != want[i] {
					errs <- fmt.Sprintf("%s: %+v, want %+v", p.ID, got, want[i])
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
