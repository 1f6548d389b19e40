package sqlite

import (
	"errors"
	"strings"

	"arbiter/model"
	"arbiter/store"
)

// UnitSearch lists the units whose text has every word of words as the
// beginning of one of its words (units_text), after seq after, at most
// limit.
func (t *Tx) UnitSearch(words []string, after int64, limit int) ([]model.UnitHit, error) {
	var match []string
	for _, w := range words {
		match = append(match, `"`+strings.ReplaceAll(w, `"`, `""`)+`"*`)
	}
	if len(match) == 0 {
		return nil, nil
	}
	rows, err := t.query(`SELECT seq, `+unitCols+` FROM units
		WHERE seq IN (SELECT rowid FROM units_text WHERE units_text MATCH ?) AND seq > ?
		ORDER BY seq LIMIT ?`, strings.Join(match, " AND "), after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.UnitHit
	for rows.Next() {
		var h model.UnitHit
		if h.Unit, err = scanUnit(rowAfter{rows, &h.Seq}); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// rowAfter scans its first column into first, then the rest as asked.
type rowAfter struct {
	sc    interface{ Scan(...any) error }
	first any
}

func (r rowAfter) Scan(dest ...any) error { return r.sc.Scan(append([]any{r.first}, dest...)...) }

const keyCols = `fingerprint, agent_id, public_key, comment, added_by, added_at`

func scanKey(sc interface{ Scan(...any) error }) (model.Key, error) {
	var k model.Key
	var at string
	err := sc.Scan(&k.Fingerprint, &k.AgentID, &k.PublicKey, &k.Comment, &k.AddedBy, &at)
	k.AddedAt = parseTime(at)
	return k, err
}

// KeyInsert stores k, unless its fingerprint is stored already.
func (t *Tx) KeyInsert(k model.Key) error {
	if _, err := t.KeyByFingerprint(k.Fingerprint); err == nil {
		return store.ErrExists
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	_, err := t.exec(`INSERT INTO ssh_keys (`+keyCols+`) VALUES (?, ?, ?, ?, ?, ?)`,
		k.Fingerprint, k.AgentID, k.PublicKey, k.Comment, k.AddedBy, fmtTime(k.AddedAt))
	return err
}

// KeyByFingerprint looks up a key; ErrNotFound if there is none.
func (t *Tx) KeyByFingerprint(fingerprint string) (model.Key, error) {
	k, err := scanKey(t.row(`SELECT `+keyCols+` FROM ssh_keys WHERE fingerprint = ?`, fingerprint))
	return k, notFound(err)
}

// KeyList lists the keys by agent, then fingerprint.
func (t *Tx) KeyList() ([]model.Key, error) {
	rows, err := t.query(`SELECT ` + keyCols + ` FROM ssh_keys ORDER BY agent_id, fingerprint`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// KeyDelete removes agentID's key fingerprint.
func (t *Tx) KeyDelete(agentID, fingerprint string) (bool, error) {
	res, err := t.exec(`DELETE FROM ssh_keys WHERE agent_id = ? AND fingerprint = ?`, agentID, fingerprint)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

const tokenCols = `hash, prefix, agent_id, issued_by, issued_at`

func scanToken(sc interface{ Scan(...any) error }) (model.Token, error) {
	var k model.Token
	var at string
	err := sc.Scan(&k.Hash, &k.Prefix, &k.AgentID, &k.IssuedBy, &at)
	k.IssuedAt = parseTime(at)
	return k, err
}

// TokenInsert stores a token's record, unless its hash is stored already.
func (t *Tx) TokenInsert(k model.Token) error {
	if _, err := t.TokenByHash(k.Hash); err == nil {
		return store.ErrExists
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	_, err := t.exec(`INSERT INTO tokens (`+tokenCols+`) VALUES (?, ?, ?, ?, ?)`,
		k.Hash, k.Prefix, k.AgentID, k.IssuedBy, fmtTime(k.IssuedAt))
	return err
}

// TokenByHash looks up a token by its hash; ErrNotFound if there is none.
func (t *Tx) TokenByHash(hash string) (model.Token, error) {
	k, err := scanToken(t.row(`SELECT `+tokenCols+` FROM tokens WHERE hash = ?`, hash))
	return k, notFound(err)
}

// TokenList lists the tokens by agent, then issue time.
func (t *Tx) TokenList() ([]model.Token, error) {
	rows, err := t.query(`SELECT ` + tokenCols + ` FROM tokens ORDER BY agent_id, issued_at, prefix`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.Token
	for rows.Next() {
		k, err := scanToken(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// TokenDelete removes agent id's tokens, or the token with prefix id.
func (t *Tx) TokenDelete(id string) (int, error) {
	res, err := t.exec(`DELETE FROM tokens WHERE agent_id = ? OR prefix = ?`, id, id)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
