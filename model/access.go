package model

import "time"

// OpAccess is arbiter's: a human operator lets a person in over SSH or an
// agent in over HTTP (`arbiter keys`, `arbiter tokens`), or takes it back.
const OpAccess = "ACCESS"

// Key is a person's SSH public key: whoever holds its private half opens
// the review screen as AgentID on `arbiter serve`.
type Key struct {
	AgentID string `json:"agent_id"`
	// Fingerprint is OpenSSH's: SHA256: and the unpadded base64 of the
	// key's hash.
	Fingerprint string `json:"fingerprint"`
	// PublicKey is the key in authorized_keys form, without a comment.
	PublicKey string    `json:"public_key"`
	Comment   string    `json:"comment,omitempty"`
	AddedBy   string    `json:"added_by"`
	AddedAt   time.Time `json:"added_at"`
}

// Token is what the field keeps of a bearer token for `arbiter serve`'s
// MCP endpoint: the SHA-256 of the token, never the token, and its first
// characters, to name it by.
type Token struct {
	AgentID  string    `json:"agent_id"`
	Prefix   string    `json:"prefix"`
	Hash     string    `json:"-"`
	IssuedBy string    `json:"issued_by"`
	IssuedAt time.Time `json:"issued_at"`
}

// UnitHit is a unit a search found, with its place in the field's order
// of units (the cursor to read on after it).
type UnitHit struct {
	Seq  int64
	Unit Unit
}
