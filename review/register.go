package review

import (
	"context"
	"errors"
	"strings"

	"arbiter/model"
	"arbiter/store"
)

// Register adds an agent or a person to the field (REGISTER).
func (s *Service) Register(ctx context.Context, a model.Agent) (model.Agent, error) {
	if err := checkAgent(&a); err != nil {
		return a, err
	}
	err := s.write(ctx, "REGISTER", func(tx *store.Tx) (err error) {
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
func RegisterIn(tx *store.Tx, a model.Agent) (model.Agent, error) {
	const op = "REGISTER"
	if err := checkAgent(&a); err != nil {
		return a, err
	}
	if _, err := tx.Agent(a.ID); err == nil {
		return a, model.Errorf(op, model.CodeAgentIDTaken, "choose another id", "%q is already registered", a.ID)
	} else if !errors.Is(err, store.ErrNotFound) {
		return a, err
	}
	epoch, err := tx.Tick()
	if err != nil {
		return a, err
	}
	if err := tx.InsertAgent(a, epoch); err != nil {
		return a, err
	}
	_, err = tx.AppendEvent(model.Event{Epoch: epoch, Operation: op, AgentID: a.ID, At: a.RegisteredAt,
		Payload: mustJSON(map[string]any{"role": a.Role, "kind": a.Kind, "authority": a.Authority})})
	return a, err
}

// checkAgent trims and completes a, and refuses what REGISTER refuses.
func checkAgent(a *model.Agent) error {
	const op = "REGISTER"
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
	case a.Authority == model.AuthorityHumanOperator && a.Kind != model.KindHuman:
		return model.Errorf(op, model.CodeInvalidRequest, "register people with --kind human",
			"authority 10 belongs to human operators; %q is an agent", a.ID)
	}
	return nil
}
