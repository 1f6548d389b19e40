package postgres

import (
	"encoding/json"
	"time"

	"arbiter/model"
)

// Policy reads the field's governance, its owners and authority roles
// with it, in one statement.
func (t *Tx) Policy() (model.Policy, error) {
	var p model.Policy
	var roles, owners, authority string
	var timeoutMS int64
	err := t.row(`SELECT level, quorum, tie, voter_min_authority, voter_roles, recusal, operator_override,
		owners_decide, escalation_timeout_ms, escalation_fallback, vote_min_ballots,
		(SELECT coalesce(json_object_agg(conflict_type, owner), '{}') FROM owners),
		(SELECT coalesce(json_object_agg(conflict_type, role), '{}') FROM authority_roles)
		FROM policy WHERE id = 1`).
		Scan(&p.Level, &p.Quorum, &p.Tie, &p.VoterMinAuthority, &roles, &p.Recusal, &p.OperatorOverride,
			&p.OwnersDecide, &timeoutMS, &p.EscalationFallback, &p.VoteMinBallots, &owners, &authority)
	if err != nil {
		return p, notFound(err)
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
	if _, err := t.exec(`INSERT INTO policy (id, level, quorum, tie, voter_min_authority, voter_roles, recusal,
			operator_override, owners_decide, escalation_timeout_ms, escalation_fallback, vote_min_ballots)
		VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (id) DO UPDATE SET level = excluded.level, quorum = excluded.quorum, tie = excluded.tie,
			voter_min_authority = excluded.voter_min_authority, voter_roles = excluded.voter_roles,
			recusal = excluded.recusal, operator_override = excluded.operator_override,
			owners_decide = excluded.owners_decide, escalation_timeout_ms = excluded.escalation_timeout_ms,
			escalation_fallback = excluded.escalation_fallback, vote_min_ballots = excluded.vote_min_ballots`,
		p.Level, p.Quorum, string(p.Tie), p.VoterMinAuthority, string(roles), p.Recusal, p.OperatorOverride,
		p.OwnersDecide, p.EscalationTimeout.Milliseconds(), string(p.EscalationFallback), max(1, p.VoteMinBallots)); err != nil {
		return err
	}
	for table, m := range map[string]map[model.ConflictType]string{"owners": p.Owners, "authority_roles": p.AuthorityRoles} {
		col := "owner"
		if table == "authority_roles" {
			col = "role"
		}
		if _, err := t.exec(`DELETE FROM ` + table); err != nil {
			return err
		}
		for ct, v := range m {
			if _, err := t.exec(`INSERT INTO `+table+` (conflict_type, `+col+`) VALUES ($1, $2)`, string(ct), v); err != nil {
				return err
			}
		}
	}
	return nil
}
