package sqlite

import (
	"encoding/json"
	"time"

	"arbiter/model"
)

// Policy reads the field's governance.
func (t *Tx) Policy() (model.Policy, error) {
	var p model.Policy
	var roles string
	var timeoutMS int64
	err := t.row(`SELECT level, quorum, tie, voter_min_authority, voter_roles, recusal, operator_override,
		owners_decide, escalation_timeout_ms, escalation_fallback, vote_min_ballots FROM policy WHERE id = 1`).
		Scan(&p.Level, &p.Quorum, &p.Tie, &p.VoterMinAuthority, &roles, &p.Recusal, &p.OperatorOverride,
			&p.OwnersDecide, &timeoutMS, &p.EscalationFallback, &p.VoteMinBallots)
	// (Fields of an older format are upgraded as they open, so the
	// columns are there.)
	if err != nil {
		return p, notFound(err)
	}
	p.EscalationTimeout = time.Duration(timeoutMS) * time.Millisecond
	if p.Owners, err = t.typeMap(`SELECT conflict_type, owner FROM owners`); err != nil {
		return p, err
	}
	if err := json.Unmarshal([]byte(roles), &p.VoterRoles); err != nil {
		return p, err
	}
	p.AuthorityRoles, err = t.typeMap(`SELECT conflict_type, role FROM authority_roles`)
	return p, err
}

// typeMap reads a table of (conflict type, text) rows.
func (t *Tx) typeMap(query string) (map[model.ConflictType]string, error) {
	out := map[model.ConflictType]string{}
	rows, err := t.query(query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var ct, v string
		if err := rows.Scan(&ct, &v); err != nil {
			return nil, err
		}
		out[model.ConflictType(ct)] = v
	}
	return out, rows.Err()
}

// formatPolicyOptions is the field format that added recusal,
// operator_override, owners and the escalation defaults.
const formatPolicyOptions = 4

// PolicySet replaces the field's governance.
func (t *Tx) PolicySet(p model.Policy) error {
	roles, err := json.Marshal(nonNil(p.VoterRoles))
	if err != nil {
		return err
	}
	if _, err := t.exec(`INSERT INTO policy (id, level, quorum, tie, voter_min_authority, voter_roles)
		VALUES (1, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET level = excluded.level, quorum = excluded.quorum,
			tie = excluded.tie, voter_min_authority = excluded.voter_min_authority,
			voter_roles = excluded.voter_roles`,
		p.Level, p.Quorum, string(p.Tie), p.VoterMinAuthority, string(roles)); err != nil {
		return err
	}
	if Version >= formatPolicyOptions {
		if _, err := t.exec(`UPDATE policy SET recusal = ?, operator_override = ?, owners_decide = ?,
			escalation_timeout_ms = ?, escalation_fallback = ?, vote_min_ballots = ? WHERE id = 1`,
			p.Recusal, p.OperatorOverride, p.OwnersDecide, p.EscalationTimeout.Milliseconds(),
			string(p.EscalationFallback), max(1, p.VoteMinBallots)); err != nil {
			return err
		}
		if _, err := t.exec(`DELETE FROM owners`); err != nil {
			return err
		}
		for ct, owner := range p.Owners {
			if _, err := t.exec(`INSERT INTO owners (conflict_type, owner) VALUES (?, ?)`, string(ct), owner); err != nil {
				return err
			}
		}
	}
	if _, err := t.exec(`DELETE FROM authority_roles`); err != nil {
		return err
	}
	for ct, role := range p.AuthorityRoles {
		if _, err := t.exec(`INSERT INTO authority_roles (conflict_type, role) VALUES (?, ?)`, string(ct), role); err != nil {
			return err
		}
	}
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
