package review

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"arbiter/model"
	"arbiter/store"
)

// HookAdd adds h (its id, secret and URL set; its format and URL
// checked by the caller, which knows the channels: service/deliver) for
// callerID, a human operator: from then on every notice to h.AgentID, a
// registered agent or person, is queued for it. It returns the hook as
// stored.
func (s *Service) HookAdd(ctx context.Context, callerID string, h model.Hook) (model.Hook, error) {
	const op = model.OpHook
	if strings.TrimSpace(string(h.Format)) == "" {
		return h, model.Errorf(op, model.CodeInvalidRequest, "name its channel, e.g. standard", "a hook needs a format")
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

// HookEnable enables hook id again, for callerID, a human operator: it is
// sent the notices queued from then on (and any dead delivery queued
// again with DeliveryRetry).
func (s *Service) HookEnable(ctx context.Context, callerID, id string) error {
	const op = model.OpHook
	return s.write(ctx, op, func(tx store.Tx) error {
		if err := mustOperate(tx, op, callerID, "enables a hook"); err != nil {
			return err
		}
		if err := tx.HookEnable(id); errors.Is(err, store.ErrNotFound) {
			return model.Errorf(op, model.CodeInvalidRequest, "`arbiter hooks list` lists them", "there is no hook %q", id)
		} else if err != nil {
			return err
		}
		return nil
	})
}

// HookGone disables hook id because its receiver said it is gone (a 410
// answer, why), gives up its pending deliveries, and tells the human
// operators (asked to act) and the hook's person, in their inboxes and
// through their other hooks. It acts for the service's sweeper (see
// WithSweeper), as the field checks who writes. It reports whether it
// disabled the hook: false, with nothing written, if it was disabled
// already.
func (s *Service) HookGone(ctx context.Context, id, why string) (bool, error) {
	const op = model.OpHook
	disabled := false
	err := s.write(ctx, op, func(tx store.Tx) error {
		if s.sweeper != "" {
			if err := tx.AgentActAs(s.sweeper); err != nil {
				return err
			}
		}
		hooks, err := tx.Hooks("")
		if err != nil {
			return err
		}
		i := slices.IndexFunc(hooks, func(h model.Hook) bool { return h.ID == id })
		if i < 0 {
			return nil // removed meanwhile
		}
		h, now := hooks[i], s.now().UTC()
		n, err := tx.HookDisable(id, why, now)
		if store.IsStale(err) {
			return nil
		} else if err != nil {
			return err
		}
		epoch, err := tx.EpochTick()
		if err != nil {
			return err
		}
		ops, err := humanOperators(tx)
		if err != nil {
			return err
		}
		summary := fmt.Sprintf("hook %s (%s, for %s) is disabled: %s. %d pending %s given up; nothing more is sent to it "+
			"until a human operator runs `arbiter hooks enable %s` (and `arbiter deliveries retry --all` to send the given-up ones).",
			h.ID, h.Format, h.AgentID, why, n, plural(n, "delivery was", "deliveries were"), h.ID)
		_, err = notify(tx, append(ops, h.AgentID), model.Notification{Event: model.EventHookDisabled, Epoch: epoch,
			Summary: summary, RequiresAction: true, CreatedAt: now}, ops...)
		disabled = err == nil
		return err
	})
	return disabled, err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
