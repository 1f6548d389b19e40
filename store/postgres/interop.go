package postgres

import "arbiter/store/sqlcore"

// UnitSeqAlign moves a unit with an id of arbiter's own form (mem-NNN) but
// another sequence number to sequence number NNN, when that is free, and
// the sequence of units past it, so that the ids arbiter gives later
// never collide with it.
func (t *Tx) UnitSeqAlign(id string) error {
	if _, ok := sqlcore.SeqOfID(id); !ok {
		return nil
	}
	if err := t.Tx.UnitSeqAlign(id); err != nil {
		return err
	}
	_, err := t.exec(`SELECT align_numbers()`)
	return err
}
