package mcpserver_test

import (
	"strings"
	"testing"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
	"arbiter/model"
	"arbiter/service/review/reviewtest"
)

// An agent's RECORD that contradicts an earlier unit nobody linked opens
// a detected conflict; the conflict tool says why, in its text and its
// structured content; detect lists and checks; a scan needs authority 8,
// and goes on call after call until it is finished.
func TestDetectOverMCP(t *testing.T) {
	p := reviewtest.Policy()
	p.DetectionSensitivity = model.SensitivityMedium
	f := reviewtest.New(t, p)
	c := mcptest.Serve(t, f.Path, ana, mcptest.Options{})
	first := mcptest.Result[model.RecordResult](c, mcpserver.ToolRecord,
		finding("Our monthly AWS bill for the data platform is about $48k.", 0.8, ""))
	second := mcptest.Result[model.RecordResult](c, mcpserver.ToolRecord,
		finding("The data platform costs us $81k a month on AWS, mostly EMR.", 0.7, ""))
	if len(second.Conflicts) != 1 || second.Conflicts[0].Detection == nil || second.Conflicts[0].UnitA != first.UnitID {
		t.Fatalf("RECORD opened %+v, want one detected conflict against %s", second.Conflicts, first.UnitID)
	}
	id := second.Conflicts[0].ID

	res := c.Call(mcpserver.ToolConflict, map[string]any{"conflict_id": id})
	text := mcptest.Text(res)
	if !strings.Contains(text, "the field detected it (quantity, score") || !strings.Contains(text, "strategy dismiss") {
		t.Errorf("the conflict's summary does not say why it was detected: %s", text)
	}
	view := mcptest.Result[model.ConflictDetail](c, mcpserver.ToolConflict, map[string]any{"conflict_id": id})
	if d := view.Conflict.Detection; d == nil || d.Signal != model.SignalQuantity || len(d.Values) != 2 {
		t.Errorf("the conflict's structured content: detection %+v", d)
	}

	list := mcptest.Result[model.DetectResult](c, mcpserver.ToolDetect, map[string]any{"mode": "list"})
	if len(list.Conflicts) != 1 || list.Conflicts[0].ID != id || list.Conflicts[0].Detection == nil {
		t.Errorf("detect list: %+v", list.Conflicts)
	}
	check := mcptest.Result[model.DetectResult](c, mcpserver.ToolDetect, map[string]any{"mode": "check", "units": []string{first.UnitID}})
	if len(check.Units) != 1 || len(check.Units[0].Conflicts) != 1 {
		t.Errorf("detect check: %+v", check.Units)
	}
	if e := mcptest.Refusal(c, mcpserver.ToolDetect, map[string]any{"mode": "scan"}); e.Code != model.CodeNotPermitted || e.Operation != model.OpDetect {
		t.Errorf("a scan by authority 6: %+v, want NOT_PERMITTED", e)
	}

	// Units recorded while detection was off, then scanned by the
	// operator, 3 units a call.
	setDetection(t, f, model.SensitivityOff)
	for _, pair := range [][2]string{
		{"The nightly export of invoices finishes in 12 minutes.", "The nightly export of invoices finishes in 45 minutes."},
		{"Search indexing of product photos takes 3 hours.", "Search indexing of product photos takes 9 hours."},
		{"The mobile app bundle weighs 40 MB.", "The mobile app bundle weighs 95 MB."},
	} {
		for _, content := range pair {
			mcptest.Result[model.RecordResult](c, mcpserver.ToolRecord, finding(content, 0.6, ""))
		}
	}
	setDetection(t, f, model.SensitivityMedium)
	op := mcptest.Serve(t, f.Path, reviewtest.Operator, mcptest.Options{})
	var found int64
	calls := 0
	for {
		calls++
		r := mcptest.Result[model.DetectResult](op, mcpserver.ToolDetect, map[string]any{"mode": "scan", "limit": 3})
		if r.Scan == nil || calls > 10 {
			t.Fatalf("scan call %d: %+v", calls, r)
		}
		found = r.Scan.Found
		if r.Scan.FinishedAt != nil {
			break
		}
	}
	if calls != 3 || found != 3 {
		t.Errorf("the scan took %d calls and opened %d conflicts; want 3 calls (8 units, 3 a call) and 3", calls, found)
	}
	again := mcptest.Result[model.DetectResult](op, mcpserver.ToolDetect, map[string]any{"mode": "scan"})
	if again.Scan.Found != 0 || len(again.Conflicts) != 0 {
		t.Errorf("a second scan opened %d", again.Scan.Found)
	}
}

func setDetection(t *testing.T, f *reviewtest.Field, level model.Sensitivity) {
	t.Helper()
	if _, err := f.Svc.UpdatePolicy(t.Context(), reviewtest.Operator, func(p *model.Policy) error {
		p.DetectionSensitivity = level
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
