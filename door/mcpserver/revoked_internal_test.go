package mcpserver

import (
	"testing"
	"time"
)

// A session is ended as revoked only when its token is missing from what
// the field held when it was asked: a session begun after the tokens were
// read came in on a token issued meanwhile, which they could not hold.
func TestASessionLetInAfterTheTokensWereReadIsNotEndedAsRevoked(t *testing.T) {
	asked := time.Now()
	before, after := asked.Add(-time.Second), asked.Add(time.Millisecond)
	h := &HTTP{sessions: map[string]*tracked{
		"kept":    {session: session{hash: "held"}, began: before},
		"revoked": {session: session{hash: "gone"}, began: before},
		"new":     {session: session{hash: "issued meanwhile"}, began: after},
	}}
	gone := h.revoked(map[string]bool{"held": true}, asked)
	if len(gone) != 1 || gone[0] != h.sessions["revoked"] {
		var hashes []string
		for _, g := range gone {
			hashes = append(hashes, g.hash)
		}
		t.Fatalf("ended as revoked: %v; want only the session of the token gone", hashes)
	}
}
