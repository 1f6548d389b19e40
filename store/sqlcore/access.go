package sqlcore

import (
	"errors"

	"arbiter/model"
	"arbiter/store"
)

// People's SSH keys and agents' bearer tokens.

const keyCols = `fingerprint, agent_id, public_key, comment, added_by, added_at`

func scanKey(r Row) (model.Key, error) {
	var k model.Key
	var at Time
	err := r.Scan(&k.Fingerprint, &k.AgentID, &k.PublicKey, &k.Comment, &k.AddedBy, &at)
	k.AddedAt = at.T
	return k, err
}

// KeyInsert stores k, unless its fingerprint is stored already.
func (t *Tx) KeyInsert(k model.Key) error {
	_, found := t.KeyByFingerprint(k.Fingerprint)
	return t.insertNew(found, `INSERT INTO ssh_keys (`+keyCols+`) VALUES ($1, $2, $3, $4, $5, $6)`,
		k.Fingerprint, k.AgentID, k.PublicKey, k.Comment, k.AddedBy, k.AddedAt)
}

// insertNew runs an insert unless the lookup of the row before it found
// it (store.ErrExists) or failed.
func (t *Tx) insertNew(found error, query string, args ...any) error {
	switch {
	case found == nil:
		return store.ErrExists
	case !errors.Is(found, store.ErrNotFound):
		return found
	}
	return t.exec(query, args...)
}

// KeyByFingerprint looks up a key; ErrNotFound if there is none.
func (t *Tx) KeyByFingerprint(fingerprint string) (model.Key, error) {
	return scanKey(QueryRow(t.E, `SELECT `+keyCols+` FROM ssh_keys WHERE fingerprint = $1`, fingerprint))
}

// KeyList lists the keys by agent, then fingerprint.
func (t *Tx) KeyList() ([]model.Key, error) {
	return Collect(t.E, `SELECT `+keyCols+` FROM ssh_keys ORDER BY agent_id, fingerprint`, nil, scanKey)
}

// KeyDelete removes agentID's key fingerprint.
func (t *Tx) KeyDelete(agentID, fingerprint string) (bool, error) {
	n, err := t.E.Exec(`DELETE FROM ssh_keys WHERE agent_id = $1 AND fingerprint = $2`, agentID, fingerprint)
	return n > 0, err
}

const tokenCols = `hash, prefix, agent_id, issued_by, issued_at`

func scanToken(r Row) (model.Token, error) {
	var k model.Token
	var at Time
	err := r.Scan(&k.Hash, &k.Prefix, &k.AgentID, &k.IssuedBy, &at)
	k.IssuedAt = at.T
	return k, err
}

// TokenInsert stores a token's record, unless its hash is stored already.
func (t *Tx) TokenInsert(k model.Token) error {
	_, found := t.TokenByHash(k.Hash)
	return t.insertNew(found, `INSERT INTO tokens (`+tokenCols+`) VALUES ($1, $2, $3, $4, $5)`,
		k.Hash, k.Prefix, k.AgentID, k.IssuedBy, k.IssuedAt)
}

// TokenByHash looks up a token by its hash; ErrNotFound if there is none.
func (t *Tx) TokenByHash(hash string) (model.Token, error) {
	return scanToken(QueryRow(t.E, `SELECT `+tokenCols+` FROM tokens WHERE hash = $1`, hash))
}

// TokenList lists the tokens by agent, then issue time.
func (t *Tx) TokenList() ([]model.Token, error) {
	return Collect(t.E, `SELECT `+tokenCols+` FROM tokens ORDER BY agent_id, issued_at, prefix`, nil, scanToken)
}

// TokenDelete removes agent id's tokens, or the token with prefix id.
func (t *Tx) TokenDelete(id string) (int, error) {
	n, err := t.E.Exec(`DELETE FROM tokens WHERE agent_id = $1 OR prefix = $1`, id)
	return int(n), err
}
