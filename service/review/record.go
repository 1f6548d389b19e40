package review

import (
	"context"
	"fmt"
	"strings"
	"time"

	"arbiter/internal/detect"
	"arbiter/model"
	"arbiter/store"
)

// Record adds a memory unit recorded by callerID (RECORD). Each
// contradicts relation opens a conflict (detected_by explicit) between
// the target, as unit A, and the new unit, as unit B; both become
// contested. Where the field's policy detects contradictions, a committed
// unit is compared with the earlier units most likely to be about the
// same thing, before the write lock is taken, and each contradiction
// found opens a conflict too, in the same write (detectfind.go).
func (s *Service) Record(ctx context.Context, callerID string, req model.RecordRequest) (model.RecordResult, error) {
	const op = model.OpRecord
	var res model.RecordResult
	if err := validateRecord(&req); err != nil {
		return res, err
	}
	detected, err := s.detectForRecord(ctx, req)
	if err != nil {
		return res, err
	}
	err = s.write(ctx, op, func(tx store.Tx) error {
		now := s.now() // under the write lock, so times follow epochs
		a, err := caller(tx, op, callerID)
		if err != nil {
			return err
		}
		if !a.CanWrite() {
			return model.Errorf(op, model.CodeNotPermitted, "", "%s has authority %d and may only read", a.ID, a.Authority)
		}
		for _, r := range req.Relations {
			if ok, err := tx.UnitExists(r.TargetID); err != nil {
				return err
			} else if !ok {
				return model.Errorf(op, model.CodeUnitNotFound, "check the relation's target_id",
					"relation %s points at %q, which is not in the field", r.Type, r.TargetID)
			}
		}
		epoch, err := tx.EpochTick()
		if err != nil {
			return err
		}
		u := model.Unit{
			Mode: req.Mode, Type: req.Type, Content: req.Content, Intent: req.Intent,
			Confidence: req.Confidence, Relations: req.Relations, Status: model.UnitActive, Epoch: epoch,
			Source: model.Source{AgentID: a.ID, AgentRole: a.Role, SessionID: req.SessionID, Timestamp: now},
		}
		if u.Mode == model.ModeDraft {
			u.Status = model.UnitDraft
		}
		if res.UnitID, err = tx.UnitInsert(u); err != nil {
			return err
		}
		res.Epoch = epoch
		if _, err := tx.EventAppend(model.Event{Epoch: epoch, Operation: op, AgentID: a.ID,
			UnitID: &res.UnitID, At: now, Payload: mustJSON(req)}); err != nil {
			return err
		}
		// A revision of the author's own unit in a conflict sent back for
		// rework settles that conflict (after the conflicts it may open).
		revs, err := revisionsBy(tx, a.ID, req.Relations)
		if err != nil {
			return err
		}
		for _, r := range req.Relations {
			if r.Type != model.RelContradicts {
				continue
			}
			// A unit that was superseded or retracted no longer stands:
			// contradicting it is recorded, but there is nothing to settle.
			if live, err := standsInField(tx, r.TargetID); err != nil {
				return err
			} else if !live {
				continue
			}
			rev := continues(revs, r.TargetID)
			reworkOf := ""
			if rev != nil {
				reworkOf = rev.conflict.ID
			}
			c, err := openConflict(tx, a, res.UnitID, r, req.ConflictType, epoch, now, reworkOf)
			if err != nil {
				return err
			}
			if rev != nil {
				rev.continued = c.ID
			}
			res.Conflicts = append(res.Conflicts, c)
		}
		for _, rev := range revs {
			if err := resolveRevision(tx, a, res.UnitID, rev, epoch, now); err != nil {
				return err
			}
		}
		for i := range detected {
			detected[i].later = res.UnitID
		}
		opened, err := openFindings(tx, a, detected, epoch, now)
		res.Conflicts = append(res.Conflicts, opened...)
		return err
	})
	return res, err
}

// detectForRecord compares the unit req records with the field's units,
// as the policy's detection_sensitivity says, in a read of its own: the
// findings, whose later unit is the one to be recorded. A draft is not
// compared, nor a unit with the units it declares it contradicts or
// supersedes.
func (s *Service) detectForRecord(ctx context.Context, req model.RecordRequest) ([]found, error) {
	if req.Mode != model.ModeCommitted {
		return nil, nil
	}
	declared := map[string]bool{}
	for _, r := range req.Relations {
		if r.Type == model.RelContradicts || r.Type == model.RelSupersedes {
			declared[r.TargetID] = true
		}
	}
	var out []found
	err := s.st.Read(ctx, func(tx store.Tx) error {
		p, err := tx.Policy()
		if err != nil || !p.DetectionSensitivity.On() {
			return err
		}
		next, err := tx.UnitSeqNext()
		if err != nil {
			return err
		}
		f := newFinder(p.DetectionSensitivity, s.cache)
		t := detect.Analyse(detect.Input{Content: req.Content, Purpose: req.Intent.Purpose, Type: req.Type})
		out, err = f.against(tx, "", t, req.Intent.Purpose, next, next-1, func(id string) bool { return declared[id] })
		return err
	})
	return out, err
}

// CheckRecord applies RECORD's rules for the request itself to req (mode,
// type, content, intent, confidence, relations), filling in its defaults
// as RECORD does, for callers that store units by other means, such as an
// import.
func CheckRecord(req *model.RecordRequest) error { return validateRecord(req) }

func validateRecord(req *model.RecordRequest) error {
	const op = model.OpRecord
	if req.Mode == "" {
		req.Mode = model.ModeCommitted
	}
	req.Intent.Purpose = strings.TrimSpace(req.Intent.Purpose)
	switch {
	case req.Mode != model.ModeCommitted && req.Mode != model.ModeDraft:
		return model.Errorf(op, model.CodeInvalidRequest, "use draft or committed", "unknown mode %q", req.Mode)
	case !req.Type.Valid():
		return model.Errorf(op, model.CodeInvalidType, "use one of: "+joinTypes(), "unknown unit type %q", req.Type)
	case strings.TrimSpace(req.Content) == "":
		return model.Errorf(op, model.CodeInvalidRequest, "give the unit some content", "content is empty")
	case req.Intent.Purpose == "":
		return model.Errorf(op, model.CodeMissingIntent, "say why in intent.purpose", "intent.purpose is required")
	}
	c := req.Confidence
	if req.Mode == model.ModeCommitted && (c.Score == nil || strings.TrimSpace(c.Reasoning) == "") {
		return model.Errorf(op, model.CodeMissingConfidence, "give confidence.score and confidence.reasoning",
			"a committed unit needs a confidence score and its reasoning")
	}
	if c.Score != nil && (*c.Score < 0 || *c.Score > 1 || *c.Score != *c.Score) {
		return model.Errorf(op, model.CodeInvalidConfidence, "use a score from 0 to 1",
			"confidence score %v is outside 0..1", *c.Score)
	}
	if req.ConflictType != "" && !req.ConflictType.Valid() {
		return model.Errorf(op, model.CodeInvalidRequest, "use factual, interpretive, strategic or priority",
			"unknown conflict type %q", req.ConflictType)
	}
	for _, r := range req.Relations {
		if !r.Type.Valid() {
			return model.Errorf(op, model.CodeInvalidRequest, "see the relation types in the spec", "unknown relation type %q", r.Type)
		}
		if r.TargetID == "" {
			return model.Errorf(op, model.CodeInvalidRequest, "give target_id", "a %s relation has no target_id", r.Type)
		}
	}
	req.Relations = uniqueRelations(req.Relations)
	return nil
}

// uniqueRelations keeps the first of relations with the same type and
// target: the store keeps one such relation, so one contradicts opens one
// conflict.
func uniqueRelations(rels []model.Relation) []model.Relation {
	type key struct {
		t      model.RelationType
		target string
	}
	seen := map[key]bool{}
	out := rels[:0:0]
	for _, r := range rels {
		if k := (key{r.Type, r.TargetID}); !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

func joinTypes() string {
	names := make([]string, len(model.UnitTypes))
	for i, t := range model.UnitTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// openConflict records the conflict a contradicts relation declares
// (detected_by explicit): the target is unit A, the new unit B.
func openConflict(tx store.Tx, a model.Agent, unitID string, r model.Relation, ct model.ConflictType, epoch int64, now time.Time, reworkOf string) (model.Conflict, error) {
	if ct == "" {
		ct = model.ConflictFactual
	}
	desc := strings.TrimSpace(r.Description)
	if desc == "" {
		desc = fmt.Sprintf("%s contradicts %s", unitID, r.TargetID)
	}
	return OpenConflict(tx, a, model.Conflict{Type: ct, UnitA: r.TargetID, UnitB: unitID,
		Description: desc, DetectedBy: model.DetectedExplicit, DetectedAt: now, Epoch: epoch, ReworkOf: reworkOf})
}

// OpenConflict records c, a conflict between two units already in the
// field, in the caller's transaction, as RECORD does for a contradicts
// relation: the conflict is stored as detected at version 1 (with the next
// "conflict-NNN" id unless c.ID is set), both units become contested, a
// DETECT event by detector is logged with unit B as its unit, and the
// authors of both units are notified. c.Epoch and c.DetectedAt must be
// set; its status and version are the function's.
func OpenConflict(tx store.Tx, detector model.Agent, c model.Conflict) (model.Conflict, error) {
	if !c.Type.Valid() || !c.DetectedBy.Valid() || c.UnitA == "" || c.UnitB == "" || c.UnitA == c.UnitB {
		return c, model.Errorf(model.OpDetect, model.CodeInvalidRequest, "", "not a conflict: type %q, detected_by %q, units %q and %q",
			c.Type, c.DetectedBy, c.UnitA, c.UnitB)
	}
	c.Status, c.Version = model.StatusDetected, 1
	c.Escalation, c.VoteOpened, c.Resolution = nil, nil, nil
	c.Route, c.Proposal, c.Rework = nil, nil, nil
	a, err := tx.Unit(c.UnitA)
	if err != nil {
		return c, err
	}
	b, err := tx.Unit(c.UnitB)
	if err != nil {
		return c, err
	}
	if c.ID, err = tx.ConflictInsert(c); err != nil {
		return c, err
	}
	for _, id := range []string{c.UnitA, c.UnitB} {
		if err := contest(tx, id); err != nil {
			return c, err
		}
	}
	if _, err := tx.EventAppend(model.Event{Epoch: c.Epoch, Operation: model.OpDetect, AgentID: detector.ID,
		ConflictID: &c.ID, UnitID: &c.UnitB, At: c.DetectedAt, Payload: mustJSON(c)}); err != nil {
		return c, err
	}
	summary := fmt.Sprintf("%s: %s (%s) contradicts %s (%s)", c.ID, b.ID, b.Source.AgentID, a.ID, a.Source.AgentID)
	if c.ReworkOf != "" {
		summary += fmt.Sprintf("; it continues %s, sent back for rework", c.ReworkOf)
	}
	_, err = notify(tx, []string{a.Source.AgentID, b.Source.AgentID}, model.Notification{
		Event: model.EventConflictDetected, Epoch: c.Epoch, CreatedAt: c.DetectedAt, ConflictID: &c.ID,
		MemoryUnitID: &c.UnitB, RequiresAction: true, Summary: summary,
	})
	return c, err
}

// contest marks an active unit contested while a conflict about it is open.
func contest(tx store.Tx, id string) error {
	u, err := tx.Unit(id)
	if err != nil || u.Status != model.UnitActive {
		return err
	}
	return tx.UnitSetStatus(id, model.UnitContested)
}

// standsInField reports whether a unit still stands: not superseded, not
// retracted.
func standsInField(tx store.Tx, id string) (bool, error) {
	u, err := tx.Unit(id)
	if err != nil {
		return false, err
	}
	return u.Status.Stands(), nil
}
