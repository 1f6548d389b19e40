package store

// Supersedes lists the units id carries a supersedes relation to, by id.
// The walk back to a conflict's common ancestor (review) asks it once per
// unit it reaches.
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
// target_id) only.
const supersedesSQL = `SELECT target_id FROM relations WHERE unit_id = ? AND type = 'supersedes' ORDER BY target_id`
