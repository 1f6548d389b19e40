package postgres

import (
	"errors"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// UnitSearch lists the units whose text has every word of words as the
// beginning of one of its words (units_words, folded as conflict_words),
// after seq after, at most limit.
func (t *Tx) UnitSearch(words []string, after int64, limit int) ([]model.UnitHit, error) {
	var parts []string
	for _, w := range words {
		if q := prefixQuery(w); q != "" {
			parts = append(parts, "("+q+")")
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	rows, err := t.query(`SELECT seq, `+unitCols+` FROM units
		WHERE to_tsvector('simple', fold(left(content, 262144))) @@ to_tsquery('simple', fold($1)) AND seq > $2
		ORDER BY seq LIMIT $3`, strings.Join(parts, " & "), after, limit)
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
	var at time.Time
	err := sc.Scan(&k.Fingerprint, &k.AgentID, &k.PublicKey, &k.Comment, &k.AddedBy, &at)
	k.AddedAt = at.UTC()
	return k, err
}

// KeyInsert stores k, unless its fingerprint is stored already.
func (t *Tx) KeyInsert(k model.Key) error {
	if _, err := t.KeyByFingerprint(k.Fingerprint); err == nil {
		return store.ErrExists
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	_, err := t.exec(`INSERT INTO ssh_keys (`+keyCols+`) VALUES ($1, $2, $3, $4, $5, $6)`,
		k.Fingerprint, k.AgentID, k.PublicKey, k.Comment, k.AddedBy, k.AddedAt)
	return err
}

// KeyByFingerprint looks up a key; ErrNotFound if there is none.
func (t *Tx) KeyByFingerprint(fingerprint string) (model.Key, error) {
	k, err := scanKey(t.row(`SELECT `+keyCols+` FROM ssh_keys WHERE fingerprint = $1`, fingerprint))
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
	tag, err := t.exec(`DELETE FROM ssh_keys WHERE agent_id = $1 AND fingerprint = $2`, agentID, fingerprint)
	return tag.RowsAffected() > 0, err
}

const tokenCols = `hash, prefix, agent_id, issued_by, issued_at`

func scanToken(sc interface{ Scan(...any) error }) (model.Token, error) {
	var k model.Token
	var at time.Time
	err := sc.Scan(&k.Hash, &k.Prefix, &k.AgentID, &k.IssuedBy, &at)
	k.IssuedAt = at.UTC()
	return k, err
}

// TokenInsert stores a token's record, unless its hash is stored already.
func (t *Tx) TokenInsert(k model.Token) error {
	if _, err := t.TokenByHash(k.Hash); err == nil {
		return store.ErrExists
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	_, err := t.exec(`INSERT INTO tokens (`+tokenCols+`) VALUES ($1, $2, $3, $4, $5)`,
		k.Hash, k.Prefix, k.AgentID, k.IssuedBy, k.IssuedAt)
	return err
}

// TokenByHash looks up a token by its hash; ErrNotFound if there is none.
func (t *Tx) TokenByHash(hash string) (model.Token, error) {
	k, err := scanToken(t.row(`SELECT `+tokenCols+` FROM tokens WHERE hash = $1`, hash))
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
	tag, err := t.exec(`DELETE FROM tokens WHERE agent_id = $1 OR prefix = $1`, id)
	return int(tag.RowsAffected()), err
}
