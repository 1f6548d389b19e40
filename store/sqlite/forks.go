package sqlite

import "arbiter/model"

// FieldLinks lists what the field knows of itself and of the fields it
// was forked from or to, by kind, then uid.
func (t *Tx) FieldLinks() ([]model.FieldLink, error) {
	rows, err := t.query(`SELECT uid, kind, name, base_epoch, joined_epoch FROM field_links ORDER BY kind, uid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.FieldLink
	for rows.Next() {
		var l model.FieldLink
		if err := rows.Scan(&l.UID, &l.Kind, &l.Name, &l.BaseEpoch, &l.JoinedEpoch); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// FieldLinkPut stores l, replacing the link of the same uid.
func (t *Tx) FieldLinkPut(l model.FieldLink) error {
	_, err := t.exec(`INSERT INTO field_links (uid, kind, name, base_epoch, joined_epoch) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (uid) DO UPDATE SET kind = excluded.kind, name = excluded.name,
			base_epoch = excluded.base_epoch, joined_epoch = excluded.joined_epoch`,
		l.UID, string(l.Kind), l.Name, l.BaseEpoch, l.JoinedEpoch)
	return err
}

const provenanceCols = `kind, id, fork_uid, fork_name, fork_id, epoch`

func scanProvenance(sc interface{ Scan(...any) error }) (model.Provenance, error) {
	var p model.Provenance
	err := sc.Scan(&p.Kind, &p.ID, &p.ForkUID, &p.ForkName, &p.ForkID, &p.Epoch)
	return p, notFound(err)
}

// Provenance is where the unit or conflict id came from; ErrNotFound when
// no join brought it.
func (t *Tx) Provenance(kind model.ProvenanceKind, id string) (model.Provenance, error) {
	return scanProvenance(t.row(`SELECT `+provenanceCols+` FROM provenance WHERE kind = ? AND id = ?`, string(kind), id))
}

// ProvenanceByFork finds what a join made of the fork's forkID;
// ErrNotFound when no join brought it.
func (t *Tx) ProvenanceByFork(forkUID string, kind model.ProvenanceKind, forkID string) (model.Provenance, error) {
	return scanProvenance(t.row(`SELECT `+provenanceCols+` FROM provenance WHERE fork_uid = ? AND kind = ? AND fork_id = ?`,
		forkUID, string(kind), forkID))
}

// ProvenancePut stores p.
func (t *Tx) ProvenancePut(p model.Provenance) error {
	_, err := t.exec(`INSERT INTO provenance (`+provenanceCols+`) VALUES (?, ?, ?, ?, ?, ?)`,
		string(p.Kind), p.ID, p.ForkUID, p.ForkName, p.ForkID, p.Epoch)
	return err
}

// FieldLinkDelete removes the link of uid, if there is one.
func (t *Tx) FieldLinkDelete(uid string) error {
	_, err := t.exec(`DELETE FROM field_links WHERE uid = ?`, uid)
	return err
}

// ProvenanceEach yields every provenance by kind, then id.
func (t *Tx) ProvenanceEach(fn func(model.Provenance) error) error {
	rows, err := t.query(`SELECT ` + provenanceCols + ` FROM provenance ORDER BY kind, id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		p, err := scanProvenance(rows)
		if err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
	return rows.Err()
}

// UnitEachSince yields the units recorded after epoch, by sequence
// number, with their relations.
func (t *Tx) UnitEachSince(epoch int64, fn func(int64, model.Unit) error) error {
	return t.unitEach(`FROM units WHERE epoch > ? ORDER BY seq`, fn, epoch)
}
