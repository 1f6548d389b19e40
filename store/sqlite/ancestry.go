package sqlite

// Supersedes lists the units id carries a supersedes relation to, by id;
// a relation to a unit the field does not hold (written by another
// program) is left out. The walk back to a conflict's common ancestor
// (review) asks it once per unit it reaches.
func (t *Tx) Supersedes(id string) ([]string, error) {
	out, err := t.strings(supersedesSQL, id)
	if len(out) == 0 {
		out = nil
	}
	return out, err
}

// supersedesSQL reads the relations table's primary key (unit_id, type,
// target_id) and the units' unique id index.
const supersedesSQL = `SELECT r.target_id FROM relations r JOIN units u ON u.id = r.target_id
	WHERE r.unit_id = ? AND r.type = 'supersedes' ORDER BY r.target_id`
