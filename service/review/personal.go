package review

import (
	"context"
	"errors"
	"strings"

	"arbiter/model"
	"arbiter/store"
)

// What the field keeps for each person at the review screen: their
// notices read newest first with how many they have not read, what
// reached them since the screen last looked, and the decisions and
// ballots they are writing (store.Personal).

// maxNews is the most notices one look for news reads; the rest come
// with the next.
const maxNews = 200

// InboxPage returns agentID's notices newest first: those before the
// notice numbered before (0: from the newest), at most limit (at least
// one), with how many are unread and whether older ones follow.
func (s *Service) InboxPage(ctx context.Context, agentID string, before int64, limit int) (model.InboxPage, error) {
	var out model.InboxPage
	err := s.st.ReadTail(ctx, func(tx store.Tx) error {
		if _, err := caller(tx, model.OpAttune, agentID); err != nil {
			return err
		}
		var err error
		limit = max(1, limit)
		if out.Notices, err = tx.InboxRecent(agentID, before, limit+1); err != nil {
			return err
		}
		if out.More = len(out.Notices) > limit; out.More {
			out.Notices = out.Notices[:limit]
		}
		out.Unread, err = unread(tx, agentID)
		return err
	})
	return out, err
}

// InboxRead marks agentID's notices read up to their notice id (the
// newest they were shown); the mark never goes back.
func (s *Service) InboxRead(ctx context.Context, agentID string, id int64) error {
	if id <= 0 {
		return nil
	}
	return s.write(ctx, model.OpAttune, func(tx store.Tx) error {
		if _, err := caller(tx, model.OpAttune, agentID); err != nil {
			return err
		}
		return tx.InboxMarkSet(agentID, id, s.now())
	})
}

// InboxNews is what reached agentID's inbox after their notice since:
// the newest notice now, how many are unread, and a toast for each new
// notice that closes or changes something they took part in (toast.go).
// since 0 is the first look: it finds the newest notice and makes no
// toasts of the past.
func (s *Service) InboxNews(ctx context.Context, agentID string, since int64) (model.InboxNews, error) {
	out := model.InboxNews{Tail: since, Toasts: []model.Toast{}}
	err := s.st.ReadTail(ctx, func(tx store.Tx) error {
		if _, err := caller(tx, model.OpAttune, agentID); err != nil {
			return err
		}
		if since <= 0 {
			newest, err := tx.InboxRecent(agentID, 0, 1)
			if err != nil {
				return err
			}
			if len(newest) > 0 {
				out.Tail = newest[0].ID
			}
		} else {
			news, err := tx.Inbox(agentID, since, maxNews)
			if err != nil {
				return err
			}
			for _, n := range news {
				out.Tail = n.ID
				t, ok, err := toastOf(tx, agentID, n)
				if err != nil {
					return err
				}
				if ok {
					out.Toasts = append(out.Toasts, t)
				}
			}
		}
		var err error
		out.Unread, err = unread(tx, agentID)
		return err
	})
	return out, err
}

// unread is how many of agentID's notices came after the one they read
// up to.
func unread(tx store.Tx, agentID string) (int, error) {
	mark, err := tx.InboxMark(agentID)
	if err != nil {
		return 0, err
	}
	return tx.InboxCount(agentID, mark)
}

// Drafts lists agentID's drafts on conflictID, one per form.
func (s *Service) Drafts(ctx context.Context, agentID, conflictID string) ([]model.Draft, error) {
	var out []model.Draft
	err := s.st.Read(ctx, func(tx store.Tx) (err error) { out, err = tx.Drafts(agentID, conflictID); return err })
	return out, err
}

// DraftSave keeps d, stamped now, in place of the person's draft in the
// same form on the same conflict; a draft with no text removes it.
func (s *Service) DraftSave(ctx context.Context, d model.Draft) error {
	const op = model.OpAttune
	switch {
	case !d.Form.Valid():
		return model.Errorf(op, model.CodeInvalidRequest, "save a decision's or a ballot's draft", "%q is not a form", d.Form)
	case len(d.Rationale) > model.MaxDraftBytes || len(d.Synthesis) > model.MaxDraftBytes:
		return model.Errorf(op, model.CodeInvalidRequest, "write it in $EDITOR and keep it in a file",
			"a draft holds at most %d KiB of rationale and of synthesis", model.MaxDraftBytes>>10)
	}
	return s.write(ctx, op, func(tx store.Tx) error {
		if _, err := caller(tx, op, d.AgentID); err != nil {
			return err
		}
		if d.Blank() {
			return tx.DraftDelete(d.AgentID, d.ConflictID, d.Form)
		}
		if _, err := tx.Conflict(d.ConflictID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return model.Errorf(op, model.CodeConflictNotFound, "", "there is no conflict %q", d.ConflictID)
			}
			return err
		}
		d.SavedAt = s.now()
		d.Rationale, d.Synthesis = strings.ToValidUTF8(d.Rationale, "\uFFFD"), strings.ToValidUTF8(d.Synthesis, "\uFFFD")
		return tx.DraftPut(d)
	})
}

// DraftDrop removes agentID's draft in form on conflictID: it was
// written, or the person let it go.
func (s *Service) DraftDrop(ctx context.Context, agentID, conflictID string, form model.DraftForm) error {
	return s.write(ctx, model.OpAttune, func(tx store.Tx) error {
		if _, err := caller(tx, model.OpAttune, agentID); err != nil {
			return err
		}
		return tx.DraftDelete(agentID, conflictID, form)
	})
}
