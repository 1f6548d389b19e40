package review

import (
	"context"
	"time"

	"arbiter/internal/detect"
	"arbiter/model"
	"arbiter/store"
)

// A scan (DETECT scan) compares every unit of the field, or those
// recorded since an epoch, with the earlier units, as RECORD compares a
// new one, and opens the conflicts it finds. It goes in batches of units
// by sequence number, each read and compared, then committed with the
// scan's place (detect_scan): stopped, it goes on from there; and since a
// pair that has a conflict or was dismissed is never opened again, a
// second scan opens nothing new.
//
// The earlier units a unit is compared with come from the scan's own
// index of the units it has looked at (detectindex.go), and from the
// engine's word index for what that cannot know (the units before where
// the scan began, the words it dropped). Memory is bounded: a batch of
// units, the index and the cache of read units, each within its budget.

const (
	// scanBatch is how many units a scan reads, compares and commits at
	// a time.
	scanBatch = 500
	// scanIndexTerms is how many words of each unit the scan's index
	// keeps: more than a unit is looked up by, since a later unit may
	// share a word that was not among this one's rarest.
	scanIndexTerms = 24
	// scanCacheBytes and scanIndexBytes bound the read units and the
	// scan's index.
	scanCacheBytes = 64 << 20
	scanIndexBytes = 48 << 20
	// scanShown is how many of the conflicts a scan opens its result
	// lists; it counts the rest.
	scanShown = 100
)

// DetectScan runs DETECT scan for callerID (authority 8 or more): it goes
// on with the field's unfinished scan of the same start and sensitivity,
// or begins one, and looks at req.Limit units at most (0: all that are
// left). progress, when not nil, is told where the scan stands after each
// batch. When ctx ends, what was committed stays; the next scan goes on
// from there. One scan runs at a time in a process.
func (s *Service) DetectScan(ctx context.Context, callerID string, req model.DetectRequest, progress func(model.ScanState)) (model.DetectResult, error) {
	const op = model.OpDetect
	res := model.DetectResult{Mode: model.DetectScan}
	if req.SinceEpoch < 0 || req.Limit < 0 {
		return res, model.Errorf(op, model.CodeInvalidRequest, "", "since_epoch and limit are 0 or more")
	}
	if !s.scanMu.TryLock() {
		return res, model.Errorf(op, model.CodeInvalidTransition, "call again once it is done",
			"a scan of this field is running already")
	}
	defer s.scanMu.Unlock()
	a, st, resumed, err := s.scanStart(ctx, callerID, req)
	if err != nil {
		return res, err
	}
	run := s.runFor(st)
	defer s.keepRun(run, &st)
	saved := resumed // whether the field holds this scan's place
	looked := 0
	for req.Limit == 0 || looked < req.Limit {
		var batch []model.UnitHit
		var fs []found
		n := 0 // units of the batch the scan looks at (the rest it only reads)
		err := s.st.Read(ctx, func(tx store.Tx) error {
			var err error
			if batch, err = tx.UnitsAfter(run.indexed, -1, scanBatch); err != nil {
				return err
			}
			for i, u := range batch {
				if looksAt(st)(u) {
					if n++; req.Limit > 0 && looked+n == req.Limit {
						batch = batch[:i+1]
						break
					}
				}
			}
			fs, err = run.sc.batch(ctx, tx, batch, looksAt(st))
			return err
		})
		if err != nil {
			return res, err
		}
		if len(batch) > 0 && batch[len(batch)-1].Seq <= st.Cursor {
			run.indexed = batch[len(batch)-1].Seq // read again up to where the scan stands
			continue
		}
		err = s.write(ctx, op, func(tx store.Tx) error {
			// Written as the caller, as the field checks where it can.
			if _, err := caller(tx, op, a.ID); err != nil {
				return err
			}
			if err := stillOurs(tx, st, saved); err != nil {
				return err
			}
			now := s.now()
			for _, f := range fs {
				c, ok, err := openFound(tx, a, f, now)
				if err != nil {
					return err
				}
				if ok {
					if len(res.Conflicts) < scanShown {
						res.Conflicts = append(res.Conflicts, c)
					}
					st.Found++
				}
			}
			if len(batch) > 0 {
				st.Cursor = batch[len(batch)-1].Seq
			} else {
				st.FinishedAt = &now
			}
			st.Done += int64(n)
			st.UpdatedAt = now
			return tx.DetectScanSave(st)
		})
		if err != nil {
			return res, err
		}
		saved = true
		looked += n
		st.Total = max(st.Total, st.Done)
		if progress != nil {
			progress(st)
		}
		if len(batch) == 0 {
			break
		}
		run.indexed = st.Cursor
	}
	res.Scan = &st
	return res, nil
}

// openFound opens the conflict of f in tx, as detector at now, if it may
// be opened (openable): each at an epoch of its own.
func openFound(tx store.Tx, detector model.Agent, f found, now time.Time) (model.Conflict, bool, error) {
	if ok, err := openable(tx, f.earlier, f.later); err != nil || !ok {
		return model.Conflict{}, false, err
	}
	epoch, err := tx.EpochTick()
	if err != nil {
		return model.Conflict{}, false, err
	}
	c := f.conflict()
	c.Epoch, c.DetectedAt = epoch, now
	c, err = OpenConflict(tx, detector, c)
	return c, err == nil, err
}

// stillOurs refuses to go on when another scan moved the field's on since
// this one read it (two processes scanning at once): once this scan has
// saved its place, the field must still hold that place.
func stillOurs(tx store.DetectTx, st model.ScanState, saved bool) error {
	if !saved {
		return nil
	}
	stored, err := tx.DetectScan()
	if err != nil && err != store.ErrNotFound {
		return err
	}
	if err != nil || !stored.StartedAt.Equal(st.StartedAt) || stored.Cursor != st.Cursor {
		return model.Errorf(model.OpDetect, model.CodeInvalidTransition, "run the scan again: it goes on from where the field's scan stands",
			"another scan of this field moved it on meanwhile")
	}
	return nil
}

// scanRun is a scan this process goes on with: its scanner, which has
// read the field up to unit indexed. It is kept between calls (a scan
// over MCP goes a call at a time) until the scan finishes, another
// begins, or it sits unused for scanIdle; a scan that finds none to go
// on with reads the field from its first unit up to where the scan
// stands, so that it compares each unit with the same earlier units
// whether it began there or went on from there.
type scanRun struct {
	startedAt time.Time
	since     int64
	level     model.Sensitivity
	indexed   int64
	sc        *scanner
	drop      *time.Timer
}

// scanIdle is how long a process keeps a scan nobody goes on with.
const scanIdle = 10 * time.Minute

// runFor is the scan run to go on with st: the one this process kept, if
// it is st's and has read exactly up to where st stands, else a new one.
func (s *Service) runFor(st model.ScanState) *scanRun {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if r := s.run; r != nil {
		r.drop.Stop()
		if r.startedAt.Equal(st.StartedAt) && r.since == st.SinceEpoch && r.level == st.Sensitivity && r.indexed == st.Cursor {
			return r
		}
		s.run = nil
	}
	return &scanRun{startedAt: st.StartedAt, since: st.SinceEpoch, level: st.Sensitivity, sc: &scanner{
		f:   newFinder(st.Sensitivity, detect.NewCache(scanCacheBytes)),
		idx: newScanIndex(scanIndexBytes),
	}}
}

// keepRun keeps r for the next call if its scan is not finished and it
// has read exactly up to where the scan stands, for scanIdle.
func (s *Service) keepRun(r *scanRun, st *model.ScanState) {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if st.Finished() || r.indexed != st.Cursor {
		s.run = nil
		return
	}
	s.run = r
	r.drop = time.AfterFunc(scanIdle, func() {
		s.runMu.Lock()
		defer s.runMu.Unlock()
		if s.run == r {
			s.run = nil
		}
	})
}

// scanStart checks that callerID may scan and the field detects, and
// returns the caller and where the scan begins: the unfinished scan of
// the same start and sensitivity (resumed), or a new one.
func (s *Service) scanStart(ctx context.Context, callerID string, req model.DetectRequest) (model.Agent, model.ScanState, bool, error) {
	const op = model.OpDetect
	var a model.Agent
	var st model.ScanState
	resumed := false
	err := s.st.Read(ctx, func(tx store.Tx) error {
		var err error
		if a, err = caller(tx, op, callerID); err != nil {
			return err
		}
		if a.Authority < model.AuthoritySessionCreator {
			return model.Errorf(op, model.CodeNotPermitted, "ask a session creator or a human operator",
				"a scan opens conflicts in the whole field: it needs authority 8 or more; %s has %d", a.ID, a.Authority)
		}
		p, err := tx.Policy()
		if err != nil {
			return err
		}
		level := p.DetectionSensitivity.Or()
		if !level.On() {
			return model.Errorf(op, model.CodeUnsupportedOperation,
				"turn it on with: arbiter policy set --detection-sensitivity medium",
				"detection is off in this field")
		}
		prev, err := tx.DetectScan()
		switch {
		case err == nil && !prev.Finished() && prev.SinceEpoch == req.SinceEpoch && prev.Sensitivity == level:
			st, resumed = prev, true
		case err == nil || err == store.ErrNotFound:
			// To the microsecond, as every engine keeps a time: a scan is
			// known by when it began.
			now := s.now().Truncate(time.Microsecond)
			st = model.ScanState{SinceEpoch: req.SinceEpoch, Sensitivity: level, StartedAt: now, UpdatedAt: now}
		default:
			return err
		}
		next, err := tx.UnitSeqNext()
		st.Total = st.Done + max(0, next-1-st.Cursor)
		return err
	})
	return a, st, resumed, err
}

// looksAt says which units a scan standing at st looks at: those after
// where it stands, recorded after its start; it reads the others only.
func looksAt(st model.ScanState) func(model.UnitHit) bool {
	return func(u model.UnitHit) bool { return u.Seq > st.Cursor && u.Unit.Epoch > st.SinceEpoch }
}
