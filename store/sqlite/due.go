package sqlite

// ConflictSetReminded records the reminders sent on id's route, as a
// compare-and-set on the count: ErrStale if it is no longer from. The
// version stays.
func (t *Tx) ConflictSetReminded(id string, from, reminders int) error {
	r, err := t.exec(`UPDATE conflicts SET reminded = $1 WHERE id = $2 AND reminded = $3`, reminders, id, from)
	if err != nil {
		return err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return ErrStale
	}
	return nil
}
