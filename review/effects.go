package review

import (
	"encoding/json"
	"sort"

	"arbiter/model"
	"arbiter/store"
)

// notify sends n to each distinct agent in ids (empty ids skipped) and
// returns the agents notified, sorted.
func notify(tx store.Tx, ids []string, n model.Notification) ([]string, error) {
	seen := map[string]bool{}
	out := []string{}
	for _, id := range ids {
		if id == "" || seen[id] || id == model.FallbackAgent || id == model.SweepAgent {
			continue
		}
		seen[id] = true
		n.AgentID = id
		if n.RelevanceScore == 0 {
			n.RelevanceScore = 1
		}
		if _, err := tx.NotificationInsert(n); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	sort.Strings(out)
	return out, nil
}

// settle returns a contested unit to active once no open conflict is left
// about it.
func settle(tx store.Tx, id string) error {
	u, err := tx.Unit(id)
	if err != nil || u.Status != model.UnitContested {
		return err
	}
	cs, err := tx.ConflictsOfUnit(id)
	if err != nil {
		return err
	}
	for _, c := range cs {
		if c.Status.Open() {
			return nil
		}
	}
	return tx.UnitSetStatus(id, model.UnitActive)
}

// humanOperators lists the people who may decide escalated conflicts.
func humanOperators(tx store.Tx) ([]string, error) {
	agents, err := tx.Agents()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range agents {
		if a.IsHumanOperator() {
			out = append(out, a.ID)
		}
	}
	return out, nil
}

// voters lists the agents the policy lets vote on the conflict of d: the
// eligible voters, less its units' authors under recusal.
func voters(tx store.Tx, d model.ConflictDetail) ([]string, error) {
	agents, err := tx.Agents()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range agents {
		if d.Policy.MayVote(a) && !d.Policy.Recused(a, d) {
			out = append(out, a.ID)
		}
	}
	return out, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

func sortStrings(s []string) { sort.Strings(s) }
