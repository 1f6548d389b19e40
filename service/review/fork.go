package review

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"arbiter/model"
	"arbiter/store"
)

// ForkResult is what a fork made: the identities of the field and of its
// fork, the epoch they share, and what the fork holds (store.Copy).
type ForkResult struct {
	Field     string        `json:"field"`
	FieldUID  string        `json:"field_uid"`
	Fork      string        `json:"fork"`
	ForkUID   string        `json:"fork_uid"`
	BaseEpoch int64         `json:"base_epoch"`
	Summary   store.Summary `json:"summary"`
}

// ForkAgent is the agent id FORK events are logged under when nobody is
// named to act.
const ForkAgent = "fork"

// Fork copies the whole field into to, an empty field, and makes the two
// know each other (docs/fork-join.md): the field gets an identity if it
// has none, the fork one of its own; the fork records the field as its
// origin and the field the fork, each with the epoch the copy was taken
// at, and each logs a FORK event by by (ForkAgent when by is ""). The
// fork keeps the provenance of what earlier joins brought, not the
// field's links. The copy is store.Copy's: all of it or nothing; the caller removes to if
// Fork fails.
func (s *Service) Fork(ctx context.Context, by string, to store.Field) (ForkResult, error) {
	const op = model.OpFork
	r := ForkResult{Field: s.st.Name(), Fork: to.Name()}
	if by == "" {
		by = ForkAgent
	}
	err := s.write(ctx, op, func(tx store.Tx) error {
		if by != ForkAgent {
			if _, err := caller(tx, op, by); err != nil {
				return err
			}
		}
		self, err := identity(tx)
		r.FieldUID = self.UID
		return err
	})
	if err != nil {
		return r, err
	}
	if r.Summary, err = store.Copy(ctx, s.st, to); err != nil {
		return r, err
	}
	r.BaseEpoch, r.ForkUID = r.Summary.Epoch, newUID()
	payload := mustJSON(model.ForkLog{Field: r.Field, FieldUID: r.FieldUID, Fork: r.Fork, ForkUID: r.ForkUID, BaseEpoch: r.BaseEpoch})
	logFork := func(tx store.Tx) error {
		epoch, err := tx.EpochTick()
		if err != nil {
			return err
		}
		_, err = tx.EventAppend(model.Event{Epoch: epoch, Operation: op, AgentID: by, At: s.now(), Payload: payload})
		return err
	}
	err = to.Write(ctx, func(tx store.Tx) error {
		if by != ForkAgent {
			if _, err := caller(tx, op, by); err != nil {
				return err
			}
		}
		// The copy brought the field's own links: the fork has its own.
		copied, err := tx.FieldLinks()
		if err != nil {
			return err
		}
		for _, l := range copied {
			if err := tx.FieldLinkDelete(l.UID); err != nil {
				return err
			}
		}
		if err := tx.FieldLinkPut(model.FieldLink{UID: r.ForkUID, Kind: model.LinkSelf, Name: r.Fork}); err != nil {
			return err
		}
		if err := tx.FieldLinkPut(model.FieldLink{UID: r.FieldUID, Kind: model.LinkOrigin, Name: r.Field, BaseEpoch: r.BaseEpoch}); err != nil {
			return err
		}
		return logFork(tx)
	})
	if err != nil {
		return r, err
	}
	err = s.write(ctx, op, func(tx store.Tx) error {
		if by != ForkAgent {
			if _, err := caller(tx, op, by); err != nil {
				return err
			}
		}
		if err := tx.FieldLinkPut(model.FieldLink{UID: r.ForkUID, Kind: model.LinkFork, Name: r.Fork, BaseEpoch: r.BaseEpoch}); err != nil {
			return err
		}
		return logFork(tx)
	})
	return r, err
}

// identity returns the field's own link, making one (a new identity) if
// the field has none yet.
func identity(tx store.Tx) (model.FieldLink, error) {
	self, _, err := links(tx)
	if err != nil || self.UID != "" {
		return self, err
	}
	self = model.FieldLink{UID: newUID(), Kind: model.LinkSelf}
	return self, tx.FieldLinkPut(self)
}

// links returns the field's own link and the link to the field it was
// forked from (zero when there is none).
func links(tx store.Tx) (self, origin model.FieldLink, err error) {
	all, err := tx.FieldLinks()
	for _, l := range all {
		switch l.Kind {
		case model.LinkSelf:
			self = l
		case model.LinkOrigin:
			origin = l
		}
	}
	return self, origin, err
}

// newUID is a new field identity: 128 random bits, in hex.
func newUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("no randomness for a field identity: %v", err))
	}
	return hex.EncodeToString(b[:])
}
