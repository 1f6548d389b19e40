package decisions_test

import (
	"arbiter/internal/akashiklog"
	"arbiter/internal/decisions"
	"errors"
	"strings"
	"testing"
)

const goodLine = `{"protocol":"akashik","version":"0.1.0","id":"01J0MSG0000000000000000001","operation":"MERGE","agent_id":"maya","session_id":null,"epoch":7,"payload":{"conflict_id":"conflict-001","strategy":"dismiss","resolution":{"winner_id":null,"synthesis":null,"rationale":"not a conflict"},"expected_version":1}}`

func TestReadDecisionsSkipsATornLastLineAndNamesAnyOtherBadLine(t *testing.T) {
	second := strings.Replace(goodLine, "0000000001", "0000000002", 1)
	ds, err := decisions.Read(strings.NewReader(goodLine + "\n\n" + second + "\n" + `{"protocol":"aka`))
	if err != nil || len(ds.Messages) != 2 || ds.TornLine != 4 || ds.Messages[1].Line != 3 ||
		ds.Messages[0].Request.ConflictID != "conflict-001" || ds.Messages[0].Request.ExpectedVersion != 1 {
		t.Fatalf("read %+v, %v: want two messages and the torn line 4", ds, err)
	}
	for name, tc := range map[string]struct {
		text string
		line int
		want string
	}{
		"torn line before the last": {`{"protocol"` + "\n" + goodLine + "\n", 1, "invalid JSON"},
		// A last line with its newline was written whole: it is bad, not torn.
		"a complete bad last line": {goodLine + "\n" + `{"protocol":"aka` + "\n", 2, "invalid JSON"},
		"the same, then blank":     {goodLine + "\n" + `not json` + "\r\n\n", 2, "invalid JSON"},
		"another protocol":         {strings.Replace(goodLine, `"akashik"`, `"other"`, 1), 1, "protocol"},
		"another version":          {goodLine + "\n" + strings.Replace(goodLine, "0.1.0", "0.2.0", 1), 2, "version"},
		"not a MERGE":              {strings.Replace(goodLine, `"MERGE"`, `"RECORD"`, 1), 1, "RECORD"},
		"no conflict":              {strings.Replace(goodLine, `"conflict-001"`, `""`, 1), 1, "conflict_id"},
		"the same id twice":        {goodLine + "\n" + goodLine, 2, "first on line 1"},
	} {
		_, err := decisions.Read(strings.NewReader(tc.text))
		var le *akashiklog.LineError
		if !errors.As(err, &le) || le.Line != tc.line || !strings.Contains(le.Reason, tc.want) {
			t.Errorf("%s: got %v, want line %d about %q", name, err, tc.line, tc.want)
		}
	}
}
