package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"arbiter/model"
)

// scanPerCall is how many units one detect call scans at most, so that a
// call never holds its connection for minutes: the next call goes on.
const scanPerCall = 10_000

func (s *Server) detect(ctx context.Context, in detectInput) (model.DetectResult, string, error) {
	req := model.DetectRequest{Mode: in.Mode, Units: in.Units, SinceEpoch: in.SinceEpoch, Limit: in.Limit}
	if req.Mode == model.DetectScan {
		limit, err := limitOf(model.OpDetect, in.Limit, scanPerCall, scanPerCall)
		if err != nil {
			return model.DetectResult{}, "", err
		}
		req.Limit = limit
	}
	res, err := s.svc.Detect(ctx, s.agent.ID, req)
	if err != nil {
		return res, "", err
	}
	var b strings.Builder
	switch req.Mode {
	case model.DetectScan:
		st := res.Scan
		fmt.Fprintf(&b, "scan: %d units looked at in all, %d conflicts opened in all; %d opened by this call", st.Done, st.Found, len(res.Conflicts))
		if st.Finished() {
			b.WriteString("; the scan is finished")
		} else {
			b.WriteString("; not finished: call detect with mode scan again to go on")
		}
	case model.DetectCheck:
		for i, u := range res.Units {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s is in %d conflicts", q(u.UnitID), len(u.Conflicts))
		}
	default:
		fmt.Fprintf(&b, "%d open conflicts", len(res.Conflicts))
	}
	n := 0
	for _, c := range res.Conflicts {
		if c.Detection == nil || n == 10 {
			continue
		}
		n++
		fmt.Fprintf(&b, "; %s detected (%s): %s against %s", q(c.ID), c.Detection.Signal, q(c.Detection.PhraseB.Text), q(c.Detection.PhraseA.Text))
	}
	b.WriteString(". Everything is in the structured content.")
	return res, b.String(), nil
}
