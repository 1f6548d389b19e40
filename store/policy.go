package store

import (
	"encoding/json"

	"arbiter/model"
)

// Policy reads the field's governance.
func (t *Tx) Policy() (model.Policy, error) {
	var p model.Policy
	var roles string
	err := t.row(`SELECT level, quorum, tie, voter_min_authority, voter_roles, recusal, operator_override FROM policy WHERE id = 1`).
		Scan(&p.Level, &p.Quorum, &p.Tie, &p.VoterMinAuthority, &roles, &p.Recusal, &p.OperatorOverride)
	// (Fields of an older format are upgraded as they open, so the
	// columns are there.)
	if err != nil {
		return p, notFound(err)
	}
	if err := json.Unmarshal([]byte(roles), &p.VoterRoles); err != nil {
		return p, err
	}
	p.AuthorityRoles = map[model.ConflictType]string{}
	rows, err := t.query(`SELECT conflict_type, role FROM authority_roles`)
	if err != nil {
		return p, err
	}
	defer rows.Close()
	for rows.Next() {
		var ct, role string
		if err := rows.Scan(&ct, &role); err != nil {
			return p, err
		}
		p.AuthorityRoles[model.ConflictType(ct)] = role
	}
	return p, rows.Err()
}

// formatPolicyOptions is the field format that added recusal and
// operator_override.
const formatPolicyOptions = 4

// SetPolicy replaces the field's governance.
func (t *Tx) SetPolicy(p model.Policy) error {
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
		if _, err := t.exec(`UPDATE policy SET recusal = ?, operator_override = ? WHERE id = 1`, p.Recusal, p.OperatorOverride); err != nil {
			return err
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
