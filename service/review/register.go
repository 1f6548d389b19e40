package review

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"arbiter/model"
	"arbiter/store"
)

// Register adds an agent or a person to the field (REGISTER).
func (s *Service) Register(ctx context.Context, a model.Agent) (model.Agent, error) {
	if err := checkAgent(&a); err != nil {
		return a, err
	}
	err := s.write(ctx, model.OpRegister, func(tx store.Tx) (err error) {
		a.RegisteredAt = s.now() // under the write lock, so times follow epochs
		a, err = RegisterIn(tx, a)
		return err
	})
	return a, err
}

// RegisterIn registers a in the caller's transaction, by REGISTER's rules:
// the agent is checked and stored at the next epoch, and a REGISTER event
// is logged; an id already registered is AGENT_ID_TAKEN. a.RegisteredAt is
// the caller's to set.
func RegisterIn(tx store.Tx, a model.Agent) (model.Agent, error) {
	const op = model.OpRegister
	if err := checkAgent(&a); err != nil {
		return a, err
	}
	if _, err := tx.Agent(a.ID); err == nil {
		return a, model.Errorf(op, model.CodeAgentIDTaken, "choose another id", "%q is already registered", a.ID)
	} else if !errors.Is(err, store.ErrNotFound) {
		return a, err
	}
	if err := tx.AgentActAs(a.ID); err != nil {
		return a, err
	}
	epoch, err := tx.EpochTick()
	if err != nil {
		return a, err
	}
	if err := tx.AgentInsert(a, epoch); err != nil {
		return a, err
	}
	_, err = tx.EventAppend(model.Event{Epoch: epoch, Operation: op, AgentID: a.ID, At: a.RegisteredAt,
		Payload: registerPayload(a)})
	return a, err
}

// checkAgent trims and completes a, and refuses what REGISTER refuses.
func checkAgent(a *model.Agent) error {
	const op = model.OpRegister
	a.ID, a.Role = strings.TrimSpace(a.ID), strings.TrimSpace(a.Role)
	if a.Kind == "" {
		a.Kind = model.KindAgent
	}
	if a.Status == "" {
		a.Status = model.AgentIdle
	}
	switch {
	case a.ID == "":
		return model.Errorf(op, model.CodeInvalidRequest, "give an id", "an agent needs an id")
	case a.Role == "":
		return model.Errorf(op, model.CodeInvalidRequest, "give a role", "agent %q needs a role", a.ID)
	case !a.Kind.Valid():
		return model.Errorf(op, model.CodeInvalidRequest, "use agent or human", "unknown kind %q", a.Kind)
	case a.Authority < 0 || a.Authority > 10:
		return model.Errorf(op, model.CodeInvalidRequest, "use a level from 0 to 10", "authority %d is out of range", a.Authority)
	case a.ID == model.FallbackAgent || a.ID == model.SweepAgent:
		return model.Errorf(op, model.CodeAgentIDTaken, "choose another id",
			"%q is the name the field's deadlines act under; it cannot be registered", a.ID)
	case a.Authority == model.AuthorityHumanOperator && a.Kind != model.KindHuman:
		return model.Errorf(op, model.CodeInvalidRequest, "register people with --kind human",
			"authority 10 belongs to human operators; %q is an agent", a.ID)
	}
	if why := unprintableName(a.ID, false); why != "" {
		return model.Errorf(op, model.CodeInvalidRequest, "use printable characters and no spaces", "agent id %q %s", a.ID, why)
	}
	if why := unprintableName(a.Role, true); why != "" {
		return model.Errorf(op, model.CodeInvalidRequest, "use printable characters", "role %q of %q %s", a.Role, a.ID, why)
	}
	a.DBRole = strings.TrimSpace(a.DBRole)
	if why := unprintableName(a.DBRole, false); why != "" || len(a.DBRole) > 63 {
		if why == "" {
			why = "is longer than a database role's 63 bytes"
		}
		return model.Errorf(op, model.CodeInvalidRequest, "name a database role", "database role %q of %q %s", a.DBRole, a.ID, why)
	}
	return nil
}

// maxNameBytes bounds an agent id and a role: they are shown on every line
// that names their agent.
const maxNameBytes = 256

// unprintableName says what makes s unfit to name an agent or a role ("" if
// nothing does). Agents are programs and their names reach people's
// terminals, so a name may hold no control character (C0, DEL, C1: escape
// sequences start with one), no invisible format character (bidi overrides,
// zero-width spaces, tag characters) and no invalid UTF-8; an id holds no
// whitespace at all, a role only plain spaces.
func unprintableName(s string, spaces bool) string {
	if len(s) > maxNameBytes {
		return fmt.Sprintf("is %d bytes long; the limit is %d", len(s), maxNameBytes)
	}
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return "is not valid UTF-8"
		case r == ' ' && spaces:
		case unicode.IsSpace(r):
			return fmt.Sprintf("holds whitespace (%U)", r)
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
			return fmt.Sprintf("holds an unprintable character (%U)", r)
		}
	}
	return ""
}

// registerPayload is what a REGISTER event logs of a: its role, kind and
// authority, and the database role bound to it, if any.
func registerPayload(a model.Agent) []byte {
	return mustJSON(model.RegisterLog{Role: a.Role, Kind: a.Kind, Authority: a.Authority, DBRole: a.DBRole})
}
