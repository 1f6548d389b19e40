package jsonout

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"arbiter/model"
)

func TestWriteJSONArrayPrintsWhatWriteJSONPrints(t *testing.T) {
	row := func(id, desc string, tally *model.Tally) model.ConflictSummary {
		return model.ConflictSummary{Conflict: model.Conflict{ID: id, Type: model.ConflictFactual,
			Status: model.StatusPendingVote, Description: desc, DetectedAt: time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC),
			VoteOpened: &model.Escalation{By: "lead", Reason: "<b>&</b>"}}, AgentA: "a", AgentB: "b", Tally: tally}
	}
	for _, rows := range [][]model.ConflictSummary{
		{},
		{row("conflict-1", "one", nil)},
		{row("conflict-1", "C1 \u0085 and DEL \x7f, é, \u2028", &model.Tally{ForA: 1, Quorum: 3}),
			row("conflict-2", "two\nlines", nil), row("conflict-3", `"quoted"`, &model.Tally{})},
	} {
		var want bytes.Buffer
		if err := Write(&want, rows); err != nil {
			t.Fatal(err)
		}
		for name, appendElem := range map[string]func([]byte, model.ConflictSummary) ([]byte, error){
			"AppendJSON": AppendJSON[model.ConflictSummary], "AppendSummary": AppendSummary,
		} {
			var got bytes.Buffer
			err := WriteArray(&got, func(yield func(model.ConflictSummary)) error {
				for _, r := range rows {
					yield(r)
				}
				return nil
			}, appendElem)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("WriteArray with %s printed\n%s\nwriteJSON prints\n%s", name, got.String(), want.String())
			}
		}
	}
}

func TestWriteJSONArrayPrintsNothingWhenTheListFails(t *testing.T) {
	var out bytes.Buffer
	boom := errors.New("the field went away")
	err := WriteArray(&out, func(yield func(int)) error {
		yield(1)
		yield(2)
		return boom
	}, AppendJSON[int])
	if !errors.Is(err, boom) || out.Len() != 0 {
		t.Errorf("got %v and %q; want the error and nothing printed", err, out.String())
	}
}

// EscapeControls skips its ASCII prefix before decoding runes; it still
// rewrites exactly what decoding everything would.
func TestEscapeControlsFindsControlsAfterAnASCIIPrefix(t *testing.T) {
	for _, in := range []string{"", "plain", "a\x7fb", "ascii then \u0085", "\u00ad first", "é then \u200b",
		"ok \u200d joiner", "tag \U000E0001", "\xff invalid \u0085"} {
		got := string(EscapeControls([]byte(in)))
		var want strings.Builder
		for _, r := range in {
			if r > 0xffff && isRawControl(r) {
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(&want, `\u%04x\u%04x`, hi, lo)
			} else if r != utf8.RuneError && isRawControl(r) {
				fmt.Fprintf(&want, `\u%04x`, r)
			} else if r == utf8.RuneError {
				want.WriteString("\xff")
			} else {
				want.WriteRune(r)
			}
		}
		if got != want.String() {
			t.Errorf("EscapeControls(%q) = %q, want %q", in, got, want.String())
		}
	}
}
