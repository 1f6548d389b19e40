package sqlcore

import (
	"encoding/json"
	"time"

	"arbiter/model"
)

// Agents and the field's governance.

const agentCols = `id, role, kind, authority, status, registered_at, coalesce(db_role, '')`

// ScanAgent reads agentCols, then extra.
func ScanAgent(r Row, extra ...any) (model.Agent, error) {
	var a model.Agent
	var at Time
	err := r.Scan(append([]any{&a.ID, &a.Role, &a.Kind, &a.Authority, &a.Status, &at, &a.DBRole}, extra...)...)
	a.RegisteredAt = at.T
	return a, err
}

// Agent looks up a registered agent; ErrNotFound if there is none.
func (t *Tx) Agent(id string) (model.Agent, error) {
	return ScanAgent(QueryRow(t.E, `SELECT `+agentCols+` FROM agents WHERE id = $1`, id))
}

// AgentInsert registers a, with the database role it is bound to (on
// PostgreSQL, checked first).
func (t *Tx) AgentInsert(a model.Agent, epoch int64) error {
	return t.exec(`INSERT INTO agents (id, role, kind, authority, status, registered_at, db_role, epoch)
		VALUES ($1, $2, $3, $4, $5, $6, nullif($7, ''), $8)`,
		a.ID, a.Role, string(a.Kind), a.Authority, string(a.Status), a.RegisteredAt, a.DBRole, epoch)
}

// Agents lists every registered agent by id.
func (t *Tx) Agents() ([]model.Agent, error) {
	agents, err := Collect(t.E, `SELECT `+agentCols+` FROM agents ORDER BY id`, nil,
		func(r Row) (model.Agent, error) { return ScanAgent(r) })
	if len(agents) == 0 {
		agents = nil
	}
	return agents, err
}

// AgentEach yields every agent by id with the epoch it registered at.
func (t *Tx) AgentEach(fn func(model.Agent, int64) error) error {
	return Each(t.E, `SELECT `+agentCols+`, epoch FROM agents ORDER BY id`, nil, func(r Row) error {
		var epoch int64
		a, err := ScanAgent(r, &epoch)
		if err != nil {
			return err
		}
		return fn(a, epoch)
	})
}

// Policy reads the field's governance, its owners and authority roles
// with it, in one statement.
func (t *Tx) Policy() (model.Policy, error) {
	var p model.Policy
	var roles, owners, authority string
	var timeoutMS int64
	err := QueryRow(t.E, t.D.policy).Scan(&p.Level, &p.Quorum, &p.Tie, &p.VoterMinAuthority, &roles, &p.Recusal,
		&p.OperatorOverride, &p.OwnersDecide, &timeoutMS, &p.EscalationFallback, &p.VoteMinBallots, &p.DetectionSensitivity,
		&owners, &authority)
	if err != nil {
		return p, err
	}
	p.EscalationTimeout = time.Duration(timeoutMS) * time.Millisecond
	if err := json.Unmarshal([]byte(roles), &p.VoterRoles); err != nil {
		return p, err
	}
	if err := json.Unmarshal([]byte(owners), &p.Owners); err != nil {
		return p, err
	}
	err = json.Unmarshal([]byte(authority), &p.AuthorityRoles)
	return p, err
}

// PolicySet replaces the field's governance.
func (t *Tx) PolicySet(p model.Policy) error {
	roles, err := json.Marshal(nonNil(p.VoterRoles))
	if err != nil {
		return err
	}
	if err := t.exec(`INSERT INTO policy (id, level, quorum, tie, voter_min_authority, voter_roles, recusal,
			operator_override, owners_decide, escalation_timeout_ms, escalation_fallback, vote_min_ballots,
			detection_sensitivity)
		VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
		ON CONFLICT (id) DO UPDATE SET level = excluded.level, quorum = excluded.quorum, tie = excluded.tie,
			voter_min_authority = excluded.voter_min_authority, voter_roles = excluded.voter_roles,
			recusal = excluded.recusal, operator_override = excluded.operator_override,
			owners_decide = excluded.owners_decide, escalation_timeout_ms = excluded.escalation_timeout_ms,
			escalation_fallback = excluded.escalation_fallback, vote_min_ballots = excluded.vote_min_ballots,
			detection_sensitivity = excluded.detection_sensitivity`,
		p.Level, p.Quorum, string(p.Tie), p.VoterMinAuthority, string(roles), p.Recusal, p.OperatorOverride,
		p.OwnersDecide, p.EscalationTimeout.Milliseconds(), string(p.EscalationFallback), max(1, p.VoteMinBallots),
		string(p.DetectionSensitivity.Or())); err != nil {
		return err
	}
	for _, m := range []struct {
		table, col string
		values     map[model.ConflictType]string
	}{{"owners", "owner", p.Owners}, {"authority_roles", "role", p.AuthorityRoles}} {
		if err := t.exec(`DELETE FROM ` + m.table); err != nil {
			return err
		}
		for ct, v := range m.values {
			if err := t.exec(`INSERT INTO `+m.table+` (conflict_type, `+m.col+`) VALUES ($1, $2)`, string(ct), v); err != nil {
				return err
			}
		}
	}
	return nil
}
