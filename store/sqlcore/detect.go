package sqlcore

import (
	"strconv"

	"arbiter/model"
	"arbiter/store"
)

// What finding the contradictions nobody declared reads and keeps
// (docs/detection.md): units by purpose, by sequence number and in
// batches; the pairs people dismissed; where the scan stands. The word
// index's candidates are each engine's own (UnitCandidates).

// PurposeKey is how much of a purpose units_purpose indexes: a
// PostgreSQL b-tree takes no more than a few KB a row, and a purpose that
// long is a document, not a purpose.
const PurposeKey = 200

// purposeKey is the expression units_purpose indexes, of purpose.
func purposeKey(purpose string) string {
	return "substr(" + purpose + ", 1, " + strconv.Itoa(PurposeKey) + ")"
}

// Statements of detection.
var (
	// UnitsByPurposeSQL reads units_purpose (the purpose's first
	// PurposeKey characters, then seq) backwards from before, and nothing
	// else: two purposes that begin with the same 200 characters are one
	// purpose here. (With the whole purpose compared too, PostgreSQL read
	// every unit of a common purpose to sort them: 20 ms for 3,000.)
	UnitsByPurposeSQL = `SELECT seq FROM units
	WHERE ` + purposeKey("intent_purpose") + ` = ` + purposeKey("$1") + ` AND seq < $2
	ORDER BY seq DESC LIMIT $3`
	unitsAfterSQL = `SELECT seq, ` + UnitCols + ` FROM units WHERE seq > $1 AND epoch > $2 ORDER BY seq LIMIT $3`
	dismissSQL    = `INSERT INTO detect_dismissed (unit_a, unit_b, dismissed_by, dismissed_at, conflict_id)
	VALUES ($1, $2, $3, $4, $5)
	ON CONFLICT (unit_a, unit_b) DO UPDATE SET dismissed_by = excluded.dismissed_by,
		dismissed_at = excluded.dismissed_at, conflict_id = excluded.conflict_id`
	scanCols    = `since_epoch, cursor_seq, sensitivity, units_done, found, started_at, updated_at, finished_at`
	scanSaveSQL = `INSERT INTO detect_scan (id, ` + scanCols + `) VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8)
	ON CONFLICT (id) DO UPDATE SET since_epoch = excluded.since_epoch, cursor_seq = excluded.cursor_seq,
		sensitivity = excluded.sensitivity, units_done = excluded.units_done, found = excluded.found,
		started_at = excluded.started_at, updated_at = excluded.updated_at, finished_at = excluded.finished_at`
)

// UnitsByPurpose lists the sequence numbers of the newest units before
// seq before whose purpose begins as purpose does (its first PurposeKey
// characters), at most limit, newest first.
func (t *Tx) UnitsByPurpose(purpose string, before int64, limit int) ([]int64, error) {
	return Collect(t.E, UnitsByPurposeSQL, []any{purpose, before, limit}, int64Of)
}

// UnitsBySeq reads the units at seqs, in seqs' order, without their
// relations; numbers the field does not hold are left out.
func (t *Tx) UnitsBySeq(seqs []int64) ([]model.UnitHit, error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	args := make([]any, len(seqs))
	for i, s := range seqs {
		args[i] = s
	}
	got, err := t.unitHits(`SELECT seq, `+UnitCols+` FROM units WHERE seq IN (`+Places(1, len(seqs))+`)`, args...)
	if err != nil {
		return nil, err
	}
	at := make(map[int64]int, len(got))
	for i, h := range got {
		at[h.Seq] = i
	}
	out := make([]model.UnitHit, 0, len(got))
	for _, s := range seqs {
		if i, ok := at[s]; ok {
			out = append(out, got[i])
			delete(at, s) // a number asked twice is given once
		}
	}
	return out, nil
}

// UnitsAfter reads at most limit units after seq after recorded after
// epoch since, by sequence number, without their relations.
func (t *Tx) UnitsAfter(after, since int64, limit int) ([]model.UnitHit, error) {
	return t.unitHits(unitsAfterSQL, after, since, limit)
}

func (t *Tx) unitHits(query string, args ...any) ([]model.UnitHit, error) {
	return Collect(t.E, query, args, func(r Row) (model.UnitHit, error) {
		var h model.UnitHit
		var err error
		h.Unit, err = ScanUnit(rowAfter{r, []any{&h.Seq}})
		return h, err
	})
}

func int64Of(r Row) (int64, error) {
	var n int64
	err := r.Scan(&n)
	return n, err
}

// DetectDismiss keeps d's pair as not a contradiction.
func (t *Tx) DetectDismiss(d model.Dismissed) error {
	a, b := model.Pair(d.UnitA, d.UnitB)
	return t.exec(dismissSQL, a, b, d.By, d.At, d.ConflictID)
}

// DetectDismissed reports whether units a and b are kept as not a
// contradiction.
func (t *Tx) DetectDismissed(a, b string) (bool, error) {
	a, b = model.Pair(a, b)
	var one int
	err := QueryRow(t.E, `SELECT 1 FROM detect_dismissed WHERE unit_a = $1 AND unit_b = $2`, a, b).Scan(&one)
	if err == store.ErrNotFound {
		return false, nil
	}
	return err == nil, err
}

// DetectUndismiss forgets that units a and b were said not to
// contradict each other.
func (t *Tx) DetectUndismiss(a, b string) error {
	a, b = model.Pair(a, b)
	return t.exec(`DELETE FROM detect_dismissed WHERE unit_a = $1 AND unit_b = $2`, a, b)
}

// DetectDismissedEach yields every dismissed pair, by pair.
func (t *Tx) DetectDismissedEach(fn func(model.Dismissed) error) error {
	return EachOf(t.E, `SELECT unit_a, unit_b, dismissed_by, dismissed_at, conflict_id FROM detect_dismissed
		ORDER BY unit_a, unit_b`, nil, func(r Row) (model.Dismissed, error) {
		var d model.Dismissed
		var at Time
		err := r.Scan(&d.UnitA, &d.UnitB, &d.By, &at, &d.ConflictID)
		d.At = at.T
		return d, err
	}, fn)
}

// DetectScan is where the field's scan stands; ErrNotFound before the
// first.
func (t *Tx) DetectScan() (model.ScanState, error) {
	var s model.ScanState
	var started, updated, finished Time
	err := QueryRow(t.E, `SELECT `+scanCols+` FROM detect_scan WHERE id = 1`).Scan(&s.SinceEpoch, &s.Cursor,
		&s.Sensitivity, &s.Done, &s.Found, &started, &updated, &finished)
	s.StartedAt, s.UpdatedAt, s.FinishedAt = started.T, updated.T, finished.Ptr()
	return s, err
}

// DetectScanSave replaces where the field's scan stands.
func (t *Tx) DetectScanSave(s model.ScanState) error {
	return t.exec(scanSaveSQL, s.SinceEpoch, s.Cursor, string(s.Sensitivity.Or()), s.Done, s.Found,
		s.StartedAt, s.UpdatedAt, s.FinishedAt)
}

// EstimateHolders is how many of the units before seq before hold a word
// whose newest holders, newest first, are hits, at most perTerm: exactly
// len(hits) when fewer came back, else as many as the same density
// gives over all the units before it.
func EstimateHolders(hits []int64, perTerm int, before int64) int {
	if len(hits) < perTerm || len(hits) == 0 {
		return len(hits)
	}
	span := before - hits[len(hits)-1]
	if span <= 0 {
		return len(hits)
	}
	return int(max(int64(len(hits)), int64(len(hits))*(before-1)/span))
}
