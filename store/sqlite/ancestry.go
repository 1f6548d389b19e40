package sqlite

// Supersedes lists the units id carries a supersedes relation to, by id;
// a relation to a unit the field does not hold (written by another
// program) is left out. The walk back to a conflict's common ancestor
// (review) asks it once per unit it reaches.
func (t *Tx) Supersedes(id string) ([]string, error) {
	rows, err := t.query(supersedesSQL, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var target string
		if err := rows.Scan(&target); err != nil {
			return nil, err
		}
		out = append(out, target)
	}
	return out, rows.Err()
}

// supersedesSQL reads the relations table's primary key (unit_id, type,
// target_id) and the units' unique id index.
const supersedesSQL = `SELECT r.target_id FROM relations r JOIN units u ON u.id = r.target_id
	WHERE r.unit_id = ? AND r.type = 'supersedes' ORDER BY r.target_id`
