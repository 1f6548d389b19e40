package postgres

import (
	"time"

	"arbiter/model"
)

const agentCols = `id, role, kind, authority, status, registered_at, coalesce(db_role, '')`

func scanAgent(sc interface{ Scan(...any) error }, extra ...any) (model.Agent, error) {
	var a model.Agent
	var at time.Time
	err := sc.Scan(append([]any{&a.ID, &a.Role, &a.Kind, &a.Authority, &a.Status, &at, &a.DBRole}, extra...)...)
	a.RegisteredAt = at.UTC()
	return a, err
}

// Agent looks up a registered agent; ErrNotFound if there is none.
func (t *Tx) Agent(id string) (model.Agent, error) {
	a, err := scanAgent(t.row(`SELECT `+agentCols+` FROM agents WHERE id = $1`, id))
	return a, notFound(err)
}

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
	_, err := t.exec(`INSERT INTO agents (id, role, kind, authority, status, registered_at, db_role, epoch)
		VALUES ($1, $2, $3, $4, $5, $6, nullif($7, ''), $8)`,
		a.ID, a.Role, string(a.Kind), a.Authority, string(a.Status), a.RegisteredAt, a.DBRole, epoch)
	return err
}

// Agents lists every registered agent by id.
func (t *Tx) Agents() ([]model.Agent, error) {
	rows, err := t.query(`SELECT ` + agentCols + ` FROM agents ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.Agent
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
