package model

import "testing"

func TestMergeWinnerIsTheRulesPickOrTheOneNamed(t *testing.T) {
	a := Contender{Unit: Unit{ID: "mem-001", Epoch: 3, Confidence: Confidence{Score: Ptr(0.9)}}}
	b := Contender{Unit: Unit{ID: "mem-002", Epoch: 5, Confidence: Confidence{Score: Ptr(0.9)}}}
	for _, tc := range []struct {
		s             Strategy
		named, winner string
		refused       bool
	}{
		{LastWriteWins, "", "mem-002", false},
		{LastWriteWins, "mem-002", "mem-002", false},
		{LastWriteWins, "mem-001", "", true},     // the rule picks the other
		{ConfidenceWeighted, "", "", true},       // a tie decides nothing
		{Authority, "mem-001", "mem-001", false}, // not a rule: the one named
		{Dismiss, "", "", false},
	} {
		winner, pick, refusal := MergeWinner(tc.s, tc.named, a, b)
		if winner != tc.winner || (refusal != nil) != tc.refused {
			t.Errorf("%s naming %q keeps %q (refusal %v), want %q (refused %v)", tc.s, tc.named, winner, refusal, tc.winner, tc.refused)
		}
		if refusal != nil && refusal.Code != CodeMergeFailed {
			t.Errorf("%s naming %q is refused with %s, want %s", tc.s, tc.named, refusal.Code, CodeMergeFailed)
		}
		if tc.s == ConfidenceWeighted && !pick.Tie {
			t.Errorf("confidence_weighted between equal scores: %+v, want a tie", pick)
		}
	}
}

func TestCheckMergeRequestRefusesWhatNoFieldCouldTake(t *testing.T) {
	w := "mem-001"
	for _, req := range []MergeRequest{
		{Strategy: Rework, Resolution: MergeResolution{Rationale: "r"}},
		{Strategy: "keep_both", Resolution: MergeResolution{Rationale: "r"}},
		{Strategy: Dismiss, Resolution: MergeResolution{Rationale: " "}},
		{Strategy: Authority, Resolution: MergeResolution{Rationale: "r"}},
		{Strategy: Dismiss, Resolution: MergeResolution{Rationale: "r", WinnerID: &w}},
		{Strategy: Synthesis, Resolution: MergeResolution{Rationale: "r"}},
		{Strategy: Dismiss, Resolution: MergeResolution{Rationale: "r"}, Routing: &Routing{To: "ops"}},
		{Strategy: Dismiss, Resolution: MergeResolution{Rationale: "r"}, Proposal: &Proposed{WinnerID: &w}},
		{Strategy: HumanEscalation, Resolution: MergeResolution{Rationale: "r"}, Proposal: &Proposed{}},
	} {
		if err := CheckMergeRequest(req); !HasCode(err, CodeInvalidRequest) {
			t.Errorf("%+v: %v, want %s", req, err, CodeInvalidRequest)
		}
	}
	if err := CheckMergeRequest(MergeRequest{Strategy: Authority, Resolution: MergeResolution{Rationale: "r", WinnerID: &w}}); err != nil {
		t.Errorf("a good request is refused: %v", err)
	}
}
