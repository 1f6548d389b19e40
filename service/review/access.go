package review

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"arbiter/model"
	"arbiter/store"
)

// Who may come in to `arbiter serve`: people by their SSH keys, agents by
// bearer tokens. A human operator adds and removes both; the field keeps
// a token's hash, never the token.

// TokenPrefix begins every bearer token arbiter issues.
const TokenPrefix = "arb_"

// tokenShown is how many characters of a token name it (its prefix).
const tokenShown = len(TokenPrefix) + 8

// operator checks that callerID is a human operator.
func operator(tx store.Tx, callerID, what string) error {
	a, err := caller(tx, model.OpAccess, callerID)
	if err != nil {
		return err
	}
	if !a.IsHumanOperator() {
		return model.Errorf(model.OpAccess, model.CodeNotPermitted, "ask a human operator",
			"only a human operator (authority 10) %s; %s has %d", what, a.ID, a.Authority)
	}
	return nil
}

// KeyAdd stores k, a public key of the person k.AgentID, for callerID, a
// human operator. The key must be new to the field.
func (s *Service) KeyAdd(ctx context.Context, callerID string, k model.Key) error {
	return s.write(ctx, model.OpAccess, func(tx store.Tx) error {
		if err := operator(tx, callerID, "adds keys"); err != nil {
			return err
		}
		who, err := tx.Agent(k.AgentID)
		if errors.Is(err, store.ErrNotFound) {
			return model.Errorf(model.OpAccess, model.CodeAgentNotRegistered, "register the person first with `arbiter register --kind human`",
				"%q is not registered", k.AgentID)
		}
		if err != nil {
			return err
		}
		if who.Kind != model.KindHuman {
			return model.Errorf(model.OpAccess, model.CodeInvalidRequest, "give an agent a token instead (`arbiter tokens issue`)",
				"%s is an agent, not a person: SSH keys open the review screen for people", who.ID)
		}
		k.AddedBy, k.AddedAt = callerID, s.now().UTC()
		err = tx.KeyInsert(k)
		if errors.Is(err, store.ErrExists) {
			prev, _ := tx.KeyByFingerprint(k.Fingerprint)
			return model.Errorf(model.OpAccess, model.CodeInvalidRequest, "each key lets in one person",
				"the key %s is already %s's", k.Fingerprint, prev.AgentID)
		}
		return err
	})
}

// KeyRemove removes agentID's key fingerprint, for callerID, a human
// operator.
func (s *Service) KeyRemove(ctx context.Context, callerID, agentID, fingerprint string) error {
	return s.write(ctx, model.OpAccess, func(tx store.Tx) error {
		if err := operator(tx, callerID, "removes keys"); err != nil {
			return err
		}
		ok, err := tx.KeyDelete(agentID, fingerprint)
		if err == nil && !ok {
			return model.Errorf(model.OpAccess, model.CodeInvalidRequest, "`arbiter keys list` shows them",
				"%s has no key %s", agentID, fingerprint)
		}
		return err
	})
}

// Keys lists the keys of people.
func (s *Service) Keys(ctx context.Context) ([]model.Key, error) {
	var out []model.Key
	err := s.st.Read(ctx, func(tx store.Tx) (err error) { out, err = tx.KeyList(); return err })
	return out, err
}

// KeyOwner is the registered person whose key has fingerprint; ok is false
// for a key the field does not know, or whose person is no longer
// registered as one.
func (s *Service) KeyOwner(ctx context.Context, fingerprint string) (a model.Agent, ok bool, err error) {
	err = s.st.Read(ctx, func(tx store.Tx) error {
		k, err := tx.KeyByFingerprint(fingerprint)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		a, err = tx.Agent(k.AgentID)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		ok = err == nil && a.Kind == model.KindHuman
		return err
	})
	return a, ok, err
}

// TokenIssue makes a bearer token for the agent agentID, for callerID, a
// human operator, and returns it: the only time anyone sees it, since the
// field keeps its hash. People get SSH keys, not tokens.
func (s *Service) TokenIssue(ctx context.Context, callerID, agentID string) (string, model.Token, error) {
	token := TokenPrefix + strings.ToLower(rand.Text())
	rec := model.Token{AgentID: agentID, Prefix: token[:tokenShown], Hash: TokenHash(token), IssuedBy: callerID}
	err := s.write(ctx, model.OpAccess, func(tx store.Tx) error {
		if err := operator(tx, callerID, "issues tokens"); err != nil {
			return err
		}
		who, err := tx.Agent(agentID)
		if errors.Is(err, store.ErrNotFound) {
			return model.Errorf(model.OpAccess, model.CodeAgentNotRegistered, "register the agent first with `arbiter register`",
				"%q is not a registered agent", agentID)
		}
		if err != nil {
			return err
		}
		if who.Kind == model.KindHuman {
			return model.Errorf(model.OpAccess, model.CodeInvalidRequest, "add the person's SSH key instead (`arbiter keys add`)",
				"%s is a person: tokens are for agents", who.ID)
		}
		rec.IssuedAt = s.now().UTC()
		return tx.TokenInsert(rec)
	})
	if err != nil {
		return "", model.Token{}, err
	}
	return token, rec, nil
}

// TokenRevoke removes the tokens of agent id, or the one token whose
// prefix is id, for callerID, a human operator, and returns how many.
func (s *Service) TokenRevoke(ctx context.Context, callerID, id string) (int, error) {
	var n int
	err := s.write(ctx, model.OpAccess, func(tx store.Tx) (err error) {
		if err := operator(tx, callerID, "revokes tokens"); err != nil {
			return err
		}
		if n, err = tx.TokenDelete(id); err == nil && n == 0 {
			return model.Errorf(model.OpAccess, model.CodeInvalidRequest, "`arbiter tokens list` shows them",
				"no token is %s's, or begins %s", id, id)
		}
		return err
	})
	return n, err
}

// Tokens lists the tokens' records.
func (s *Service) Tokens(ctx context.Context) ([]model.Token, error) {
	var out []model.Token
	err := s.st.Read(ctx, func(tx store.Tx) (err error) { out, err = tx.TokenList(); return err })
	return out, err
}

// TokenAgent is the registered agent token was issued to; ok is false for
// a token the field does not hold (never issued, or revoked).
func (s *Service) TokenAgent(ctx context.Context, token string) (a model.Agent, ok bool, err error) {
	if !strings.HasPrefix(token, TokenPrefix) {
		return a, false, nil
	}
	err = s.st.Read(ctx, func(tx store.Tx) error {
		rec, err := tx.TokenByHash(TokenHash(token))
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		a, err = tx.Agent(rec.AgentID)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		ok = err == nil && a.Kind != model.KindHuman
		return err
	})
	return a, ok, err
}

// TokenHash is what the field keeps of a token: its SHA-256, in hex. A
// token is 130 random bits, so a plain hash is enough to keep it from
// anyone who reads the field.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// SearchUnits lists the units whose text has every word of words (the
// beginning of one of its words), after the unit at sequence number
// after, at most limit.
func (s *Service) SearchUnits(ctx context.Context, words []string, after int64, limit int) ([]model.UnitHit, error) {
	var out []model.UnitHit
	err := s.st.Read(ctx, func(tx store.Tx) (err error) { out, err = tx.UnitSearch(words, after, limit); return err })
	return out, err
}
