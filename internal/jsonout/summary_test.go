package jsonout

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"arbiter/model"
)

// viaEncodingJSON is what WriteArray printed for s as an element
// before AppendSummary: encoding/json, indented inside the array, then
// EscapeControls.
func viaEncodingJSON(t *testing.T, s model.ConflictSummary) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, []model.ConflictSummary{s}); err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSuffix(strings.TrimPrefix(buf.String(), "[\n  "), "\n]\n")
	return out
}

// summaryOf fills every field of a summary from text, n and the bits of
// which (which optional parts are present).
func summaryOf(text string, n int64, which uint8) model.ConflictSummary {
	at := time.Unix(n%(1<<35), n%1e9).UTC()
	s := model.ConflictSummary{
		Conflict: model.Conflict{ID: text + "id", Type: model.ConflictType(text), Status: model.ConflictStatus(text),
			UnitA: text, UnitB: "b" + text, Description: text + text, DetectedBy: model.DetectedBy(text),
			DetectedAt: at, Epoch: n, Version: -n},
		AgentA: text, RoleA: "r" + text, AgentB: text + "b", RoleB: "",
	}
	if which&1 != 0 {
		s.Escalation = &model.Escalation{By: text, Reason: text, Epoch: n + 1, At: at.Add(time.Hour)}
	}
	if which&2 != 0 {
		s.VoteOpened = &model.Escalation{By: "", Reason: text, Epoch: 0, At: time.Time{}}
	}
	if which&4 != 0 {
		winner := text
		s.Resolution = &model.Resolution{Strategy: model.Strategy(text), Rationale: text, ResolvedBy: text,
			EpochResolved: n, ResolvedAt: at.In(time.FixedZone("x", 3600))}
		if which&8 != 0 {
			s.Resolution.WinnerID = &winner
		}
		if which&16 != 0 {
			s.Resolution.SynthesisUnitID = &winner
		}
	}
	if which&32 != 0 {
		s.Tally = &model.Tally{ForA: int(n), ForB: int(-n), Quorum: 3}
	}
	if which&64 != 0 {
		s.Rework = &model.Escalation{By: text, Reason: text + "!", Epoch: n, At: at}
		s.ReworkOf = text + "of"
	}
	if which&128 != 0 {
		s.Route = &model.Route{Owner: text, Since: at, Fallback: model.Fallback(text), Reminded: int(n % 3)}
		s.Proposal = &model.Proposal{By: text}
		if which&8 != 0 {
			d := at.Add(time.Hour)
			s.Route.Deadline = &d
			s.Proposal.WinnerID = &text
		}
		if which&16 != 0 {
			s.Proposal.Synthesis = &text
		}
	}
	if which&(1|32) == 1|32 {
		s.Detection = &model.Detection{Signal: model.DetectSignal(text), Score: float64(n) / 7, Sensitivity: model.Sensitivity(text),
			PhraseA: model.Phrase{Start: int(n), End: int(n) + 1, Text: text}, PhraseB: model.Phrase{Text: "b" + text}}
		if which&8 != 0 {
			s.Detection.Values = []string{text, text + "b"}
		}
	}
	return s
}

var hostileTexts = []string{"", "plain", `"quoted" \back\slash`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1b[31m\x1f",
	"del\x7f", "c1 \u0085 \u009b", "bidi \u202e \u2066 zw \u200b joiners \u200c\u200d", "ls \u2028 ps \u2029",
	"tag \U000E0001 \U000E007F", "bad \xff\xfe utf8 \xc3", "é 日本 🎉", "<b>&amp;</b>", "soft\u00adhyphen"}

func TestAppendSummaryPrintsWhatEncodingJSONPrints(t *testing.T) {
	for _, text := range hostileTexts {
		for which := range 256 {
			s := summaryOf(text, int64(which)*7919, uint8(which))
			got, err := AppendSummary(nil, s)
			if err != nil {
				t.Fatal(err)
			}
			if want := viaEncodingJSON(t, s); string(got) != want {
				t.Fatalf("text %q, parts %06b:\nappendSummary:\n%s\nencoding/json:\n%s", text, which, got, want)
			}
		}
	}
}

func FuzzAppendSummary(f *testing.F) {
	for i, text := range hostileTexts {
		f.Add(text, int64(i)*1e12, uint8(i*5))
	}
	f.Fuzz(func(t *testing.T, text string, n int64, which uint8) {
		s := summaryOf(text, n, which)
		got, err := AppendSummary(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		if want := viaEncodingJSON(t, s); string(got) != want {
			t.Fatalf("AppendSummary:\n%s\nencoding/json:\n%s", got, want)
		}
	})
}

// AppendSummary writes the fields by hand: a field added to one of these
// types must be added there too (and to summaryOf).
func TestAppendSummaryKnowsEveryField(t *testing.T) {
	for typ, want := range map[reflect.Type]int{
		reflect.TypeFor[model.ConflictSummary](): 6,
		reflect.TypeFor[model.Conflict]():        18,
		reflect.TypeFor[model.Route]():           5,
		reflect.TypeFor[model.Proposal]():        3,
		reflect.TypeFor[model.Escalation]():      4,
		reflect.TypeFor[model.Resolution]():      7,
		reflect.TypeFor[model.Tally]():           3,
	} {
		if got := typ.NumField(); got != want {
			t.Errorf("%s has %d fields, AppendSummary writes %d: update it", typ, got, want)
		}
	}
}
