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

// scanner is one scan's reading: its detector, its cache of read units
// (by sequence number) and its index of the units it has looked at.
type scanner struct {
	f   finder
	idx *scanIndex
}

func seqKey(seq int64) string { return strconv.FormatInt(seq, 10) }

// batch reads units, in order, into the scanner's index, and compares
// those it looks at with the earlier units; it returns what it found.
func (sc *scanner) batch(ctx context.Context, tx store.DetectTx, units []model.UnitHit, looks func(model.UnitHit) bool) ([]found, error) {
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
		if looks(u) {
			var err error
			if cands[i], err = sc.candidates(tx, terms[:min(detectTerms, len(terms))], u); err != nil {
				return nil, err
			}
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
