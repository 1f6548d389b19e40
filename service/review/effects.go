package review

import (
	"encoding/json"
	"slices"
	"sort"

	"arbiter/model"
	"arbiter/store"
)

// notify sends n to each distinct agent in ids (empty ids skipped) and
// returns the agents notified, sorted. When actors are given, only they
// are asked to act (n.RequiresAction); the others are told. A notice of a
// conflict that asks nothing of someone whose last notice of it asked them
// to act says that it no longer does (model.NoLongerNeeded). Each notice
// is queued for the recipient's hooks in the same transaction (an outbox).
func notify(tx store.Tx, ids []string, n model.Notification, actors ...string) ([]string, error) {
	var asked map[string]bool
	if n.ConflictID != nil {
		earlier, err := tx.NotificationsOfConflict(*n.ConflictID)
		if err != nil {
			return nil, err
		}
		asked = map[string]bool{}
		for _, e := range earlier {
			asked[e.AgentID] = e.RequiresAction
		}
	}
	hooks, err := tx.Hooks("")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := []string{}
	for _, id := range ids {
		if id == "" || seen[id] || id == model.FallbackAgent || id == model.SweepAgent {
			continue
		}
		seen[id] = true
		m := n
		m.AgentID = id
		if m.RelevanceScore == 0 {
			m.RelevanceScore = 1
		}
		if len(actors) > 0 && !slices.Contains(actors, id) {
			m.RequiresAction = false
		}
		if !m.RequiresAction && asked[id] {
			m.Summary += model.NoLongerNeeded
		}
		if asked != nil {
			asked[id] = m.RequiresAction
		}
		nid, err := tx.NotificationInsert(m)
		if err != nil {
			return nil, err
		}
		m.ID = nid
		for _, h := range hooks {
			if h.AgentID != id || !h.Wants(m.Event) || !h.Enabled() {
				continue
			}
			if err := tx.DeliveryInsert(model.Delivery{ID: model.NewDeliveryID(), HookID: h.ID, NotificationID: nid,
				NextAt: m.CreatedAt, CreatedAt: m.CreatedAt, Notice: m}); err != nil {
				return nil, err
			}
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
