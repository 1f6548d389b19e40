package postgres

import "arbiter/model"

// AgentInsert registers a. A database role bound to it must exist on the
// server.
func (t *Tx) AgentInsert(a model.Agent, epoch int64) error {
	if a.DBRole != "" {
		var exists bool
		if err := t.row(`SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, a.DBRole).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			return model.Errorf(model.OpRegister, model.CodeInvalidRequest, "create the role first (docs/postgres.md), or leave out --db-role",
				"the server has no role %q to bind %s to", a.DBRole, a.ID)
		}
	}
	return t.Tx.AgentInsert(a, epoch)
}
