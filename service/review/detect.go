package review

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"arbiter/model"
	"arbiter/store"
)

// Detect answers DETECT for callerID: list, the open conflicts; check, the
// conflicts each of req.Units is in, open ones first; scan, as DetectScan
// without a progress report. Reading needs no caller (""); one given must
// be registered.
func (s *Service) Detect(ctx context.Context, callerID string, req model.DetectRequest) (model.DetectResult, error) {
	const op = model.OpDetect
	res := model.DetectResult{Mode: req.Mode}
	switch req.Mode {
	case model.DetectScan:
		return s.DetectScan(ctx, callerID, req, nil)
	case model.DetectList, model.DetectCheck:
	default:
		return res, model.Errorf(op, model.CodeInvalidRequest, "use list, check or scan", "unknown mode %q", req.Mode)
	}
	if req.Mode == model.DetectCheck && len(req.Units) == 0 {
		return res, model.Errorf(op, model.CodeInvalidRequest, "name the units to check", "check needs units")
	}
	err := s.st.Read(ctx, func(tx store.Tx) error {
		if callerID != "" {
			if _, err := caller(tx, op, callerID); err != nil {
				return err
			}
		}
		if req.Mode == model.DetectList {
			var err error
			res.Conflicts, err = openConflicts(tx)
			return err
		}
		for _, id := range req.Units {
			id = strings.TrimSpace(id)
			if ok, err := tx.UnitExists(id); err != nil {
				return err
			} else if !ok {
				return model.Errorf(op, model.CodeUnitNotFound, "check the unit's id", "there is no unit %q", id)
			}
			cs, err := tx.ConflictsOfUnit(id)
			if err != nil {
				return err
			}
			slices.SortStableFunc(cs, func(a, b model.Conflict) int {
				if ao, bo := a.Status.Open(), b.Status.Open(); ao != bo {
					if ao {
						return -1
					}
					return 1
				}
				return cmp.Or(cmp.Compare(a.Epoch, b.Epoch), cmp.Compare(a.ID, b.ID))
			})
			res.Units = append(res.Units, model.UnitConflicts{UnitID: id, Conflicts: nonNilConflicts(cs)})
		}
		return nil
	})
	return res, err
}

// openConflicts are the field's open conflicts, oldest first, each with
// why it was detected when it was.
func openConflicts(tx store.Tx) ([]model.Conflict, error) {
	var open []model.ConflictStatus
	for _, st := range model.ConflictStatuses {
		if st.Open() {
			open = append(open, st)
		}
	}
	out := []model.Conflict{}
	err := tx.ConflictEach(model.ListQuery{Statuses: open, Sort: model.SortAge}, func(c model.ConflictSummary) error {
		out = append(out, c.Conflict)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A queue row leaves the detection out: read it for those the field
	// detected.
	for i, c := range out {
		if c.DetectedBy == model.DetectedExplicit {
			continue
		}
		full, err := tx.Conflict(c.ID)
		if err != nil {
			return nil, err
		}
		out[i].Detection = full.Detection
	}
	return out, nil
}

func nonNilConflicts(cs []model.Conflict) []model.Conflict {
	if cs == nil {
		return []model.Conflict{}
	}
	return cs
}

// DetectScanState is where the field's scan stands, and false before the
// first.
func (s *Service) DetectScanState(ctx context.Context) (model.ScanState, bool, error) {
	var st model.ScanState
	err := s.st.Read(ctx, func(tx store.Tx) (err error) { st, err = tx.DetectScan(); return err })
	if err == store.ErrNotFound {
		return st, false, nil
	}
	return st, err == nil, err
}
