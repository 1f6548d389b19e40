package sqlite

// AgentActAs notes nothing: whoever can write a SQLite file may act as
// anyone. An agent's database role is stored and shown, not enforced: a
// SQLite file has no roles.
func (t *Tx) AgentActAs(string) error { return nil }
