package review

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"strconv"
	"sync"

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
// from there.
func (s *Service) DetectScan(ctx context.Context, callerID string, req model.DetectRequest, progress func(model.ScanState)) (model.DetectResult, error) {
	const op = model.OpDetect
	res := model.DetectResult{Mode: model.DetectScan}
	if req.SinceEpoch < 0 || req.Limit < 0 {
		return res, model.Errorf(op, model.CodeInvalidRequest, "", "since_epoch and limit are 0 or more")
	}
	a, st, err := s.scanStart(ctx, callerID, req)
	if err != nil {
		return res, err
	}
	sc := &scanner{
		f:   newFinder(st.Sensitivity, detect.NewCache(scanCacheBytes)),
		idx: newScanIndex(scanIndexBytes, st.Cursor == 0 && st.SinceEpoch == 0),
	}
	left := req.Limit
	for {
		n := scanBatch
		if req.Limit > 0 {
			if left == 0 {
				break
			}
			n = min(n, left)
		}
		var batch []model.UnitHit
		var fs []found
		err := s.st.Read(ctx, func(tx store.Tx) error {
			var err error
			if batch, err = tx.UnitsAfter(st.Cursor, st.SinceEpoch, n); err != nil {
				return err
			}
			fs, err = sc.batch(ctx, tx, batch)
			return err
		})
		if err != nil {
			return res, err
		}
		err = s.write(ctx, op, func(tx store.Tx) error {
			now := s.now()
			opened := int64(0)
			for _, f := range fs {
				if ok, err := openable(tx, f.earlier, f.later); err != nil {
					return err
				} else if !ok {
					continue
				}
				epoch, err := tx.EpochTick()
				if err != nil {
					return err
				}
				c := f.conflict()
				c.Epoch, c.DetectedAt = epoch, now
				if c, err = OpenConflict(tx, a, c); err != nil {
					return err
				}
				if len(res.Conflicts) < scanShown {
					res.Conflicts = append(res.Conflicts, c)
				}
				opened++
			}
			if len(batch) > 0 {
				st.Cursor = batch[len(batch)-1].Seq
			} else {
				st.FinishedAt = &now
			}
			st.Done += int64(len(batch))
			st.Found += opened
			st.UpdatedAt = now
			return tx.DetectScanSave(st)
		})
		if err != nil {
			return res, err
		}
		left -= len(batch)
		st.Total = max(st.Total, st.Done)
		if progress != nil {
			progress(st)
		}
		if len(batch) == 0 {
			break
		}
	}
	res.Scan = &st
	return res, nil
}

// scanStart checks that callerID may scan and the field detects, and
// returns the caller and where the scan begins: the unfinished scan of
// the same start and sensitivity, or a new one.
func (s *Service) scanStart(ctx context.Context, callerID string, req model.DetectRequest) (model.Agent, model.ScanState, error) {
	const op = model.OpDetect
	var a model.Agent
	var st model.ScanState
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
			return model.Errorf(op, model.CodeInvalidRequest,
				"turn it on with: arbiter policy set --detection-sensitivity medium",
				"detection is off in this field")
		}
		prev, err := tx.DetectScan()
		switch {
		case err == nil && !prev.Finished() && prev.SinceEpoch == req.SinceEpoch && prev.Sensitivity == level:
			st = prev
		case err == nil || err == store.ErrNotFound:
			now := s.now()
			st = model.ScanState{SinceEpoch: req.SinceEpoch, Sensitivity: level, StartedAt: now, UpdatedAt: now}
		default:
			return err
		}
		next, err := tx.UnitSeqNext()
		st.Total = st.Done + max(0, next-1-st.Cursor)
		return err
	})
	return a, st, err
}

// scanner is one scan's reading: its detector, its cache of read units
// (by sequence number) and its index of the units it has looked at.
type scanner struct {
	f   finder
	idx *scanIndex
}

func seqKey(seq int64) string { return strconv.FormatInt(seq, 10) }

// batch compares each of units with the earlier units, in order, and
// returns what it found.
func (sc *scanner) batch(ctx context.Context, tx store.DetectTx, units []model.UnitHit) ([]found, error) {
	texts := make([]*detect.Text, len(units))
	parallel(len(units), func(i int) {
		if u := units[i]; comparable(u.Unit) {
			texts[i] = sc.f.cache.Text(seqKey(u.Seq), inputOf(u.Unit))
		}
	})
	cands := make([][]int64, len(units))
	for i, u := range units {
		if texts[i] == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		terms := texts[i].Terms(scanIndexTerms)
		var err error
		if cands[i], err = sc.candidates(tx, terms[:min(detectTerms, len(terms))], u); err != nil {
			return nil, err
		}
		for _, t := range terms {
			sc.idx.add(t.Word, u.Seq, detectPerTerm)
		}
		sc.idx.add(purposeKey(u.Unit.Intent.Purpose), u.Seq, detectPurpose)
	}
	if err := sc.readMissing(tx, cands); err != nil {
		return nil, err
	}
	finds := make([][]found, len(units))
	parallel(len(units), func(i int) {
		for _, c := range cands[i] {
			if t, ok := sc.f.cache.Get(seqKey(c)); ok {
				if fd, ok := sc.f.d.Compare(t, texts[i]); ok {
					finds[i] = append(finds[i], found{earlier: seqKey(c), later: units[i].Unit.ID, finding: fd, level: sc.f.level})
				}
			}
		}
	})
	return sc.named(tx, finds)
}

// candidates are the earlier units unit u is compared with: those its
// terms find, best ranked, and the newest of its purpose.
func (sc *scanner) candidates(tx store.DetectTx, terms []detect.Term, u model.UnitHit) ([]int64, error) {
	hits := make([][]int64, len(terms))
	df := make([]int, len(terms))
	var ask []store.Term
	var askAt []int
	for i, t := range terms {
		h := sc.idx.get(t.Word)
		hits[i] = h.newest()
		if h != nil {
			df[i] = h.count
		}
		if !sc.idx.known(t.Word, h, detectPerTerm) {
			ask = append(ask, store.Term{Prefix: t.Word, Whole: t.Whole})
			askAt = append(askAt, i)
		}
	}
	if len(ask) > 0 {
		more, counts, err := tx.UnitCandidates(ask, u.Seq, detectPerTerm)
		if err != nil {
			return nil, err
		}
		for k, i := range askAt {
			hits[i] = newestOf(hits[i], more[k], detectPerTerm)
			df[i] = max(df[i], counts[k])
		}
	}
	seqs := detect.RankHits(terms, hits, df, int(u.Seq-1), detectRanked)
	key := purposeKey(u.Unit.Intent.Purpose)
	h := sc.idx.get(key)
	same := h.newest()
	if !sc.idx.known(key, h, detectPurpose) {
		more, err := tx.UnitsByPurpose(u.Unit.Intent.Purpose, u.Seq, detectPurpose)
		if err != nil {
			return nil, err
		}
		same = newestOf(same, more, detectPurpose)
	}
	for _, s := range same {
		if !slices.Contains(seqs, s) {
			seqs = append(seqs, s)
		}
	}
	return seqs, nil
}

// readMissing reads the candidates the cache does not hold, those that
// the detector looks at.
func (sc *scanner) readMissing(tx store.DetectTx, cands [][]int64) error {
	var missing []int64
	seen := map[int64]bool{}
	for _, cs := range cands {
		for _, c := range cs {
			if _, ok := sc.f.cache.Get(seqKey(c)); !ok && !seen[c] {
				seen[c] = true
				missing = append(missing, c)
			}
		}
	}
	for len(missing) > 0 {
		n := min(len(missing), 500)
		got, err := tx.UnitsBySeq(missing[:n])
		if err != nil {
			return err
		}
		parallel(len(got), func(i int) {
			if u := got[i]; comparable(u.Unit) {
				sc.f.cache.Text(seqKey(u.Seq), inputOf(u.Unit))
			}
		})
		missing = missing[n:]
	}
	return nil
}

// named gives each finding its earlier unit's id (found keeps its
// sequence number until then), strongest first, at most detectMost a
// unit.
func (sc *scanner) named(tx store.DetectTx, finds [][]found) ([]found, error) {
	var seqs []int64
	for _, fs := range finds {
		for _, f := range fs {
			n, _ := strconv.ParseInt(f.earlier, 10, 64)
			seqs = append(seqs, n)
		}
	}
	units, err := tx.UnitsBySeq(seqs)
	if err != nil {
		return nil, err
	}
	ids := make(map[string]string, len(units))
	for _, u := range units {
		ids[seqKey(u.Seq)] = u.Unit.ID
	}
	var out []found
	for _, fs := range finds {
		var named []found
		for _, f := range fs {
			if id, ok := ids[f.earlier]; ok {
				f.earlier = id
				named = append(named, f)
			}
		}
		out = append(out, strongest(named)...)
	}
	return out, nil
}

// newestOf merges two lists of sequence numbers, each newest first, into
// one without repeats, at most keep.
func newestOf(a, b []int64, keep int) []int64 {
	out := append(slices.Clone(a), b...)
	slices.SortFunc(out, func(x, y int64) int { return cmp.Compare(y, x) })
	out = slices.Compact(out)
	return out[:min(keep, len(out))]
}

// purposeKey is a purpose as the scan's index keeps it, apart from words.
func purposeKey(purpose string) string {
	if len(purpose) > 200 {
		purpose = purpose[:200]
	}
	return "\x00" + purpose
}

func inputOf(u model.Unit) detect.Input {
	return detect.Input{Content: u.Content, Purpose: u.Intent.Purpose, Type: u.Type}
}

// parallel runs fn(0) … fn(n-1) on as many goroutines as there are
// processors.
func parallel(n int, fn func(int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
