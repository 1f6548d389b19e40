package sqlite

import (
	"arbiter/model"
)

const agentCols = `id, role, kind, authority, status, registered_at, coalesce(db_role, '')`

func scanAgent(sc interface{ Scan(...any) error }, extra ...any) (model.Agent, error) {
	var a model.Agent
	var at string
	err := sc.Scan(append([]any{&a.ID, &a.Role, &a.Kind, &a.Authority, &a.Status, &at, &a.DBRole}, extra...)...)
	a.RegisteredAt = parseTime(at)
	return a, err
}

// Agent looks up a registered agent; ErrNotFound if there is none.
func (t *Tx) Agent(id string) (model.Agent, error) {
	a, err := scanAgent(t.row(`SELECT `+agentCols+` FROM agents WHERE id = ?`, id))
	return a, notFound(err)
}

// AgentInsert registers a. Its database role is stored and shown, not
// enforced: a SQLite file has no roles.
func (t *Tx) AgentInsert(a model.Agent, epoch int64) error {
	_, err := t.exec(`INSERT INTO agents (id, role, kind, authority, status, registered_at, db_role, epoch)
		VALUES (?, ?, ?, ?, ?, ?, nullif(?, ''), ?)`,
		a.ID, a.Role, string(a.Kind), a.Authority, string(a.Status), fmtTime(a.RegisteredAt), a.DBRole, epoch)
	return err
}

// AgentActAs notes nothing: whoever can write a SQLite file may act as anyone.
func (t *Tx) AgentActAs(string) error { return nil }

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
