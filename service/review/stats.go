package review

import (
	"context"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// StatsWindow is how far back the figures look when no time is given.
const StatsWindow = 30 * 24 * time.Hour

// Stats reads the field's figures (model.Stats) from since on (zero:
// StatsWindow before now), aggregated by the engine in one read: the
// voters are the agents the policy lets vote; time to decision by person
// lists people only (agents of kind human), not agents, and not "vote".
func (s *Service) Stats(ctx context.Context, since time.Time) (model.Stats, error) {
	now := s.now()
	if since.IsZero() {
		since = now.Add(-StatsWindow)
	}
	var out model.Stats
	err := s.st.Read(ctx, func(tx store.Tx) error {
		p, err := tx.Policy()
		if err != nil {
			return err
		}
		agents, err := tx.Agents()
		if err != nil {
			return err
		}
		q := model.StatsQuery{Since: since, Now: now, Recusal: p.Recusal, People: []string{}}
		for _, a := range agents {
			if p.MayVote(a) {
				q.Voters = append(q.Voters, a.ID)
			}
			if a.Kind == model.KindHuman {
				q.People = append(q.People, a.ID)
			}
		}
		out, err = tx.Stats(q)
		return err
	})
	return out, err
}
