package model

import (
	"slices"
	"testing"
)

// What CapabilitiesOf says an agent may do is what Permit and MayVote let
// it do.
func TestCapabilitiesAgreeWithPermit(t *testing.T) {
	p := DefaultPolicy()
	p.VoterRoles = []string{"lead", "operator"}
	p.AuthorityRoles = map[ConflictType]string{ConflictFactual: "analyst", ConflictPriority: "analyst"}
	for _, level := range []int{1, 2, 3} {
		p.Level = level
		for _, a := range []Agent{operator, analyst, standard, observer, bot, {ID: "l", Role: "lead", Authority: AuthoritySenior}} {
			c := CapabilitiesOf(p, a)
			open := Conflict{ID: "c", Type: ConflictFactual, Status: StatusDetected}
			escalated := open
			escalated.Status = StatusEscalated
			if got := Permit(a, ConflictDetail{Conflict: open, Policy: p}, LastWriteWins) == nil; c.Decide != got {
				t.Errorf("level %d, %s: decide %v, Permit says %v", level, a.ID, c.Decide, got)
			}
			if got := Permit(a, ConflictDetail{Conflict: escalated, Policy: p}, LastWriteWins) == nil; c.DecideEscalated != got {
				t.Errorf("level %d, %s: decide escalated %v, Permit says %v", level, a.ID, c.DecideEscalated, got)
			}
			if got := p.Allows(Vote) && p.MayVote(a); c.Vote != got {
				t.Errorf("level %d, %s: vote %v", level, a.ID, c.Vote)
			}
			var over []ConflictType
			for _, ty := range ConflictTypes {
				if Permit(a, ConflictDetail{Conflict: Conflict{ID: "c", Type: ty, Status: StatusDetected}, Policy: p}, Authority) == nil {
					over = append(over, ty)
				}
			}
			slices.Sort(over)
			if !slices.Equal(c.AuthorityOver, over) && !(len(over) == 0 && len(c.AuthorityOver) == 0) {
				t.Errorf("level %d, %s: authority over %v, Permit allows %v", level, a.ID, c.AuthorityOver, over)
			}
		}
	}
}
