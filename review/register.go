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
		return a, model.Errorf(op, model.CodeInvalidRequest, "give an id", "an agent needs an id")
	case a.Role == "":
		return a, model.Errorf(op, model.CodeInvalidRequest, "give a role", "agent %q needs a role", a.ID)
	case !a.Kind.Valid():
		return a, model.Errorf(op, model.CodeInvalidRequest, "use agent or human", "unknown kind %q", a.Kind)
	case a.Authority < 0 || a.Authority > 10:
		return a, model.Errorf(op, model.CodeInvalidRequest, "use a level from 0 to 10", "authority %d is out of range", a.Authority)
	case a.Authority == model.AuthorityHumanOperator && a.Kind != model.KindHuman:
		return a, model.Errorf(op, model.CodeInvalidRequest, "register people with --kind human",
			"authority 10 belongs to human operators; %q is an agent", a.ID)
	}
	a.RegisteredAt = s.now()
	err := s.write(ctx, op, func(tx *store.Tx) error {
		if _, err := tx.Agent(a.ID); err == nil {
			return model.Errorf(op, model.CodeAgentIDTaken, "choose another id", "%q is already registered", a.ID)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		epoch, err := tx.Tick()
		if err != nil {
			return err
		}
		if err := tx.InsertAgent(a, epoch); err != nil {
			return err
		}
		_, err = tx.AppendEvent(model.Event{Epoch: epoch, Operation: op, AgentID: a.ID, At: a.RegisteredAt,
			Payload: mustJSON(map[string]any{"role": a.Role, "kind": a.Kind, "authority": a.Authority})})
		return err
	})
	return a, err
}
