package sqlcore

import "arbiter/model"

// Forks and joins (docs/fork-join.md).

// FieldLinks lists what the field knows of itself and of the fields it
// was forked from or to, by kind, then uid.
func (t *Tx) FieldLinks() ([]model.FieldLink, error) {
	links, err := Collect(t.E, `SELECT uid, kind, name, base_epoch, joined_epoch FROM field_links ORDER BY kind, uid`, nil,
		func(r Row) (model.FieldLink, error) {
			var l model.FieldLink
			var kind string
			err := r.Scan(&l.UID, &kind, &l.Name, &l.BaseEpoch, &l.JoinedEpoch)
			l.Kind = model.LinkKind(kind)
			return l, err
		})
	if len(links) == 0 {
		links = nil
	}
	return links, err
}

// FieldLinkPut stores l, replacing the link of the same uid.
func (t *Tx) FieldLinkPut(l model.FieldLink) error {
	return t.exec(`INSERT INTO field_links (uid, kind, name, base_epoch, joined_epoch) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (uid) DO UPDATE SET kind = excluded.kind, name = excluded.name,
			base_epoch = excluded.base_epoch, joined_epoch = excluded.joined_epoch`,
		l.UID, string(l.Kind), l.Name, l.BaseEpoch, l.JoinedEpoch)
}

// FieldLinkDelete removes the link of uid, if there is one.
func (t *Tx) FieldLinkDelete(uid string) error {
	return t.exec(`DELETE FROM field_links WHERE uid = $1`, uid)
}

const provenanceCols = `kind, id, fork_uid, fork_name, fork_id, epoch`

func scanProvenance(r Row) (model.Provenance, error) {
	var p model.Provenance
	var kind string
	err := r.Scan(&kind, &p.ID, &p.ForkUID, &p.ForkName, &p.ForkID, &p.Epoch)
	p.Kind = model.ProvenanceKind(kind)
	return p, err
}

// Provenance is where the unit or conflict id came from; ErrNotFound when
// no join brought it.
func (t *Tx) Provenance(kind model.ProvenanceKind, id string) (model.Provenance, error) {
	return scanProvenance(QueryRow(t.E, `SELECT `+provenanceCols+` FROM provenance WHERE kind = $1 AND id = $2`, string(kind), id))
}

// ProvenanceByFork finds what a join made of the fork's forkID;
// ErrNotFound when no join brought it.
func (t *Tx) ProvenanceByFork(forkUID string, kind model.ProvenanceKind, forkID string) (model.Provenance, error) {
	return scanProvenance(QueryRow(t.E, `SELECT `+provenanceCols+` FROM provenance WHERE fork_uid = $1 AND kind = $2 AND fork_id = $3`,
		forkUID, string(kind), forkID))
}

// ProvenancePut stores p.
func (t *Tx) ProvenancePut(p model.Provenance) error {
	return t.exec(`INSERT INTO provenance (`+provenanceCols+`) VALUES ($1, $2, $3, $4, $5, $6)`,
		string(p.Kind), p.ID, p.ForkUID, p.ForkName, p.ForkID, p.Epoch)
}

// ProvenanceEach yields every provenance by kind, then id.
func (t *Tx) ProvenanceEach(fn func(model.Provenance) error) error {
	return EachOf(t.E, `SELECT `+provenanceCols+` FROM provenance ORDER BY kind, id`, nil, scanProvenance, fn)
}
