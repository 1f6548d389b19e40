package review

import (
	"context"
	"errors"
	"slices"
	"strings"

	"arbiter/model"
	"arbiter/store"
)

// HookAdd adds h (its id, secret and URL set; the URL checked by the
// caller) for callerID, a human operator: from then on every notice to
// h.AgentID, a registered agent or person, is queued for it. It returns
// the hook as stored.
func (s *Service) HookAdd(ctx context.Context, callerID string, h model.Hook) (model.Hook, error) {
	const op = model.OpHook
	if !h.Format.Valid() {
		return h, model.Errorf(op, model.CodeInvalidRequest, "use standard or slack", "%q is not a hook format", h.Format)
	}
	for _, e := range h.Events {
		if !slices.Contains(model.NoticeEvents, e) {
			return h, model.Errorf(op, model.CodeInvalidRequest, "name events such as "+strings.Join(model.NoticeEvents[:3], ", "),
				"%q is not an event a notice is sent for", e)
		}
	}
	h.CreatedBy, h.CreatedAt = callerID, s.now().UTC()
	err := s.write(ctx, op, func(tx store.Tx) error {
		if err := mustOperate(tx, op, callerID, "adds a hook"); err != nil {
			return err
		}
		if _, err := tx.Agent(h.AgentID); errors.Is(err, store.ErrNotFound) {
			return model.Errorf(op, model.CodeAgentNotRegistered, "`arbiter agents` lists who is registered",
				"%q is not registered", h.AgentID)
		} else if err != nil {
			return err
		}
		return tx.HookInsert(h)
	})
	return h, err
}

// Hooks lists the field's hooks, oldest first.
func (s *Service) Hooks(ctx context.Context) ([]model.Hook, error) {
	var out []model.Hook
	err := s.st.Read(ctx, func(tx store.Tx) (err error) { out, err = tx.Hooks(""); return err })
	return out, err
}

// HookRemove removes hook id and its deliveries, for callerID, a human
// operator.
func (s *Service) HookRemove(ctx context.Context, callerID, id string) error {
	const op = model.OpHook
	return s.write(ctx, op, func(tx store.Tx) error {
		if err := mustOperate(tx, op, callerID, "removes a hook"); err != nil {
			return err
		}
		if err := tx.HookDelete(id); errors.Is(err, store.ErrNotFound) {
			return model.Errorf(op, model.CodeInvalidRequest, "`arbiter hooks list` lists them", "there is no hook %q", id)
		} else if err != nil {
			return err
		}
		return nil
	})
}

// Deliveries lists the field's deliveries, newest first.
func (s *Service) Deliveries(ctx context.Context, q model.DeliveryQuery) ([]model.Delivery, error) {
	var out []model.Delivery
	err := s.st.Read(ctx, func(tx store.Tx) (err error) { out, err = tx.Deliveries(q); return err })
	return out, err
}

// DeliveryRetry queues dead delivery id (every dead one for "") again,
// due now, for callerID, a human operator; it returns how many.
func (s *Service) DeliveryRetry(ctx context.Context, callerID, id string) (int, error) {
	const op = model.OpHook
	var n int
	err := s.write(ctx, op, func(tx store.Tx) error {
		if err := mustOperate(tx, op, callerID, "queues deliveries again"); err != nil {
			return err
		}
		var err error
		n, err = tx.DeliveryRetry(id, s.now().UTC())
		if errors.Is(err, store.ErrNotFound) {
			return model.Errorf(op, model.CodeInvalidRequest, "`arbiter deliveries --dead` lists the dead ones",
				"there is no dead delivery %q", id)
		}
		return err
	})
	return n, err
}

// mustOperate refuses callerID unless they are a human operator.
func mustOperate(tx store.Tx, op, callerID, what string) error {
	a, err := caller(tx, op, callerID)
	if err != nil {
		return err
	}
	if !a.IsHumanOperator() {
		return model.Errorf(op, model.CodeNotPermitted, "ask a human operator",
			"only a human operator (authority 10) %s; %s has %d", what, a.ID, a.Authority)
	}
	return nil
}
